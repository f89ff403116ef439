"""Questions about one paper answered from its abstract by what they ask for."""

from __future__ import annotations

import pytest

from retrieval.paper_answers import QuestionType, answer_about, aspects, question_type

ABSTRACT = (
    "Large language models hallucinate facts when retrieval fails. "
    "We propose GroundCheck, a verifier that scores each generated claim against retrieved "
    "passages. "
    "We evaluate GroundCheck on the TruthfulQA and FEVER benchmarks. "
    "GroundCheck reduces hallucinated claims by 35% and outperforms prior verifiers."
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("what's the main result?", QuestionType.RESULT),
        ("which datasets do they use?", QuestionType.DATASET),
        ("is it evaluated on navier-stokes?", QuestionType.DATASET),
        ("how does it work?", QuestionType.METHOD),
        ("what problem does it address", QuestionType.PROBLEM),
        ("any limitations?", QuestionType.LIMITATIONS),
        ("is there code?", QuestionType.CODE),
        ("who wrote icml2026-13?", QuestionType.AUTHORS),
        ("how many parameters?", QuestionType.OTHER),
    ],
)
def test_question_types(question: str, kind: QuestionType) -> None:
    assert question_type(question) is kind


def test_a_result_question_quotes_the_result_with_its_numbers_marked() -> None:
    about = answer_about(ABSTRACT, "what's the main result?")
    assert about.statement is None
    assert "35%" in about.sentences[0].plain
    assert any(span.match and "35%" in span.text for span in about.sentences[0].spans)


def test_a_dataset_question_quotes_the_benchmarks() -> None:
    about = answer_about(ABSTRACT, "which datasets?")
    assert "TruthfulQA" in about.sentences[0].plain


def test_what_the_abstract_cannot_say_is_said() -> None:
    assert answer_about(ABSTRACT, "who wrote it?").statement == (
        "Paper lists hold no authors, only abstracts."
    )
    no_data = answer_about("We prove a bound on regret for bandits.", "which datasets?")
    assert no_data.sentences == () and no_data.statement == (
        "The abstract names no data set or benchmark."
    )
    code = answer_about(ABSTRACT, "code?", urls=("https://github.com/x/y",))
    assert code.statement == "Code: https://github.com/x/y"


def test_aspects_give_proposal_data_and_result() -> None:
    sides = aspects(ABSTRACT)
    assert sides.proposes is not None and "We propose GroundCheck" in sides.proposes.plain
    assert sides.evaluated_on is not None and "FEVER" in sides.evaluated_on.plain
    assert sides.result is not None and "35%" in sides.result.plain
