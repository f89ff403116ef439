"""Chat understanding: a message -> an Intent; references resolved against conversation memory.

    intent = parse_message(text, collections)          # pure, never raises
    ids = resolve_refs(intent.refs, state, now, max_idle)
    state = next_state(state, answer_ids=..., query=..., offset=..., collection=..., now=now)

Files: patterns.py (the rules as data), model.py (Intent and references), refs.py (reference
words), intents.py (parse_message), memory.py (ConversationState), errors.py (why a reference
cannot be resolved).
"""

from retrieval.conversation.errors import (
    ConversationError,
    NoPaperInFocus,
    NoRecentAnswer,
    PositionOutOfRange,
)
from retrieval.conversation.intents import parse_message
from retrieval.conversation.memory import (
    ConversationState,
    PageRequest,
    focus_on,
    next_page,
    next_state,
    resolve_refs,
)
from retrieval.conversation.model import (
    ALL,
    LAST,
    FocusRef,
    IdRef,
    Intent,
    IntentKind,
    PositionRef,
    Ref,
)

__all__ = [
    "ALL",
    "LAST",
    "ConversationError",
    "ConversationState",
    "FocusRef",
    "IdRef",
    "Intent",
    "IntentKind",
    "NoPaperInFocus",
    "NoRecentAnswer",
    "PageRequest",
    "PositionOutOfRange",
    "PositionRef",
    "Ref",
    "focus_on",
    "next_page",
    "next_state",
    "parse_message",
    "resolve_refs",
]
