"""The re-rank bonuses: proximity against a plain per-document reference, and every word."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from config.settings import Settings
from retrieval.engine import Engine
from retrieval.snapshot.matrix import BM25Index
from retrieval.snapshot.proximity import proximity_bonuses
from tests.conftest import write_list
from tests.retrieval.oracle import RANK_BM25_DEFAULTS

WORDS = ["a", "b", "c", "d", "e", "f"]


def reference_bonus(sequence: list[int], query: list[int], window: int) -> float:
    """The definition, written the slow and obvious way."""
    adjacent = {pair for pair in itertools.pairwise(query) if pair[0] != pair[1]}
    distinct = sorted(set(query))
    all_pairs = len(distinct) * (len(distinct) - 1) // 2
    ordered = set()
    nearby = set()
    for i, first in enumerate(sequence):
        for j in range(i + 1, min(len(sequence), i + window + 1)):
            second = sequence[j]
            if first in distinct and second in distinct and first != second:
                nearby.add((min(first, second), max(first, second)))
                if j == i + 1 and (first, second) in adjacent:
                    ordered.add((first, second))
    in_order = len(ordered) / len(adjacent) if adjacent else 0.0
    return 0.5 * (in_order + len(nearby) / all_pairs) if all_pairs else 0.0


@given(
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=25), min_size=1, max_size=8),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
    st.integers(1, 4),
)
def test_bonuses_match_the_reference(
    docs: list[list[str]], query_words: list[str], window: int
) -> None:
    index = BM25Index.build(docs, list(range(len(docs))), RANK_BM25_DEFAULTS)
    query = [index.term_ids[word] for word in query_words if word in index.term_ids]
    head = np.arange(len(docs), dtype=np.int64)[::-1]
    found = proximity_bonuses(index, head, query, window)
    for position, doc in enumerate(head.tolist()):
        sequence = index.document_terms(doc).tolist()
        expected = reference_bonus(sequence, query, window)
        assert found[position] == expected


def test_adjacent_in_order_scores_highest() -> None:
    docs = [["x", "a", "b", "y"], ["b", "a"], ["a", "x", "x", "x", "x", "b"]]
    index = BM25Index.build(docs, [0, 1, 2], RANK_BM25_DEFAULTS)
    query = [index.term_ids["a"], index.term_ids["b"]]
    assert proximity_bonuses(index, np.array([0, 1, 2]), query, 3).tolist() == [1.0, 0.5, 0.0]


ROBOTS = [
    # Says "policy", "robot" and "manipulation", never "diffusion".
    "Robot manipulation policy learning: a policy for robot manipulation and grasping.",
    # Holds every word of the query, in a longer abstract.
    "A diffusion model for text, used by a policy in robot manipulation among many other tasks.",
    "Speech recognition with transducers.",
    "Diffusion models for video generation.",
    "Diffusion models for audio generation.",
    "Protein folding with language models.",
    "Graph neural networks for molecules.",
    "Diffusion models for image generation.",
]


async def test_a_paper_holding_every_word_leads_one_missing_the_rare_word(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    write_list(seeds / "a.txt", ROBOTS)
    question = "diffusion policy robot manipulation"
    firsts = []
    for weight in (0.0, 0.5):
        settings = make_settings(seeds_dir=seeds, every_word_weight=weight)
        async with await Engine.open(settings) as engine:
            answer = await engine.ask(question, limit=2)
        firsts.append([hit.paper.id for hit in answer.hits])
    # Without the bonus the paper repeating three words leads; with it, the one with all four.
    assert firsts[0][:2] == ["fixture2026-1", "fixture2026-2"]
    assert firsts[1][:2] == ["fixture2026-2", "fixture2026-1"]
