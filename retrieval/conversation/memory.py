"""Conversation memory as a value: what the last answer showed, and references resolved into it.

Shells keep one `ConversationState` per conversation (user + channel), replace it with
`next_state` after every answer and `focus_on` after showing one paper, and pass it to
`resolve_refs` / `next_page`. A state older than `max_idle` seconds is never used: a position
or "it" then raises `NoRecentAnswer(stale=True)` instead of pointing into an old answer.
Times are seconds on any one clock the shell chooses (e.g. `time.monotonic()`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from retrieval.conversation.errors import NoPaperInFocus, NoRecentAnswer, PositionOutOfRange
from retrieval.conversation.model import ALL, FocusRef, IdRef, PositionRef, Ref


@dataclass(frozen=True, slots=True)
class ConversationState:
    """The last answer of one conversation.

    `paper_ids` are the ids shown, in order (the page on screen: "the second one" is
    `paper_ids[1]`); `offset` is where that page starts in the full result list; `query` and
    `collection` are what was asked, so "more" can ask again with `offset + len(paper_ids)`.
    `focus` is the paper "it" means; `updated_at` when the state last changed.
    """

    paper_ids: tuple[str, ...] = ()
    focus: str | None = None
    query: str | None = None
    offset: int = 0
    collection: str | None = None
    updated_at: float = 0.0

    def is_fresh(self, now: float, max_idle: float) -> bool:
        return now - self.updated_at <= max_idle


@dataclass(frozen=True, slots=True)
class PageRequest:
    """What "more" asks for: the same question from `offset` on."""

    query: str
    offset: int
    collection: str | None


def next_state(
    state: ConversationState | None,
    *,
    answer_ids: Sequence[str],
    query: str | None,
    offset: int,
    collection: str | None,
    now: float,
    focus: str | None = None,
) -> ConversationState:
    """The state after an answer that showed `answer_ids` (a search page, similar papers ...).

    The focus is `focus` if given, else the answer's only paper, else none: after three results
    "it" is ambiguous. `state` is accepted so every shell calls this the same way; nothing of an
    older answer survives a new one.
    """
    del state  # a new answer replaces the old one entirely
    ids = tuple(answer_ids)
    if focus is None and len(ids) == 1:
        focus = ids[0]
    return ConversationState(
        paper_ids=ids,
        focus=focus,
        query=query,
        offset=offset,
        collection=collection,
        updated_at=now,
    )


def focus_on(state: ConversationState | None, paper_id: str, now: float) -> ConversationState:
    """The state after one paper was shown: it is in focus; the last list stays addressable."""
    if state is None:
        return ConversationState(paper_ids=(paper_id,), focus=paper_id, updated_at=now)
    return replace(state, focus=paper_id, updated_at=now)


def _fresh(state: ConversationState | None, now: float, max_idle: float) -> ConversationState:
    if state is None or not state.paper_ids:
        raise NoRecentAnswer(stale=False)
    if not state.is_fresh(now, max_idle):
        raise NoRecentAnswer(stale=True)
    return state


def _positions(ref: PositionRef, shown: int) -> range:
    count = shown if ref.count == ALL else ref.count
    start = ref.index if ref.index >= 0 else shown + ref.index
    if ref.index >= 0 and start + count > shown:
        raise PositionOutOfRange(wanted=start + count, available=shown)
    if start < 0:
        raise PositionOutOfRange(wanted=-ref.index, available=shown)
    return range(start, start + count)


def resolve_refs(
    refs: Iterable[Ref], state: ConversationState | None, now: float, max_idle: float
) -> list[str]:
    """Paper ids for `refs`, in order, each once. Ids need no memory; positions and "it" do.

    Raises NoRecentAnswer (no state, empty, or stale), PositionOutOfRange, NoPaperInFocus.
    """
    ids: list[str] = []
    for ref in refs:
        if isinstance(ref, IdRef):
            ids.append(ref.key)
        elif isinstance(ref, PositionRef):
            fresh = _fresh(state, now, max_idle)
            ids.extend(fresh.paper_ids[i] for i in _positions(ref, len(fresh.paper_ids)))
        elif isinstance(ref, FocusRef):
            fresh = _fresh(state, now, max_idle)
            if fresh.focus is None:
                raise NoPaperInFocus(shown=len(fresh.paper_ids))
            ids.append(fresh.focus)
    return list(dict.fromkeys(ids))


def next_page(state: ConversationState | None, now: float, max_idle: float) -> PageRequest:
    """What "more" means now; NoRecentAnswer if there is no fresh searched answer."""
    fresh = _fresh(state, now, max_idle)
    if fresh.query is None:
        raise NoRecentAnswer(stale=False)
    return PageRequest(fresh.query, fresh.offset + len(fresh.paper_ids), fresh.collection)
