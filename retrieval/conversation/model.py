"""What a chat message means, as data: intent kinds, references to papers, the Intent itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

# PositionRef.index counted from the end, like Python: -1 is the last result.
LAST = -1
# PositionRef.count for "them" / "these": every result of the last answer.
ALL = 0


class IntentKind(Enum):
    GREETING = "greeting"
    THANKS = "thanks"
    SMALL_TALK = "small_talk"
    HELP = "help"
    PAPER = "paper"  # show paper(s): refs hold an id, positions ("the second one") or the focus
    SIMILAR = "similar"  # papers like refs[0]
    MORE = "more"  # the next page of the last answer (`count` results; from the top: `from_top`)
    BACK = "back"  # the list shown before the last one, again
    QUESTION_ABOUT_PAPER = "question_about_paper"  # refs + the question words in `query`
    COMPARE = "compare"  # two or more papers side by side
    REFINE = "refine"  # the last search again with another collection filter ("same but for iclr")
    SEARCH = "search"  # everything else: `query` is searched


@dataclass(frozen=True, slots=True)
class IdRef:
    """A typed paper id, already canonical (`retrieval.ids.paper_key`). `written` is the id as
    typed when it may be a JSONL record's own id ('neurips2023-00444', `ids.record_id`): looked
    up first, it opens that record rather than neurips2023-444."""

    key: str
    written: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class PositionRef:
    """Results of the last answer: 0-based `index` (negative counts from the end), `count` of them.

    "the second one" is PositionRef(1); "the last one" PositionRef(LAST); "the first two"
    PositionRef(0, 2); "the last two" PositionRef(-2, 2); "them" PositionRef(0, ALL).
    """

    index: int
    count: int = 1


@dataclass(frozen=True, slots=True)
class FocusRef:
    """The paper in focus: "it", "that paper", "this one"."""


@dataclass(frozen=True, slots=True)
class RelativeRef:
    """A paper next to the one in focus in the last list: "the one before that" is -1."""

    step: int


@dataclass(frozen=True, slots=True)
class ZeroRef:
    """ "#0": a position that does not exist, since results are numbered from 1. Kept as a
    reference (not dropped) so the reply can say how numbering works instead of searching "#0"."""


Ref = IdRef | PositionRef | FocusRef | RelativeRef | ZeroRef


@dataclass(frozen=True, slots=True)
class Intent:
    """One chat message understood.

    `query` is the text to search (SEARCH), or the question words (QUESTION_ABOUT_PAPER); query
    syntax (`in:`, quotes, `-term`) is left in it for `retrieval.query.parse_query`.
    `collection` is the slug of a loaded collection named in words ("ICML 2026 papers about ..."),
    whose words were removed from `query`; `unknown_collection` is a venue and year that no loaded
    collection matches (searched over everything; its words were removed too).
    `defines` is the term of "what is DRIFT?": a SEARCH whose shell may lead with the sentence
    that defines the term. `message` is the whole message, normalized: what to search instead
    when a follow-up finds no answer to point into (e.g. "which one is faster?" out of context).
    """

    kind: IntentKind
    query: str = ""
    refs: tuple[Ref, ...] = ()
    collection: str | None = None
    unknown_collection: str | None = None
    wants_code: bool = False
    defines: str | None = None
    message: str = ""
    # What a question about a paper asks for (`retrieval.paper_answers.QuestionType` values).
    question_type: str | None = None
    # The classifier's probability for the intent it chose (1.0 when no model was asked).
    confidence: float = 1.0
    # A question that names no paper and so means the focus by default ("what is the weather
    # in paris"): with nothing in focus it is searched, never answered with "which one?".
    implicit_focus: bool = False
    # The classifier's probability that the message is about the bot: with no paper in focus,
    # a question that may be either ("how does this work?") is answered as help.
    help_probability: float = 0.0
    # "bye", "goodbye", "see you": the console ends; Discord replies with a farewell line.
    farewell: bool = False
    # MORE: how many results ("5 more", "show me 10 results"; None: a page), and whether the
    # list starts again from the top ("top 10") rather than going on where it stopped.
    count: int | None = None
    from_top: bool = False

    @property
    def needs_memory(self) -> bool:
        """True if answering needs the last answer (a position, the focus, or the next page)."""
        if self.kind in (IntentKind.MORE, IntentKind.BACK):
            return True
        return any(not isinstance(ref, IdRef) for ref in self.refs)
