"""Conversation memory: resolving positions, the focus and "more"; stale state is never used."""

from __future__ import annotations

from dataclasses import replace

import pytest

from retrieval.conversation.errors import NoPaperInFocus, NoRecentAnswer, PositionOutOfRange
from retrieval.conversation.memory import (
    ConversationState,
    PageRequest,
    focus_on,
    next_page,
    next_state,
    resolve_refs,
)
from retrieval.conversation.model import ALL, LAST, FocusRef, IdRef, PositionRef
from retrieval.conversation.persist import state_from_json, state_to_json
from retrieval.errors import PaperbotError

IDLE = 600.0
ANSWER = ("icml2026-4", "icml2026-9", "icml2026-1")


def answered(now: float = 1000.0, focus: str | None = None) -> ConversationState:
    return next_state(
        None,
        answer_ids=ANSWER,
        query="moe routing",
        offset=0,
        collection="icml2026",
        now=now,
        focus=focus,
    )


def test_positions_index_the_last_answer_in_order() -> None:
    state = answered()
    assert resolve_refs([PositionRef(1)], state, 1001.0, IDLE) == ["icml2026-9"]
    assert resolve_refs([PositionRef(LAST)], state, 1001.0, IDLE) == ["icml2026-1"]
    assert resolve_refs([PositionRef(0, 2)], state, 1001.0, IDLE) == ["icml2026-4", "icml2026-9"]
    assert resolve_refs([PositionRef(-2, 2)], state, 1001.0, IDLE) == ["icml2026-9", "icml2026-1"]
    assert resolve_refs([PositionRef(0, ALL)], state, 1001.0, IDLE) == list(ANSWER)
    assert resolve_refs([PositionRef(2), PositionRef(0)], state, 1001.0, IDLE) == [
        "icml2026-1",
        "icml2026-4",
    ]


def test_ids_need_no_memory_and_repeats_count_once() -> None:
    assert resolve_refs([IdRef("icml2026-7")], None, 0.0, IDLE) == ["icml2026-7"]
    state = answered()
    refs = [IdRef("icml2026-9"), PositionRef(1), IdRef("icml2026-2")]
    assert resolve_refs(refs, state, 1001.0, IDLE) == ["icml2026-9", "icml2026-2"]


def test_out_of_range_carries_wanted_and_available() -> None:
    with pytest.raises(PositionOutOfRange) as caught:
        resolve_refs([PositionRef(8)], answered(), 1001.0, IDLE)
    assert (caught.value.wanted, caught.value.available) == (9, 3)
    with pytest.raises(PositionOutOfRange) as caught:
        resolve_refs([PositionRef(2, 2)], answered(), 1001.0, IDLE)
    assert (caught.value.wanted, caught.value.available) == (4, 3)
    with pytest.raises(PositionOutOfRange) as caught:
        resolve_refs([PositionRef(-5, 5)], answered(), 1001.0, IDLE)
    assert (caught.value.wanted, caught.value.available) == (5, 3)


def test_no_answer_yet() -> None:
    for state in (None, ConversationState(updated_at=1000.0)):
        with pytest.raises(NoRecentAnswer) as caught:
            resolve_refs([PositionRef(1)], state, 1001.0, IDLE)
        assert caught.value.stale is False


def test_stale_state_is_never_used() -> None:
    state = answered(now=1000.0, focus="icml2026-9")
    assert resolve_refs([PositionRef(0)], state, 1000.0 + IDLE, IDLE) == ["icml2026-4"]
    for ref in (PositionRef(0), FocusRef()):
        with pytest.raises(NoRecentAnswer) as caught:
            resolve_refs([ref], state, 1000.0 + IDLE + 0.5, IDLE)
        assert caught.value.stale is True
    with pytest.raises(NoRecentAnswer):
        next_page(state, 1000.0 + IDLE + 1, IDLE)


def test_focus() -> None:
    with pytest.raises(NoPaperInFocus) as caught:
        resolve_refs([FocusRef()], answered(), 1001.0, IDLE)
    assert caught.value.shown == 3
    focused = focus_on(answered(), "icml2026-9", now=1002.0)
    assert resolve_refs([FocusRef()], focused, 1003.0, IDLE) == ["icml2026-9"]
    # the list stays addressable after opening one of its papers
    assert resolve_refs([PositionRef(2)], focused, 1003.0, IDLE) == ["icml2026-1"]
    assert focused.updated_at == 1002.0


def test_a_single_result_is_in_focus() -> None:
    state = next_state(None, answer_ids=["x-1"], query="q", offset=0, collection=None, now=5.0)
    assert resolve_refs([FocusRef()], state, 6.0, IDLE) == ["x-1"]


def test_focus_on_without_state_starts_one() -> None:
    state = focus_on(None, "icml2026-3", now=7.0)
    assert state.paper_ids == ("icml2026-3",)
    assert resolve_refs([FocusRef(), PositionRef(0)], state, 8.0, IDLE) == ["icml2026-3"]


def test_a_new_answer_replaces_the_old_one() -> None:
    old = focus_on(answered(), "icml2026-9", now=1001.0)
    new = next_state(
        old, answer_ids=["a-1", "a-2"], query="other", offset=0, collection=None, now=1010.0
    )
    assert new.focus is None
    assert new.collection is None
    assert resolve_refs([PositionRef(1)], new, 1011.0, IDLE) == ["a-2"]


def test_next_page_continues_after_the_shown_page() -> None:
    state = answered()
    assert next_page(state, 1001.0, IDLE) == PageRequest("moe routing", 3, "icml2026")
    second = next_state(
        state,
        answer_ids=["icml2026-8"],
        query="moe routing",
        offset=3,
        collection="icml2026",
        now=1002.0,
    )
    assert next_page(second, 1003.0, IDLE) == PageRequest("moe routing", 4, "icml2026")


def test_next_page_needs_a_searched_answer() -> None:
    with pytest.raises(NoRecentAnswer):
        next_page(None, 0.0, IDLE)
    with pytest.raises(NoRecentAnswer):
        next_page(focus_on(None, "x-1", now=0.0), 1.0, IDLE)


def test_errors_are_paperbot_errors_with_one_plain_line() -> None:
    errors = [
        NoRecentAnswer(stale=True),
        PositionOutOfRange(wanted=9, available=3),
        NoPaperInFocus(shown=3),
    ]
    for error in errors:
        assert isinstance(error, PaperbotError)
        line = str(error)
        assert "\n" not in line
        assert line
        assert "discord" not in line.lower()
        assert "/" not in line  # no slash commands: the shells own the wording


def test_a_new_list_keeps_the_one_before_and_a_next_page_does_not_replace_it() -> None:
    first = answered()
    second = next_state(
        first, answer_ids=("x-1",), query="graphs", offset=0, collection=None, now=1001.0
    )
    page_two = next_state(
        second, answer_ids=("x-2",), query="graphs", offset=1, collection=None, now=1002.0
    )
    assert second.previous is not None and second.previous.paper_ids == ANSWER
    assert second.previous.previous is None and second.previous.focus is None
    assert page_two.previous == second.previous


def test_the_state_survives_its_json_with_history_and_comparison() -> None:
    state = replace(
        next_state(
            answered(), answer_ids=("x-1", "x-2"), query="q", offset=0, collection=None, now=1.0
        ),
        compared=("x-1", "x-2"),
        listed=1,
    )
    assert state_from_json(state_to_json(state)) == state
    assert state_from_json('{"paper_ids": 5}') is None  # damaged: forgotten, never a crash
