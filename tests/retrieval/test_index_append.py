"""An index extended by new documents equals a fresh build over all of them, array for array."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval.snapshot.matrix import BM25Index, BM25Params
from retrieval.snapshot.scoring import top_k
from tests.retrieval.oracle import RANK_BM25_DEFAULTS

WORDS = [f"w{i}" for i in range(25)]
documents = st.lists(st.lists(st.sampled_from(WORDS), max_size=12), max_size=40)
params = st.builds(
    BM25Params, k1=st.floats(0.1, 3.0), b=st.floats(0.0, 1.0), epsilon=st.floats(0.0, 1.0)
)
cut_points = st.lists(st.integers(0, 40), max_size=4)
queries = st.lists(st.sampled_from(WORDS), max_size=6)
# Every array a build produces, the derived ones (IDF, norms, impacts) included.
ARRAYS = ["offsets", "postings_docs", "postings_tf", "doc_len", "keys", "forward"]
ARRAYS += ["idf", "norm", "impacts"]


def assert_same_index(got: BM25Index, expected: BM25Index) -> None:
    assert got.terms == expected.terms
    assert got.size == expected.size
    assert got.avgdl == expected.avgdl
    for name in ARRAYS:
        mine, theirs = getattr(got, name), getattr(expected, name)
        assert mine.dtype == theirs.dtype, name
        assert np.array_equal(mine, theirs), name


@given(documents, cut_points, params, queries)
def test_appending_in_any_steps_equals_a_fresh_build(
    docs: list[list[str]], cuts: list[int], p: BM25Params, query: list[str]
) -> None:
    cuts = sorted({min(cut, len(docs)) for cut in cuts})
    keys = [10 + 3 * n for n in range(len(docs))]  # store keys: ascending, not 0..n-1
    first = cuts[0] if cuts else len(docs)
    index = BM25Index.build(docs[:first], keys[:first], p)
    for start, end in zip([first, *cuts[1:]], [*cuts[1:], len(docs)], strict=True):
        index = index.extend(docs[start:end], keys[start:end])
    fresh = BM25Index.build(docs, keys, p)
    assert_same_index(index, fresh)
    # Same scores and the same order, not just the same arrays.
    weighted = [(term, 1.0) for term in query]
    assert np.array_equal(index.score(weighted).values, fresh.score(weighted).values)
    columns = [(number, 1.0) for term in query if (number := fresh.term_number(term)) is not None]
    expected_top = top_k(fresh, columns, 5)
    found = top_k(index, columns, 5)
    assert found.docs.tolist() == expected_top.docs.tolist()
    assert found.total == expected_top.total


def test_appended_documents_get_the_next_numbers_and_new_terms_come_last() -> None:
    base = BM25Index.build([["b", "a"], ["a"]], [1, 2], RANK_BM25_DEFAULTS)
    index = base.extend((doc for doc in [["c", "a"], [], ["b", "c", "c"]]), [5, 6, 9])
    assert index.terms == ["b", "a", "c"]
    assert index.keys.tolist() == [1, 2, 5, 6, 9]
    assert index.postings("a").tolist() == [0, 1, 2]
    assert index.postings("c").tolist() == [2, 4]
    c_start = index.offsets[2]
    assert index.postings_tf[c_start : c_start + 2].tolist() == [1, 2]
    assert index.document_terms(3).tolist() == []
    assert index.document_terms(4).tolist() == [0, 2, 2]
    # The base is left as it was: a snapshot in use is never edited.
    assert base.size == 2 and base.keys.tolist() == [1, 2]


def test_appending_nothing_keeps_every_array() -> None:
    base = BM25Index.build([["x", "y"], ["y"]], [1, 2], RANK_BM25_DEFAULTS)
    assert_same_index(base.extend([], []), base)


def test_documents_and_keys_must_pair_up() -> None:
    base = BM25Index.build([["x"]], [1], RANK_BM25_DEFAULTS)
    with pytest.raises(ValueError, match="2 documents but 1 keys"):
        base.extend([["y"], ["z"]], [2])
