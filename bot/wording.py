"""What paperbot says in chat, in one place for the Discord bot and the terminal console.

The engine returns data (a `Reply`, an error with fields); the sentences people read are here.
`command` is how the shell names its commands: "/search" in Discord, "search" in a terminal.
"""

from __future__ import annotations

from retrieval.conversation import (
    IntentKind,
    NoPaperInFocus,
    NoRecentAnswer,
    PositionOutOfRange,
    PositionRef,
)
from retrieval.conversation.chat import Reply, ReplyKind
from retrieval.errors import CollectionNotFound, PaperbotError, PaperNotFound

EXAMPLE_QUESTION = "which papers attack RAG retrievers?"
NO_MATCH = "No paper matches that question."
_ORDINALS = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth")


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """'1 file', '2 files', '1 matching paper'."""
    word = noun if count == 1 else (plural_form or f"{noun}s")
    return f"{count:,} {word}"


def small_talk(reply: Reply, *, console: bool = False) -> str:
    """Greetings, thanks, chit-chat; `console` for the terminal, where there is no message to
    reply to: follow-ups are typed at the prompt."""
    if reply.kind is ReplyKind.GREETING:
        return f"Hi! Ask me about papers, e.g. “{EXAMPLE_QUESTION}”"
    if reply.kind is ReplyKind.THANKS:
        if console:
            return "Glad it helped! Type “the second one” or “more like it” to follow up."
        return "Glad it helped! Reply to an answer with “the second one” or “more like it”."
    return f"I'm a paper finder. Try: “{EXAMPLE_QUESTION}”"


def problem(error: PaperbotError, reply: Reply | None = None) -> str:
    """One line for a question that cannot be answered as asked."""
    if isinstance(error, NoRecentAnswer):
        what = _referent(reply)
        lead = f"{what} of what?" if what else "I have no recent answer to point into."
        if error.stale:
            return f"{lead} My last answer here is too old; ask a question first."
        return f"{lead} Ask a question first."
    if isinstance(error, PositionOutOfRange):
        return (
            f"There {'was' if error.available == 1 else 'were'} only "
            f"{plural(error.available, 'result')}; pick a number from 1 to {error.available}."
        )
    if isinstance(error, NoPaperInFocus):
        return "Which one? Say “the first one”, a number, or a paper id."
    if isinstance(error, PaperNotFound):
        close = ", ".join(f"`{paper_id}`" for paper_id in error.closest)
        hint = f" Closest: {close}." if close else ""
        return f"No paper has the id `{error.paper_id}`.{hint}"
    if isinstance(error, CollectionNotFound):
        return str(error)
    return str(error)


def no_match_lines(suggestion: str | None, *, example: str) -> list[str]:
    """What to say when nothing matched, once: the sentence, a did-you-mean, one example.

    `suggestion` and `example` arrive formatted for the shell (bold and code in Discord).
    """
    lines = [NO_MATCH]
    if suggestion:
        lines.append(f"Did you mean {suggestion}?")
    lines.append(f"Or try an example: {example}")
    return lines


def unknown_collection(name: str) -> str:
    return f"No collection called “{name}” is loaded, so this answer covers all papers."


def _referent(reply: Reply | None) -> str | None:
    """'Second' for "the second one": the word the user's reference used, if positional."""
    if reply is None or reply.intent.kind is IntentKind.MORE:
        return "More" if reply is not None else None
    for ref in reply.intent.refs:
        if isinstance(ref, PositionRef) and ref.count == 1 and 0 <= ref.index < len(_ORDINALS):
            return _ORDINALS[ref.index]
    return None
