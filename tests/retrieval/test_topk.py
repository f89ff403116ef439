"""Top-k with pruning: the same documents, scores and totals as the exhaustive reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval import topk
from retrieval.index import BM25Index, BM25Params
from tests.retrieval.oracle import RANK_BM25_DEFAULTS

# Few words and short documents: many ties, many documents per term, pruning kicks in.
WORDS = [f"w{i}" for i in range(12)]
documents = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=8), min_size=1, max_size=120
)
queries = st.lists(
    st.tuples(st.sampled_from(WORDS), st.sampled_from([1.0, 1.0, 0.3, 2.0])),
    min_size=1,
    max_size=6,
)


def _lists(index: BM25Index, query: list[tuple[str, float]]) -> list[topk.Postings]:
    numbers = [(index.term_number(term), weight) for term, weight in query]
    return [index.postings_list(n, weight) for n, weight in numbers if n is not None]


def _extra(size: int, seed: int) -> topk.Postings:
    rng = np.random.default_rng(seed)
    docs = np.flatnonzero(rng.random(size) < 0.2).astype(np.int32)
    impacts = rng.choice([0.0, 0.5, 1.5], size=len(docs)).astype(np.float32)
    bound = float(impacts.max()) if len(impacts) else 0.0
    return topk.Postings(docs, impacts, 0, len(docs), 1.0, bound, extra=True)


@pytest.mark.skipif(not topk.available(), reason="numba is not installed")
@settings(max_examples=300, deadline=None)
@given(
    documents,
    queries,
    st.integers(1, 60),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_pruned_top_k_equals_exhaustive(
    docs: list[list[str]],
    query: list[tuple[str, float]],
    k: int,
    with_mask: bool,
    with_extra: bool,
    seed: int,
) -> None:
    # Duplicated documents make exact ties at the cut: the earlier document must win.
    docs = docs + docs[: len(docs) // 2]
    index = BM25Index.build(docs, list(range(len(docs))), BM25Params(k1=1.2, b=0.75, epsilon=0.25))
    lists = _lists(index, query)
    if with_extra:
        lists.append(_extra(index.size, seed))
    mask = np.random.default_rng(seed).random(index.size) < 0.6 if with_mask else None
    pruned = topk.search(lists, index.size, mask, k, prune=True)
    unpruned = topk.search(lists, index.size, mask, k, prune=False)
    full = topk.search_numpy(lists, index.size, mask, k)
    assert pruned.docs.tolist() == full.docs.tolist()
    assert pruned.scores.tolist() == full.scores.tolist()
    assert pruned.total == full.total
    assert unpruned.docs.tolist() == full.docs.tolist()
    assert unpruned.scores.tolist() == full.scores.tolist()


def test_ties_go_to_the_earlier_document() -> None:
    docs = [["a", "b"], ["c"], ["a", "b"], ["a", "b"], ["c"]] * 10
    index = BM25Index.build(docs, list(range(len(docs))), RANK_BM25_DEFAULTS)
    found = topk.search(_lists(index, [("a", 1.0), ("c", 1.0)]), index.size, None, 4)
    reference = topk.search_numpy(_lists(index, [("a", 1.0), ("c", 1.0)]), index.size, None, 4)
    assert found.docs.tolist() == reference.docs.tolist()
    # "c" documents are shorter and score higher: the first four of them, in document order.
    assert found.docs.tolist() == [1, 4, 6, 9]
    assert found.total == 50


def test_pruning_skips_lists_yet_finds_the_same_best() -> None:
    # One rare strong term and one term in every document: after the rare one, the common one
    # can add less than the 3rd best score, so only the candidates are looked up.
    docs = [["common", "rare"] if i % 97 == 0 else ["common", "filler"] for i in range(5000)]
    index = BM25Index.build(docs, list(range(len(docs))), RANK_BM25_DEFAULTS)
    lists = _lists(index, [("rare", 1.0), ("common", 1.0)])
    found = topk.search(lists, index.size, None, 3, prune=True)
    assert found.docs.tolist() == [0, 97, 194]
    assert found.total == 5000
    assert found.scores.tolist() == topk.search_numpy(lists, index.size, None, 3).scores.tolist()


def test_a_mask_limits_the_best_and_the_total() -> None:
    docs = [["a"], ["a", "a"], ["b"], ["a"]]
    index = BM25Index.build(docs, [0, 1, 2, 3], RANK_BM25_DEFAULTS)
    mask = np.array([True, False, True, True])
    found = topk.search(_lists(index, [("a", 1.0)]), index.size, mask, 10)
    assert found.docs.tolist() == [0, 3]
    assert found.total == 2


def _segments(size: int, densities: list[float], rng: np.random.Generator) -> list[topk.Postings]:
    """Lists laid end to end in one pair of arrays, like an index's, with tied impacts."""
    parts = [np.flatnonzero(rng.random(size) < density).astype(np.int32) for density in densities]
    docs = np.concatenate(parts) if parts else np.zeros(0, np.int32)
    impacts = rng.choice([0.25, 0.5, 1.0, 2.0], size=len(docs)).astype(np.float32)
    lists, start = [], 0
    for part, weight in zip(parts, rng.choice([1.0, 0.3], size=len(parts)), strict=True):
        end = start + len(part)
        bound = weight * float(impacts[start:end].max()) if end > start else 0.0
        lists.append(topk.Postings(docs, impacts, start, end, float(weight), bound))
        start = end
    return lists


@pytest.mark.skipif(not topk.available(), reason="numba is not installed")
@settings(max_examples=25, deadline=None)
@given(
    st.integers(9_000, 60_000),
    st.lists(st.sampled_from([0.0001, 0.002, 0.05, 0.4]), min_size=1, max_size=5),
    st.integers(0, 3),
    st.sampled_from([1, 10, 50, 300]),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_large_corpora_and_several_extra_lists_match_the_reference(
    size: int, densities: list[float], extras: int, k: int, with_mask: bool, seed: int
) -> None:
    # Above 4,096 documents the k-th best is first bounded from a sample: the bound must never
    # lose a document, ties included; extra lists from separate arrays are laid end to end.
    rng = np.random.default_rng(seed)
    lists = _segments(size, densities, rng)
    for number in range(extras):
        lists += [_extra(size, seed + number)]
    mask = rng.random(size) < 0.5 if with_mask else None
    found = topk.search(lists, size, mask, k)
    full = topk.search_numpy(lists, size, mask, k)
    assert found.docs.tolist() == full.docs.tolist()
    assert found.scores.tolist() == full.scores.tolist()
    assert found.total == full.total
