"""The lead quote and the ranked list never disagree silently."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from config.settings import Settings
from retrieval.answering import LEAD_MARGIN, _lead_position, edit_distance, plausible_typo
from retrieval.engine import Engine
from retrieval.models import Excerpt, Span
from tests.conftest import write_list

QUOTE = Excerpt((Span("a sentence"),))


def test_the_top_paper_leads_unless_another_is_clearly_better() -> None:
    assert _lead_position([(2.0, QUOTE), (2.0 * LEAD_MARGIN - 0.01, QUOTE)]) == 0
    assert _lead_position([(2.0, QUOTE), (2.0 * LEAD_MARGIN, QUOTE)]) == 1
    assert _lead_position([(0.0, QUOTE), (0.5, QUOTE), (0.7, QUOTE)]) == 2
    assert _lead_position([(0.0, QUOTE), (0.0, QUOTE)]) is None


async def test_the_lead_never_reorders_the_ranking(seed_engine: Engine) -> None:
    questions = [
        "cheaper bayesian deep nets by factorizing the weight posterior into low-rank matrices",
        "which papers attack RAG retrievers?",
        "mixture of experts routing",
        "watermarking paraphrasing attacks",
        "diffusion models memorization",
    ]
    for question in questions:
        small = await seed_engine.ask(question, limit=3)
        large = await seed_engine.ask(question, limit=40)
        assert [hit.rank for hit in large.hits] == list(range(1, len(large.hits) + 1)), question
        scores = [hit.score for hit in large.hits]
        assert scores == sorted(scores, reverse=True), question
        # The first results, and the lead, do not depend on how many results were asked for.
        assert [h.paper.id for h in small.hits] == [h.paper.id for h in large.hits[:3]], question
        assert small.lead is not None and large.lead is not None
        assert small.lead_paper_id == large.lead_paper_id, question
        assert small.lead_paper_id in {hit.paper.id for hit in small.hits}, question


async def test_words_no_paper_mentions_are_named(seed_engine: Engine) -> None:
    answer = await seed_engine.ask("diffusion models for protein design", limit=3)
    assert answer.unmatched == ("protein",)
    assert answer.corrections == ()
    # The footer counts only papers holding every main word; the rest are "some words".
    assert answer.total_all is not None and answer.total_all < answer.total


async def test_a_collection_named_in_words_is_not_a_misspelling(seed_engine: Engine) -> None:
    # The README's first example: no abstract says "ICML" or "2026", the list's name does.
    answer = await seed_engine.ask("which ICML 2026 papers attack RAG retrievers?", limit=3)
    assert answer.hits and answer.hits[0].paper.id == "icml2026-13"
    assert answer.unmatched == ()
    assert answer.corrections == ()
    # A number is never corrected to another number.
    assert (await seed_engine.ask("watermarking in 2031", limit=3)).corrections == ()


async def test_a_misspelled_word_gets_a_correction_even_when_others_match(
    seed_engine: Engine,
) -> None:
    answer = await seed_engine.ask("hallucinaton detection", limit=3)
    assert answer.hits, "detection still matches"
    assert answer.unmatched == ("hallucinaton",)
    assert [typed for typed, _ in answer.corrections] == ["hallucinaton"]
    assert answer.corrections[0][1].startswith("hallucination")


async def test_every_word_count_matches_a_brute_force_count(seed_engine: Engine) -> None:
    answer = await seed_engine.ask("diffusion models", limit=3)
    abstracts = [
        (await seed_engine.paper(paper_id)).abstract.lower()
        for paper_id in seed_engine.corpus.papers.paper_ids()
    ]
    with_both = sum("diffusion" in text and "model" in text for text in abstracts)
    assert answer.total_all == with_both


def _over(tmp_path: Path, make_settings: Callable[..., Settings], abstracts: list[str]) -> Settings:
    """Settings whose only list holds `abstracts`."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    write_list(seeds / "a.txt", abstracts)
    settings: Settings = make_settings(seeds_dir=seeds)
    return settings


@pytest.mark.parametrize(
    ("abstracts", "typed", "written"),
    [
        # "generate" is the form the first paper using the stem writes; "generation" is closer
        # to what was typed, and "generations" is as close once but rarer.
        (
            [
                "We generate images with transformers and generate captions.",
                "Text generation with transformers. Controlled generation is hard.",
                "Generations of transformers and their generation quality.",
                "Sorting algorithms on graphs.",
            ],
            "genration",
            "generation",
        ),
        # The stem "hallucinatori" is closer to "hallucinaton" than "hallucin" is, but the word
        # "hallucination" is closer than "hallucinatory": words are compared, not stems.
        (
            [
                "Hallucination detection in transformers.",
                "We reduce hallucination in summaries of transformers.",
                "A hallucinatory image prior for transformers.",
            ],
            "hallucinaton",
            "hallucination",
        ),
        # "detecton" is one letter from "detection" and from "detector": the word more papers
        # use wins the tie.
        (
            [
                "A detector for objects with transformers.",
                "Anomaly detection with transformers.",
                "Detection of outliers by transformers.",
                "Fraud detection in transactions with transformers.",
            ],
            "detecton",
            "detection",
        ),
        # Two letters swapped: "desing" stems to "dese", far from "design", so the word as
        # typed is compared too, and a swap costs one edit.
        (
            [
                "Protein design with transformers.",
                "Drug design by transformers.",
                "Chip design and transformers.",
            ],
            "desing",
            "design",
        ),
        # Glued words and other stems ("segmentor", "segmentanything", "segmentaware") sit
        # closer to the typo's stem than "segment" does; the word papers write decides.
        (
            [
                "Image segmentation with transformers.",
                "A segmentor for medical images.",
                "Segmentationbased pipelines for cells.",
                "Segmentationand tracking of cells.",
                "Segmenttoseg transformers.",
                "Segmentanything models for cells.",
                "Segmentaware pruning of transformers.",
                "Semantic segmentation for driving scenes.",
            ],
            "segmentaton",
            "segmentation",
        ),
    ],
)
async def test_a_correction_is_written_as_the_closest_form_papers_use(
    tmp_path: Path,
    make_settings: Callable[..., Settings],
    abstracts: list[str],
    typed: str,
    written: str,
) -> None:
    async with await Engine.open(_over(tmp_path, make_settings, abstracts)) as engine:
        answer = await engine.ask(f"{typed} transformers", limit=3)
        nothing = await engine.ask(typed, limit=3)
    assert answer.corrections == ((typed, written),)
    assert nothing.suggestion == written


async def test_a_suggestion_neither_echoes_nonsense_nor_shortens_a_word(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> None:
    abstracts = [
        "Bilevel optimization (BLO) with implicit gradients.",
        "BLO solvers for hyperparameter tuning and meta-learning.",
        "Generation of molecules with diffusion models.",
    ]
    async with await Engine.open(_over(tmp_path, make_settings, abstracts)) as engine:
        nonsense = await engine.ask("xqzzv blorf", limit=3)
        mixed = await engine.ask("xqzzv genration", limit=3)
    assert nonsense.suggestion is None  # "blorf" is not "blo"; "xqzzv" is not repeated
    assert mixed.suggestion == "generation"


def test_a_far_or_short_word_is_no_typo() -> None:
    assert plausible_typo("desing", "design")
    assert not plausible_typo("desing", "des")  # three edits in six letters
    assert not plausible_typo("nah", "nash")  # three letters are too few to guess from
    assert plausible_typo("Oversmothing", "oversmoothing")  # case does not count


def test_edit_distance() -> None:
    assert edit_distance("desing", "design") == 1  # a swap is one edit
    assert edit_distance("genration", "generation") == 1
    assert edit_distance("genration", "generate") == 4
    assert edit_distance("", "abc") == edit_distance("abc", "") == 3
    assert edit_distance("same", "same") == 0
