"""parse_message on open-ended input: never raises, always an Intent (benchmarks/linear_time.py
times the hostile shapes here)."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from retrieval.conversation.intents import parse_message
from retrieval.conversation.model import (
    FocusRef,
    IdRef,
    Intent,
    IntentKind,
    PositionRef,
    RelativeRef,
    ZeroRef,
)
from tests.budgets import examples
from tests.retrieval.conversation.conftest import COLLECTIONS

# Pieces the rules look for, so generated text exercises them rather than only random letters.
PIECES = st.sampled_from(
    [
        "hi",
        "thanks",
        "help",
        "?",
        "more",
        "next",
        "similar",
        "like",
        "compare",
        "and",
        "the",
        "second",
        "one",
        "two",
        "last",
        "#",
        "3",
        "number",
        "it",
        "that paper",
        "does",
        "have",
        "code",
        "icml2026-13",
        "icml2026",
        " ",
        "  ",
        "-",
        "'",
        "’",
        '"',
        "in:",
        "ICML",
        "2026",
        "'24",
        "at",
        "papers",
        "on",
        "what is",
        "\x00",
        "\n",
        "\t",
        "\u200b",
        "é",
        "ß",
        "İ",
        "🙂",
        "\x7f",
        ",",
        ".",
    ]
)
MESSAGES = st.one_of(
    st.text(max_size=300),
    st.lists(PIECES, max_size=60).map("".join),
    st.lists(PIECES, max_size=60).map(" ".join),
)


def _check(intent: Intent) -> None:
    assert isinstance(intent, Intent)
    assert isinstance(intent.kind, IntentKind)
    for ref in intent.refs:
        assert isinstance(ref, IdRef | PositionRef | FocusRef | RelativeRef | ZeroRef)
    if intent.kind in (IntentKind.PAPER, IntentKind.SIMILAR, IntentKind.COMPARE):
        assert intent.refs
    if intent.kind is IntentKind.QUESTION_ABOUT_PAPER:
        assert intent.refs
    if intent.collection is not None:
        # One loaded slug, or several joined by commas ("NeurIPS": every loaded NeurIPS).
        assert set(intent.collection.split(",")) <= {c.slug for c in COLLECTIONS}


@given(MESSAGES)
def test_any_text_gives_an_intent(text: str) -> None:
    _check(parse_message(text, COLLECTIONS))
    _check(parse_message(text, []))


@settings(max_examples=examples(30))
@given(
    st.text(min_size=1, max_size=40) | st.lists(PIECES, min_size=1, max_size=20).map(" ".join),
    st.integers(5_000, 10_000),
    st.sampled_from(["", "hi ", "compare ", "more like "]),
)
def test_long_text_gives_a_search(seed: str, size: int, prefix: str) -> None:
    text = (seed * (size // len(seed) + 1))[:size]  # 5-10k characters built from a short seed
    assume(any(ch.isalnum() for ch in text))  # "hi" + only spaces or controls is a greeting
    intent = parse_message(prefix + text, COLLECTIONS)
    _check(intent)
    assert intent.kind in (IntentKind.SEARCH, IntentKind.HELP)


# 4,000 characters of each shape a rule's regex could backtrack on.
HOSTILE_SHAPES = [
    "a" * 4000,
    "hi" * 2000,
    "hi " * 1333,
    "icml2026-" * 444,
    "icml2026 " * 444,
    "ICML 2026 " * 400,
    "ICML'" * 800,
    "the second one " * 266,
    "compare 1 and " * 285,
    "similar to " * 363,
    "more " * 800,
    "#" * 4000,
    "1" * 4000,
    "does it " * 500,
    '"' * 4000,
    "-" * 4000,
    "in:" * 1333,
    "what is " * 500,
    " " * 4000 + "x",
    "\x00" * 4000,
    "a1-" * 1333,
    "icml" + "2" * 3996,
]
# Just past the length up to which chat references ("compare 1 and 3") are parsed.
PAST_THE_CHAT_LIMIT = [
    "compare " + "1 " * 70,
    "similar to " + "a" * 140,
    "the " * 39 + "second one",
]
NORMAL_MESSAGES = [
    "ICML 2026 papers about mixture of experts",
    "does the second one have code?",
    "hi",
    "compare 1 and 3",
    "which papers attack RAG retrievers?",
]


def test_hostile_shapes_give_an_intent() -> None:
    for shape in HOSTILE_SHAPES:
        assert len(shape) >= 3990
        _check(parse_message(shape, COLLECTIONS))


def test_shapes_past_the_chat_limit_give_an_intent() -> None:
    for shape in PAST_THE_CHAT_LIMIT:
        _check(parse_message(shape, COLLECTIONS))
