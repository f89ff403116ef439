"""Term bitmaps: the frequent terms' documents exactly, within the memory bound; top-k counts
the same matches with them as without."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval import compiled, dense_bits, topk
from retrieval.index import BM25Index
from tests.retrieval.oracle import RANK_BM25_DEFAULTS


def _index(size: int, seed: int) -> BM25Index:
    rng = np.random.default_rng(seed)
    # "common" in about half the papers, "rare" in a few, "w<i>" in between.
    docs = []
    for _ in range(size):
        words = ["common"] if rng.random() < 0.5 else []
        words += [f"w{i}" for i in range(8) if rng.random() < 0.02 * (i + 1)]
        words += ["rare"] if rng.random() < 0.001 else []
        docs.append(words or ["filler"])
    return BM25Index.build(docs, list(range(size)), RANK_BM25_DEFAULTS)


def _documents(bits: dense_bits.DenseBits, row: int, size: int) -> list[int]:
    held = np.unpackbits(bits.words[row].view(np.uint8), bitorder="little")[:size]
    return np.flatnonzero(held).tolist()


def test_frequent_terms_get_their_documents_as_bits() -> None:
    index = _index(5000, 1)
    bits = dense_bits.build(index.offsets, index.postings_docs, index.size)
    frequencies = np.diff(index.offsets)
    for term, row in enumerate(bits.row_of.tolist()):
        frequent = frequencies[term] >= dense_bits.MIN_SHARE * index.size
        assert (row >= 0) == frequent
        if row >= 0:
            assert _documents(bits, row, index.size) == index.postings(index.terms[term]).tolist()
    assert bits.row_of[index.term_ids["common"]] == 0  # the most frequent first


def test_small_corpora_and_the_memory_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    small = _index(100, 2)
    assert len(dense_bits.build(small.offsets, small.postings_docs, small.size).words) == 0
    index = _index(5000, 3)
    monkeypatch.setattr(dense_bits, "MAX_BYTES", 8 * dense_bits.words_for(index.size))
    bits = dense_bits.build(index.offsets, index.postings_docs, index.size)
    assert len(bits.words) == 1
    assert bits.row_of.tolist().count(0) == 1


def test_a_snapshot_builds_its_bitmaps_once_and_questions_do_not_wait() -> None:
    index = _index(5000, 4)
    assert dense_bits.built(index) is None  # not built yet: a question goes without
    bits = dense_bits.dense_bits(index)
    assert dense_bits.dense_bits(index) is bits
    assert dense_bits.built(index) is bits


@pytest.mark.skipif(not compiled.available(), reason="numba is not installed")
@settings(max_examples=40, deadline=None)
@given(
    st.integers(4096, 12_000),
    st.lists(st.sampled_from(["common", "rare", "w0", "w3", "w7", "filler"]), min_size=1),
    st.sampled_from([1, 10, 50]),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_top_k_with_bitmaps_equals_the_reference(
    size: int, terms: list[str], k: int, with_mask: bool, seed: int
) -> None:
    index = _index(size, seed)
    numbers = [index.term_number(term) for term in dict.fromkeys(terms)]
    lists = [index.postings_list(n, 1.0) for n in numbers if n is not None]
    if not lists:
        return
    mask = np.random.default_rng(seed).random(size) < 0.5 if with_mask else None
    bits = dense_bits.build(index.offsets, index.postings_docs, index.size)
    expected = topk.search_numpy(lists, size, mask, k)
    for prune in (True, False):
        found = topk.search(lists, size, mask, k, dense=bits, prune=prune)
        assert found.docs.tolist() == expected.docs.tolist()
        assert found.scores.tolist() == expected.scores.tolist()
        assert found.total == expected.total
