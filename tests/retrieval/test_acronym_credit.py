"""Acronym credit: the compiled list equals the numpy reference, and snapshots cache it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval import acronym_credit, compiled, topk
from retrieval.acronym_credit import credit_postings, credit_postings_numpy
from retrieval.acronyms import Alternative
from retrieval.index import BM25Index
from tests.retrieval.oracle import RANK_BM25_DEFAULTS

WORDS = ["llm", "large", "language", "model", "rag", "retrieval", "x", "y"]
FORMS = st.lists(st.sampled_from([*WORDS, "unknown"]), min_size=1, max_size=3).map(tuple)


def _index(docs: list[list[str]]) -> BM25Index:
    return BM25Index.build(docs, list(range(len(docs))), RANK_BM25_DEFAULTS)


@pytest.mark.skipif(not compiled.available(), reason="numba is not installed")
@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), min_size=1, max_size=30),
    st.lists(st.tuples(FORMS, FORMS), min_size=1, max_size=3),
    st.sampled_from([0.3, 1.0]),
)
def test_compiled_credit_equals_the_reference(
    docs: list[list[str]], forms: list[tuple[tuple[str, ...], tuple[str, ...]]], weight: float
) -> None:
    index = _index(docs)
    alternatives = [Alternative(written, other, "note") for written, other in forms]
    got = credit_postings(index, alternatives, weight)
    expected = credit_postings_numpy(index, alternatives, weight)
    assert len(got) == len(expected)
    for mine, reference in zip(got, expected, strict=True):
        assert mine.docs.tolist() == reference.docs.tolist()
        assert mine.impacts.tolist() == reference.impacts.tolist()
        assert mine.bound == reference.bound


def test_credit_is_the_better_form_minus_the_written_one() -> None:
    docs = [["llm", "x"], ["large", "language", "model"], ["llm", "large"], ["y"], ["x"]]
    index = _index(docs)
    alternative = Alternative(("llm",), ("large", "language", "model"), "LLM → …")
    [found] = credit_postings(index, [alternative], 1.0)
    # Paper 1 holds only the long form: full credit. Paper 2 holds "llm" too, which scores
    # higher than its lone "large": zero credit, and it is matched by the "llm" list anyway,
    # so it is left out.
    assert found.docs.tolist() == [1]
    assert found.impacts[0] > 0
    assert credit_postings(index, [Alternative(("llm",), ("absent",), "")], 1.0) == []


def test_a_paper_left_out_for_zero_credit_is_still_matched() -> None:
    docs = [["llm", "x"], ["large", "language", "model"], ["llm", "large"], ["y"], ["x"]]
    index = _index(docs)
    alternative = Alternative(("llm",), ("large", "language", "model"), "")
    lists = [index.postings_list(index.term_ids["llm"], 1.0)]
    [credit] = credit_postings(index, [alternative], 1.0)
    found = topk.search([*lists, credit], index.size, None, 5)
    # The dropped paper 2 is still matched (by "llm"); the total counts papers 0, 1 and 2.
    assert sorted(found.docs.tolist()) == [0, 1, 2]
    assert found.total == 3


def test_a_snapshot_reuses_its_lists_within_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    index = _index([["llm"], ["large", "language", "model"], ["rag"], ["retrieval"]])
    first = Alternative(("llm",), ("large", "language", "model"), "")
    second = Alternative(("rag",), ("retrieval",), "")
    monkeypatch.setattr(acronym_credit, "CACHE_POSTINGS", 1)
    [one] = credit_postings(index, [first], 0.3)
    assert credit_postings(index, [first], 0.3)[0] is one  # cached: the same object
    credit_postings(index, [second], 0.3)  # evicts: one more document than the bound allows
    assert credit_postings(index, [first], 0.3)[0] is not one
    other_snapshot = _index([["llm"], ["large", "language", "model"], ["rag"], ["retrieval"]])
    assert credit_postings(other_snapshot, [first], 0.3)[0] is not one


def test_a_negative_idf_gives_no_credit_to_papers_without_the_other_form() -> None:
    # "llm" is in every paper: a negative IDF, so its score is below zero.
    index = _index([["llm"], ["llm", "large"]])
    assert index.impacts[0] < 0
    alternatives = [Alternative(("llm",), ("llm",), ""), Alternative(("llm",), ("large",), "")]
    for credit_of in (credit_postings, credit_postings_numpy):
        first, second = credit_of(index, alternatives, 0.3)
        assert first.docs.tolist() == [0, 1]
        # Paper 0 holds no "large": the second alternative does not list it at all.
        assert second.docs.tolist() == [1]
