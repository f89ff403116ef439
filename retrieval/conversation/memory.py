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

from retrieval.conversation.errors import (
    NoPaperInFocus,
    NoRecentAnswer,
    NumberedFromOne,
    PositionOutOfRange,
)
from retrieval.conversation.model import (
    ALL,
    FocusRef,
    IdRef,
    PositionRef,
    Ref,
    RelativeRef,
    ZeroRef,
)


@dataclass(frozen=True, slots=True)
class ConversationState:
    """The last answer of one conversation.

    `paper_ids` are the ids shown so far for the last question, numbered as shown across its
    pages ("#5" is `paper_ids[4]` once "more" showed 4-6), starting at result `offset` + 1;
    `query` and `collection` are what was asked, so "more" asks again from where the listed
    papers end; `similar_to` is the paper of a "papers like" list, which "more"
    pages instead. `focus` is the paper "it" means; `updated_at` when the state last changed.
    `compared` are the papers of the last comparison, which "they" and a question with no
    paper named ask about while no single paper has been opened since. `previous` is the list
    shown before this one (its own `previous` empty), which "go back" shows again.
    `suggested` is the question of a "Did you mean …?" that matched nothing as typed: "yes"
    searches it. `listed` is how many of `paper_ids` were shown as a list when a number fetched
    more than that ("#9" after three opens the ninth only), so "more" shows 4-6 next; None when
    every one was listed.
    """

    paper_ids: tuple[str, ...] = ()
    focus: str | None = None
    query: str | None = None
    offset: int = 0
    collection: str | None = None
    updated_at: float = 0.0
    similar_to: str | None = None
    compared: tuple[str, ...] = ()
    previous: ConversationState | None = None
    suggested: str | None = None
    listed: int | None = None

    def is_fresh(self, now: float, max_idle: float) -> bool:
        return now - self.updated_at <= max_idle


@dataclass(frozen=True, slots=True)
class PageRequest:
    """What "more" asks for: the same question (or the same "papers like") from `offset` on."""

    query: str
    offset: int
    collection: str | None
    similar_to: str | None = None


def next_state(
    state: ConversationState | None,
    *,
    answer_ids: Sequence[str],
    query: str | None,
    offset: int,
    collection: str | None,
    now: float,
    focus: str | None = None,
    similar_to: str | None = None,
) -> ConversationState:
    """The state after an answer that showed `answer_ids` (a search page, similar papers ...).

    A next page of the same list (its `offset` is where the state's shown papers end) extends
    the numbering; any other answer replaces the list. The focus is `focus` if given, else the
    answer's only paper, else none: after three results "it" is ambiguous.
    """
    ids = tuple(answer_ids)
    start = offset
    listed: int | None = None
    same_list = (
        state is not None
        and offset > 0
        and (state.query, state.collection, state.similar_to) == (query, collection, similar_to)
        and state.offset < offset <= state.offset + len(state.paper_ids)
    )
    if same_list and state is not None:
        # A page inside what a number fetched ("more" after "#9") keeps the fetched rest.
        cut = offset - state.offset
        ids = state.paper_ids[:cut] + ids + state.paper_ids[cut + len(ids) :]
        start = state.offset
        listed = cut + len(answer_ids) if cut + len(answer_ids) < len(ids) else None
    if focus is None and len(answer_ids) == 1 and not same_list:
        focus = ids[0]
    previous = state.previous if state is not None else None
    if (
        state is not None
        and state.paper_ids
        and (state.query or state.similar_to)
        and (state.query, state.collection, state.similar_to) != (query, collection, similar_to)
    ):
        previous = shown_list(state)
    return ConversationState(
        paper_ids=ids,
        focus=focus,
        query=query,
        offset=start,
        collection=collection,
        updated_at=now,
        similar_to=similar_to,
        previous=previous,
        listed=listed,
    )


def shown_list(state: ConversationState) -> ConversationState:
    """Just the list `state` shows (what "go back" needs): no focus, comparison or history."""
    return replace(state, focus=None, compared=(), previous=None, suggested=None)


def compared_in(
    state: ConversationState | None, paper_ids: Sequence[str], now: float
) -> ConversationState:
    """The state after a comparison: "they" now means these papers, and no single one is "it"."""
    return replace(
        state or ConversationState(), focus=None, compared=tuple(paper_ids), updated_at=now
    )


def focus_on(state: ConversationState | None, paper_id: str, now: float) -> ConversationState:
    """The state after one paper was shown: it is in focus; the last list stays addressable."""
    if state is None:
        return ConversationState(paper_ids=(paper_id,), focus=paper_id, updated_at=now)
    return replace(state, focus=paper_id, compared=(), updated_at=now)


def _fresh(state: ConversationState | None, now: float, max_idle: float) -> ConversationState:
    if state is None or not state.paper_ids:
        raise NoRecentAnswer(stale=False)
    if not state.is_fresh(now, max_idle):
        raise NoRecentAnswer(stale=True)
    return state


def _positions(ref: PositionRef, state: ConversationState) -> range:
    """Indexes into `state.paper_ids` for a position numbered as shown (from `offset` + 1)."""
    shown = len(state.paper_ids)
    count = shown if ref.count == ALL else ref.count
    start = ref.index - state.offset if ref.index >= 0 else shown + ref.index
    if ref.index >= 0 and (start < 0 or start + count > shown):
        raise PositionOutOfRange(
            wanted=ref.index + count, available=state.offset + shown, first=state.offset + 1
        )
    if start < 0:
        raise PositionOutOfRange(wanted=-ref.index, available=shown)
    return range(start, start + count)


def resolve_refs(
    refs: Iterable[Ref], state: ConversationState | None, now: float, max_idle: float
) -> list[str]:
    """Paper ids for `refs`, in order, each once. Ids need no memory; positions and "it" do.

    Raises NoRecentAnswer (no state, empty, or stale), PositionOutOfRange, NoPaperInFocus,
    NumberedFromOne ("#0", whatever the memory).
    """
    ids: list[str] = []
    for ref in refs:
        if isinstance(ref, ZeroRef):
            raise NumberedFromOne()
        if isinstance(ref, IdRef):
            ids.append(ref.written or ref.key)
        elif isinstance(ref, PositionRef):
            fresh = _fresh(state, now, max_idle)
            ids.extend(fresh.paper_ids[i] for i in _positions(ref, fresh))
        elif isinstance(ref, RelativeRef):
            fresh = _fresh(state, now, max_idle)
            if fresh.focus is None or fresh.focus not in fresh.paper_ids:
                raise NoPaperInFocus(shown=len(fresh.paper_ids))
            place = fresh.paper_ids.index(fresh.focus) + ref.step
            if not 0 <= place < len(fresh.paper_ids):
                raise PositionOutOfRange(
                    wanted=fresh.offset + place + 1, available=fresh.offset + len(fresh.paper_ids)
                )
            ids.append(fresh.paper_ids[place])
        elif isinstance(ref, FocusRef):
            fresh = _fresh(state, now, max_idle)
            if fresh.focus is None and fresh.compared:
                ids.extend(fresh.compared)  # "what data do they use?" after "compare 1 and 2"
            elif fresh.focus is None:
                raise NoPaperInFocus(shown=len(fresh.paper_ids))
            else:
                ids.append(fresh.focus)
    return list(dict.fromkeys(ids))


def next_page(state: ConversationState | None, now: float, max_idle: float) -> PageRequest:
    """What "more" means now; NoRecentAnswer if there is no fresh searched answer."""
    fresh = _fresh(state, now, max_idle)
    if fresh.query is None and fresh.similar_to is None:
        raise NoRecentAnswer(stale=False)
    listed = len(fresh.paper_ids) if fresh.listed is None else fresh.listed
    return PageRequest(
        fresh.query or "",
        fresh.offset + listed,
        fresh.collection,
        fresh.similar_to,
    )
