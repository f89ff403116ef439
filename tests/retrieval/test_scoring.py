"""Eager top-k over the impact matrix against a brute-force sort of rank-bm25's own scores."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from retrieval.snapshot import scoring
from retrieval.snapshot.matrix import BM25Index
from retrieval.snapshot.scoring import Credit, top_k
from tests.retrieval.oracle import RANK_BM25_DEFAULTS

WORDS = [f"w{i}" for i in range(12)]
documents = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=15), min_size=1, max_size=50
)
words = st.lists(st.sampled_from([*WORDS, "absent"]), min_size=1, max_size=6)


def brute_force(scores: np.ndarray, matched: np.ndarray, k: int) -> list[int]:
    """Every matched document sorted by score descending, then document ascending."""
    docs = np.flatnonzero(matched)
    return docs[np.lexsort((docs, -scores[docs]))][:k].tolist()


def _columns(index: BM25Index, terms: list[str], weight: float) -> list[tuple[int, float]]:
    return [(n, weight) for term in terms if (n := index.term_number(term)) is not None]


@given(documents, words, st.integers(1, 20), st.integers(0, 2**32 - 1))
def test_top_k_equals_a_full_sort_of_rank_bm25_scores(
    docs: list[list[str]], query: list[str], k: int, seed: int
) -> None:
    index = BM25Index.build(docs, list(range(len(docs))), RANK_BM25_DEFAULTS)
    mask = np.random.default_rng(seed).random(len(docs)) < 0.8
    found = top_k(index, _columns(index, query, 1.0), k, mask)
    reference = BM25Okapi(docs).get_scores(query)
    matched = np.zeros(len(docs), dtype=np.bool_)
    for term in query:
        matched[index.postings(term)] = True
    matched &= mask
    assert found.total == int(matched.sum())
    # Without total_all the pass marks documents by their score where every impact is positive.
    plain = top_k(index, _columns(index, query, 1.0), k, mask, count_all=False)
    assert plain.total == found.total
    assert plain.docs.tolist() == found.docs.tolist()
    assert plain.total_all is None
    known = {term for term in query if term in index}
    every = mask & _holding_all(index, sorted(known), len(docs)) if known else mask & False
    assert found.total_all == int(every.sum())
    # Within float32 rounding of the stored impacts, as exact mode promises (test_index.py).
    tolerance = 1e-6 * max(1.0, float(np.abs(reference).max()))
    assert np.allclose(found.scores, reference[found.docs], rtol=1e-6, atol=tolerance)
    # Same documents as the full sort, up to float32 ties in rank-bm25's own scores.
    expected = brute_force(reference, matched, k)
    assert len(found.docs) == len(expected)
    assert np.allclose(
        np.sort(reference[found.docs]), np.sort(reference[expected]), atol=2 * tolerance
    )


@given(documents, words, words, st.floats(0.1, 1.0), st.integers(1, 20))
@example(  # a tie up to rounding, which once failed an exact comparison of documents
    [["w0", "w0", "w1", "w2", "w3"], ["w0", "w0", "w0", "w1", "w2"]],
    ["w0"],
    ["w1"],
    0.8254790195065661,
    1,
)
def test_a_credit_scores_the_better_of_the_written_and_the_other_form(
    docs: list[list[str]], written: list[str], other: list[str], weight: float, k: int
) -> None:
    index = BM25Index.build(docs, list(range(len(docs))), RANK_BM25_DEFAULTS)
    # As in a question: the written form is query words the corpus holds.
    written = [term for term in dict.fromkeys(written) if term in index]
    assume(written)
    other = list(dict.fromkeys(other))
    known_other = tuple(number for number, _ in _columns(index, other, weight))
    known_written = tuple(number for number, _ in _columns(index, written, 1.0))
    credit = Credit(known_other, known_written, weight, complete=len(known_other) == len(other))
    found = top_k(index, _columns(index, written, 1.0), k, credits=[credit])
    plain = index.score([(term, 1.0) for term in written])
    alternative = index.score([(term, weight) for term in other])
    # Only a paper holding every word of the other form holds it: some of its words are not it.
    holds_other = _holding_all(index, other, len(docs))
    # Where the other form occurs: the better of the two forms; elsewhere the written form.
    expected = np.where(holds_other, np.maximum(plain.values, alternative.values), plain.values)
    matched = plain.matched | holds_other
    assert found.total == int(matched.sum())
    assert np.allclose(found.scores, expected[found.docs], rtol=1e-9, atol=1e-12)
    # The best k, up to ties: two papers can score the same up to rounding (negative idf),
    # and the kernel and the full sort may break such a tie differently.
    best = brute_force(expected, matched, k)
    assert len(found.docs) == len(best)
    assert np.allclose(
        np.sort(expected[found.docs]), np.sort(expected[best]), rtol=1e-9, atol=1e-12
    )
    # Papers holding every written word, or every word of the other form.
    every_written = _holding_all(index, written, len(docs))
    every_other = _holding_all(index, other, len(docs))
    assert found.total_all == int((every_written | every_other).sum())


def test_some_words_of_the_other_form_earn_no_credit() -> None:
    # "rl" written; the other form is "reinforc learn". Paper 2 says "learn" three times and
    # nothing else of the question: it is not about RL, so it is neither scored nor counted.
    docs = [
        ["reinforc", "learn", "agent"],
        ["rl", "agent", "plan", "horizon", "reward", "state", "action", "polici"],
        ["learn", "learn", "learn"],
        ["imag", "segment"],
    ]
    index = BM25Index.build(docs, list(range(len(docs))), RANK_BM25_DEFAULTS)
    number = index.term_ids
    credit = Credit((number["reinforc"], number["learn"]), (number["rl"],), 1.0)
    found = top_k(index, [(number["rl"], 1.0)], 10, credits=[credit])
    assert found.docs.tolist() == [0, 1]
    assert (found.total, found.total_all) == (2, 2)


def _holding_all(index: BM25Index, terms: list[str], size: int) -> np.ndarray:
    held = np.ones(size, dtype=np.bool_)
    for term in terms:
        holds = np.zeros(size, dtype=np.bool_)
        holds[index.postings(term)] = True
        held &= holds
    return held


def test_repeated_terms_count_again_as_in_rank_bm25() -> None:
    docs = [["a", "b"], ["a", "a", "c"], ["b", "c", "c"], ["d"]]
    index = BM25Index.build(docs, [0, 1, 2, 3], RANK_BM25_DEFAULTS)
    query = ["a", "a", "c"]
    found = top_k(index, _columns(index, query, 1.0), 10)
    reference = BM25Okapi(docs).get_scores(query)
    assert found.total == 3
    assert np.allclose(found.scores, reference[found.docs], rtol=1e-6)
    # The scratch arrays are clean for the next question.
    again = top_k(index, _columns(index, ["d"], 1.0), 10)
    assert again.docs.tolist() == [3]
    assert again.total == 1


def test_ties_go_to_the_earlier_document_whatever_the_order_of_the_columns() -> None:
    # Documents 1 and 5 score the same; the query's first column reaches 5 first.
    docs = [["p", "q"], ["y", "q"], ["p", "q"], ["p", "q"], ["p", "q"], ["x", "q"]]
    index = BM25Index.build(docs, list(range(6)), RANK_BM25_DEFAULTS)
    found = top_k(index, _columns(index, ["x", "y"], 1.0), 1)
    assert found.docs.tolist() == [1]
    assert found.total == 2
    both = top_k(index, _columns(index, ["x", "y"], 1.0), 5)
    assert both.docs.tolist() == [1, 5]
    assert both.scores[0] == both.scores[1]


def test_without_numba_the_same_loops_run_as_python(monkeypatch: pytest.MonkeyPatch) -> None:
    # compiled.kernel returns the function itself when numba is missing: the same answers.
    docs = [["a", "b", "c"], ["b", "c"], ["c", "d", "a"], ["d"], ["a", "a", "e"], ["e", "b"]]
    index = BM25Index.build(docs, list(range(len(docs))), RANK_BM25_DEFAULTS)
    columns = _columns(index, ["a", "b"], 1.0)
    credit = Credit(tuple(n for n, _ in _columns(index, ["d", "e"], 1.0)), (columns[0][0],), 0.7)
    mask = np.array([True, True, True, False, True, True])
    compiled = top_k(index, columns, 3, mask, [credit])
    for name in ("_score", "_seek", "_credit", "_worse", "_sift_down", "_select"):
        function = getattr(scoring, name)
        monkeypatch.setattr(scoring, name, getattr(function, "py_func", function))
    python = top_k(index, columns, 3, mask, [credit])
    assert python.docs.tolist() == compiled.docs.tolist()
    assert np.allclose(python.scores, compiled.scores)
    assert (python.total, python.total_all) == (compiled.total, compiled.total_all)


def test_a_question_interrupted_half_way_leaves_the_next_one_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    docs = [["a", "b"], ["b", "c"], ["c", "a"], ["d"]]
    index = BM25Index.build(docs, [0, 1, 2, 3], RANK_BM25_DEFAULTS)
    expected = top_k(index, _columns(index, ["a", "c"], 1.0), 4)

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    credit = Credit((index.term_ids["d"],), (index.term_ids["a"],), 0.5)
    with monkeypatch.context() as patch:
        patch.setattr(scoring, "_credit", interrupted)
        with pytest.raises(KeyboardInterrupt):
            top_k(index, _columns(index, ["a", "b"], 1.0), 4, credits=[credit])
    again = top_k(index, _columns(index, ["a", "c"], 1.0), 4)
    assert again.docs.tolist() == expected.docs.tolist()
    assert again.scores.tolist() == expected.scores.tolist()
    assert (again.total, again.total_all) == (expected.total, expected.total_all)
