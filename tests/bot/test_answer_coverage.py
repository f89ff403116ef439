"""How an answer says what it could not match: the footer's count and the unmatched words."""

from __future__ import annotations

from bot import wording
from bot.terminal import console
from retrieval.models import Answer, ParsedQuery


def answer(total: int, total_all: int | None, **fields: object) -> Answer:
    return Answer("q", ParsedQuery("q"), (), total, 1.0, total_all=total_all, **fields)  # type: ignore[arg-type]


def test_the_count_is_only_as_strong_as_it_can_defend() -> None:
    assert wording.matching_count(answer(31, None)) == "31 matching papers"
    assert wording.matching_count(answer(31, 31)) == "31 matching papers"
    assert wording.matching_count(answer(31, 12)) == "31 matching papers (12 with every word)"
    assert wording.matching_count(answer(31, 0)) == "31 matching papers (none with every word)"


def test_unmatched_words_and_corrections_are_said_once_each() -> None:
    said = wording.coverage_lines(
        answer(
            5,
            5,
            unmatched=("protein", "hallucinaton"),
            corrections=(("hallucinaton", "hallucination"),),
        ),
        lambda word: f"“{word}”",
    )
    assert said == [
        "No paper mentions “protein”; these papers match the other words.",
        "“hallucinaton” → hallucination? (no paper mentions “hallucinaton”)",
    ]


def test_json_carries_the_coverage() -> None:
    shown = console.answer_json(
        answer(5, 2, unmatched=("protein",), corrections=(("protien", "protein"),))
    )
    assert shown["total_all"] == 2
    assert shown["unmatched"] == ["protein"]
    assert shown["corrections"] == [{"typed": "protien", "suggested": "protein"}]


def test_json_names_the_collections_the_question_was_filtered_to() -> None:
    # "neurips papers on mamba": the query text lost "neurips"; the JSON must not.
    filtered = Answer(
        "papers on mamba",
        ParsedQuery("papers on mamba", collections=("NeurIPS 2023",)),
        (),
        0,
        1.0,
        absent_here=("mamba",),
    )
    shown = console.answer_json(filtered)
    assert shown["collections"] == ["NeurIPS 2023"]
    assert shown["absent_in_collections"] == ["mamba"]
