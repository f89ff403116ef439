"""Why a reference cannot be resolved, as data; the shells word the reply.

`str(error)` is a minimal fallback line; shells read the fields ("Second of what? Ask a question
first.", "There were only 3 results.").
"""

from __future__ import annotations

from retrieval.errors import PaperbotError


class ConversationError(PaperbotError):
    """A reference to the last answer cannot be resolved."""


class NoRecentAnswer(ConversationError):
    """A position, the focus or "more" came with no answer to point into.

    `stale` is True when there was an answer but it is older than the idle limit.
    """

    def __init__(self, *, stale: bool) -> None:
        self.stale = stale
        super().__init__("There is no recent answer to refer to; ask a question first.")


class PositionOutOfRange(ConversationError):
    """ "the ninth one" after 3 results: `wanted` is 1-based, `available` the last number
    shown, `first` the first number that can still be pointed at; `exhausted` when the list
    has no more results than that (not just fewer shown)."""

    def __init__(
        self,
        *,
        wanted: int,
        available: int,
        first: int = 1,
        exhausted: bool = False,
        reach: int | None = None,
    ) -> None:
        self.wanted = wanted
        self.available = available
        self.first = first
        self.exhausted = exhausted
        self.reach = reach  # the farthest number a reference fetches (past it: "more")
        super().__init__(f"Result {wanted} was asked for, but there were {available}.")


class NoPaperInFocus(ConversationError):
    """ "it" with no single paper in focus; `shown` is how many results the last answer had."""

    def __init__(self, *, shown: int) -> None:
        self.shown = shown
        super().__init__("No single paper is in focus; name one by number or id.")


class NumberedFromOne(ConversationError):
    """ "#0": results are numbered from 1."""

    def __init__(self) -> None:
        super().__init__("Results are numbered from 1; try #1.")


class NoMoreResults(ConversationError):
    """ "more" after the last result: `total` results were all shown."""

    def __init__(self, *, total: int) -> None:
        self.total = total
        super().__init__(f"That was all: {total} results.")


class NoEarlierList(ConversationError):
    """ "go back" with no earlier list in this conversation to go back to."""

    def __init__(self) -> None:
        super().__init__("There is no earlier list in this conversation to go back to.")


class NoAuthorSearch(ConversationError):
    """ "papers by Tri Dao": papers are found by their abstracts; `name` as typed."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Papers cannot be searched by author ({name}).")
