"""The chat console as a user meets it: each run a new conversation, goodbyes end it, small talk
fits what was said, and a lead quote names its result when it is not the first."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from bot import wording
from bot.terminal import chat_console, console
from retrieval.conversation.chat import Reply, ReplyKind
from retrieval.conversation.errors import (
    NoAuthorSearch,
    NoMoreResults,
    NoRecentAnswer,
    NumberedFromOne,
    PositionOutOfRange,
)
from retrieval.conversation.memory import ConversationState
from retrieval.conversation.model import FocusRef, Intent, IntentKind
from retrieval.engine import Engine
from retrieval.models import Answer, Excerpt, Hit, Paper, ParsedQuery, Span


def typing(monkeypatch: pytest.MonkeyPatch, *lines: str) -> list[str]:
    """Feed `lines` to the console's prompt; returns the lines it did not read."""
    left = list(lines)
    feed: Iterator[str] = iter(lines)

    def read_line(prompt: str) -> str:
        try:
            line = next(feed)
        except StopIteration:
            raise EOFError from None
        left.pop(0)
        return line

    monkeypatch.setattr(chat_console, "read_line", read_line)
    return left


async def test_each_console_run_is_a_new_conversation(
    fixture_engine: Engine, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    typing(monkeypatch, "routing networks experts", "quit")
    assert await chat_console.run_chat(fixture_engine) == 0
    first = capsys.readouterr().out
    assert "1. " in first and "2. " in first
    typing(monkeypatch, "the second one", "quit")
    assert await chat_console.run_chat(fixture_engine) == 0
    second = capsys.readouterr().out
    assert "Second of what? Ask a question first." in second
    assert chat_console.console_conversation() != chat_console.console_conversation()


async def test_a_compare_with_nothing_shown_says_how_to_compare(
    fixture_engine: Engine, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    typing(monkeypatch, "compare 1 and 2", "quit")
    assert await chat_console.run_chat(fixture_engine) == 0
    out = capsys.readouterr().out
    assert "Compare which papers? Ask for papers first, then “compare 1 and 2”" in out
    assert "First of what?" not in out


async def test_goodbye_ends_the_console_with_a_goodbye_line(
    fixture_engine: Engine, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    left = typing(monkeypatch, "hi", "goodbye", "routing")
    assert await chat_console.run_chat(fixture_engine) == 0
    out = capsys.readouterr().out
    assert left == ["routing"]  # nothing was read after the goodbye
    assert any(line in out for line in wording.FAREWELLS)
    typing(monkeypatch, "quit")
    assert await chat_console.run_chat(fixture_engine) == 0
    assert chat_console.GOODBYE in capsys.readouterr().out


def _chat(message: str, kind: ReplyKind = ReplyKind.SMALL_TALK) -> str:
    intent = Intent(IntentKind.SMALL_TALK, message=message)
    return wording.small_talk(Reply(kind, intent))


def test_small_talk_fits_what_was_said_and_is_stable() -> None:
    assert _chat("ok") in wording.ACKNOWLEDGEMENTS
    assert _chat("cool") in wording.ACKNOWLEDGEMENTS
    for answer in ("yes", "no", "nope", "yeah thanks"):  # nothing was asked: no "beyond me"
        assert _chat(answer) in wording.ACKNOWLEDGEMENTS, answer
    assert _chat("how are you today?") in wording.HOW_ARE_YOU
    assert _chat("tell me a joke") in wording.CHIT_CHAT
    for laughing in ("lol nice", "haha", "lmao that's wild", "😂"):
        assert _chat(laughing) in wording.REACTIONS, laughing
    for praise in ("you're great", "good bot", "great job bot", "love it"):
        assert _chat(praise) in wording.PRAISE, praise
    for complaint in ("you're useless", "bad bot", "that's not what i asked"):
        assert _chat(complaint) in wording.COMPLAINTS, complaint
    assert _chat("ok") != _chat("how are you today?")
    assert _chat("how are you today?") == _chat("how are you today?")
    replies = {_chat(text) for text in ("ok", "okay", "cool", "nice", "got it", "alright", "k")}
    assert len(replies) > 1  # not one canned line for every acknowledgement


def _hit(rank: int, label: str, words: str) -> Hit:
    paper = Paper(f"icml2026-{rank}", "ICML 2026", rank, str(rank), words, label)
    return Hit(paper=paper, score=4.0 - rank, rank=rank, excerpt=Excerpt((Span(words),)))


def _answer(lead_rank: int) -> Answer:
    hits = tuple(_hit(rank, f"Paper {rank} label", f"sentence {rank}") for rank in (1, 2, 3))
    lead = Excerpt((Span("the best sentence"),))
    return Answer(
        "q", ParsedQuery(text="q"), hits, 3, 1.0, lead=lead, lead_paper_id=f"icml2026-{lead_rank}"
    )


def test_a_lead_from_another_result_names_it() -> None:
    assert wording.lead_source(_answer(3)) == "From #3 (Paper 3 label)"
    assert wording.lead_source(_answer(1)) is None
    shown = console.render_answer(_answer(3))
    assert "From #3 (Paper 3 label): the best sentence" in shown.splitlines()
    # Still ranked as ranked: the list starts at #1.
    assert shown.index("1. Paper 1 label") < shown.index("3. Paper 3 label")
    assert "the best sentence  (icml2026-1)" in console.render_answer(_answer(1))


def test_the_footer_numbers_one_result_as_one_and_a_page_as_a_range() -> None:
    one = Answer("q", ParsedQuery(text="q"), (_hit(1, "Only", "sentence"),), 1363, 1.0)
    assert "\n1 of 1,363 matching papers" in console.render_answer(one)
    assert "\n1-3 of 3 matching papers" in console.render_answer(_answer(1))
    assert wording.problem(NoMoreResults(total=1)).startswith("That was all: 1 result. ")


def test_a_refined_list_of_similar_papers_says_whose_they_are() -> None:
    answer = replace(_answer(1), question="papers like icml2026-9 (Paper 9 label)")
    state = ConversationState(paper_ids=("icml2026-1",), similar_to="icml2026-9")
    refine = Intent(IntentKind.REFINE, collection="iclr2024")
    shown = chat_console.render_reply(
        Reply(ReplyKind.ANSWER, refine, answer=answer, state=state), False
    )
    search = chat_console.render_reply(Reply(ReplyKind.ANSWER, refine, answer=_answer(1)), False)
    assert shown.splitlines()[0] == "Papers like icml2026-9 (Paper 9 label):"
    assert not search.startswith("Papers like")


def test_number_zero_is_explained() -> None:
    assert wording.problem(NumberedFromOne()) == "Results are numbered from 1; try #1."


def test_a_number_past_the_shown_results_says_what_was_shown_not_the_end() -> None:
    shown = PositionOutOfRange(wanted=99, available=4)
    ended = PositionOutOfRange(wanted=9, available=4, exhausted=True)
    assert wording.problem(shown) == (
        "Only results 1-4 have been shown; pick one of those, or say “more”."
    )
    assert wording.problem(ended) == "There were only 4 results; pick a number from 1 to 4."


def test_a_paper_question_with_nothing_open_is_told_how_to_pick_one() -> None:
    question = Reply(ReplyKind.PROBLEM, Intent(IntentKind.QUESTION_ABOUT_PAPER, refs=(FocusRef(),)))
    told = wording.problem(NoRecentAnswer(stale=False), question)
    assert told.startswith("Which paper? Ask for papers first and open one")
    assert wording.problem(NoRecentAnswer(stale=False)) == (
        "I have no recent answer to point into. Ask a question first."
    )


def test_coverage_warnings_are_said_on_the_first_page_only() -> None:
    first = Answer(
        "protein routing",
        ParsedQuery(text="protein routing"),
        (_hit(1, "Paper 1 label", "routing"),),
        5,
        1.0,
        unmatched=("protein",),
    )
    later = Answer(
        "protein routing",
        ParsedQuery(text="protein routing"),
        (_hit(4, "Paper 4 label", "routing"),),
        5,
        1.0,
        unmatched=("protein",),
    )
    assert "No paper mentions “protein”" in console.render_answer(first)
    assert "No paper mentions" not in console.render_answer(later)


def test_an_author_search_is_answered_in_words() -> None:
    line = wording.problem(NoAuthorSearch("tri dao"))
    assert line.startswith("I can't search by author yet (“tri dao”)")


def test_a_word_absent_from_the_collections_searched_is_said() -> None:
    answer = replace(_answer(1), absent_here=("mamba",))
    lines = wording.coverage_lines(answer, lambda word: f"“{word}”")
    assert lines == ["No paper in the collections searched mentions “mamba”."]


def test_a_filtered_answer_says_where_it_searched() -> None:
    filtered = replace(_answer(1), query=ParsedQuery(text="q", collections=("ICLR 2024",)))
    assert "\n1-3 of 3 matching papers · in ICLR 2024 · " in console.render_answer(filtered)
    assert " · in " not in console.render_answer(_answer(1))


def test_a_number_past_the_reach_is_explained() -> None:
    line = wording.problem(PositionOutOfRange(wanted=60, available=3, reach=50))
    assert line.startswith("A number opens results up to #50 of a list; #60 is further.")
