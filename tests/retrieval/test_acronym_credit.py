"""Acronym credit: computed by top-k (in full, per candidate, or read from a prepared list), it
ranks exactly as the numpy reference that builds every credit list over all documents."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval import acronym_credit, compiled, dense_bits, topk
from retrieval.acronym_credit import credit_postings_numpy, credits, prepare
from retrieval.acronyms import AcronymTable, Alternative
from retrieval.autocomplete_build import build_autocomplete
from retrieval.corpus import Corpus, warm_up
from retrieval.index import BM25Index
from retrieval.paper_table import PaperTable
from tests.retrieval.oracle import RANK_BM25_DEFAULTS

WORDS = ["llm", "large", "language", "model", "rag", "retrieval", "x", "y"]
FORMS = st.lists(st.sampled_from([*WORDS, "unknown"]), min_size=1, max_size=3).map(tuple)


def _index(docs: list[list[str]]) -> BM25Index:
    return BM25Index.build(docs, list(range(len(docs))), RANK_BM25_DEFAULTS)


def _query_lists(index: BM25Index, terms: list[str]) -> list[topk.Postings]:
    numbers = [index.term_number(term) for term in dict.fromkeys(terms)]
    return [index.postings_list(number, 1.0) for number in numbers if number is not None]


def _same(found: topk.TopK, expected: topk.TopK) -> None:
    assert found.docs.tolist() == expected.docs.tolist()
    assert found.scores.tolist() == expected.scores.tolist()
    assert found.total == expected.total


@pytest.mark.skipif(not compiled.available(), reason="numba is not installed")
@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), min_size=1, max_size=60),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
    st.lists(st.tuples(FORMS, FORMS), min_size=1, max_size=3),
    st.sampled_from([0.3, 1.0]),
    st.integers(1, 30),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_credits_rank_as_the_reference_however_computed(
    docs: list[list[str]],
    query: list[str],
    forms: list[tuple[tuple[str, ...], tuple[str, ...]]],
    weight: float,
    k: int,
    with_mask: bool,
    with_bitmaps: bool,
    seed: int,
) -> None:
    # Repeated papers tie exactly; the written forms are query terms, as ranking makes them.
    docs = docs + docs[: len(docs) // 2]
    index = _index(docs)
    alternatives = [Alternative(written, other, "") for written, other in forms]
    terms = query + [term for alternative in alternatives for term in alternative.written]
    lists = _query_lists(index, terms)
    if not lists:
        return
    virtual = credits(index, alternatives, weight)
    built = [
        credit if (made := topk.build(credit)) is None else replace(credit, built=made)
        for credit in virtual
    ]
    mask = np.random.default_rng(seed).random(index.size) < 0.6 if with_mask else None
    dense = dense_bits.build(index.offsets, index.postings_docs, index.size)
    if with_bitmaps:
        dense = _all_bitmaps(index)
    expected = topk.search_numpy(lists, index.size, mask, k, virtual)
    for given_credits in (virtual, built):
        for prune in (True, False):
            found = topk.search(
                lists, index.size, mask, k, credits=given_credits, dense=dense, prune=prune
            )
            _same(found, expected)


def _all_bitmaps(index: BM25Index) -> dense_bits.DenseBits:
    """Bitmaps for every term, whatever its frequency, so the OR path is exercised."""
    saved = dense_bits.MIN_SHARE, dense_bits.MIN_DOCUMENTS
    try:
        dense_bits.MIN_SHARE, dense_bits.MIN_DOCUMENTS = 0.0, 0
        return dense_bits.build(index.offsets, index.postings_docs, index.size)
    finally:
        dense_bits.MIN_SHARE, dense_bits.MIN_DOCUMENTS = saved


@pytest.mark.skipif(not compiled.available(), reason="numba is not installed")
@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), min_size=1, max_size=30),
    st.lists(st.tuples(FORMS, FORMS), min_size=1, max_size=3),
    st.sampled_from([0.3, 1.0]),
)
def test_a_built_list_equals_the_reference(
    docs: list[list[str]], forms: list[tuple[tuple[str, ...], tuple[str, ...]]], weight: float
) -> None:
    index = _index(docs)
    alternatives = [Alternative(written, other, "") for written, other in forms]
    built = [topk.build(credit) for credit in credits(index, alternatives, weight)]
    expected = credit_postings_numpy(index, alternatives, weight)
    mine = [postings for postings in built if postings is not None]
    assert len(mine) == len(expected)
    for one, reference in zip(mine, expected, strict=True):
        assert one.docs.tolist() == reference.docs.tolist()
        assert one.impacts.tolist() == reference.impacts.tolist()
        assert one.bound == reference.bound


def test_credit_is_the_better_form_minus_the_written_one() -> None:
    docs = [["llm", "x"], ["large", "language", "model"], ["llm", "large"], ["y"], ["x"]]
    index = _index(docs)
    alternative = Alternative(("llm",), ("large", "language", "model"), "LLM → …")
    [found] = credit_postings_numpy(index, [alternative], 1.0)
    # Paper 1 holds only the long form: full credit. Paper 2 holds "llm" too, which scores
    # higher than its lone "large": zero credit, and it is matched by the "llm" list anyway,
    # so it is left out.
    assert found.docs.tolist() == [1]
    assert found.impacts[0] > 0
    assert credits(index, [Alternative(("llm",), ("absent",), "")], 1.0) == []


def test_a_paper_left_out_for_zero_credit_is_still_matched() -> None:
    docs = [["llm", "x"], ["large", "language", "model"], ["llm", "large"], ["y"], ["x"]]
    index = _index(docs)
    alternative = Alternative(("llm",), ("large", "language", "model"), "")
    lists = _query_lists(index, ["llm"])
    found = topk.search(lists, index.size, None, 5, credits=credits(index, [alternative], 1.0))
    # The dropped paper 2 is still matched (by "llm"); the total counts papers 0, 1 and 2.
    assert sorted(found.docs.tolist()) == [0, 1, 2]
    assert found.total == 3


def test_a_negative_idf_gives_no_credit_to_papers_without_the_other_form() -> None:
    # "llm" is in every paper: a negative IDF, so its score is below zero.
    index = _index([["llm"], ["llm", "large"]])
    assert index.impacts[0] < 0
    alternatives = [Alternative(("llm",), ("llm",), ""), Alternative(("llm",), ("large",), "")]
    first, second = credit_postings_numpy(index, alternatives, 0.3)
    assert first.docs.tolist() == [0, 1]
    # Paper 0 holds no "large": the second alternative does not list it at all.
    assert second.docs.tolist() == [1]
    lists = _query_lists(index, ["llm"])
    virtual = credits(index, alternatives, 0.3)
    _same(
        topk.search(lists, index.size, None, 2, credits=virtual),
        topk.search_numpy(lists, index.size, None, 2, virtual),
    )


def test_prepared_lists_are_read_for_long_forms_and_rank_the_same() -> None:
    docs = [["mixture", "of", "experts"], ["moe", "routing"], ["mixture", "experts", "moe"]] * 5
    index = _index(docs)
    table = AcronymTable.build([("MoE", "mixture of experts", 3)], _words)
    [long_form] = table.alternatives(["mixture", "of", "experts"])
    assert long_form.other == ("moe",)
    lists = _query_lists(index, ["mixture", "of", "experts"])
    before = credits(index, [long_form], 0.3)
    assert before[0].built is None
    prepare(index, table, 0.3)
    [after] = credits(index, [long_form], 0.3)
    assert after.built is not None
    [reference] = credit_postings_numpy(index, [long_form], 0.3)
    assert after.built.docs.tolist() == reference.docs.tolist()
    # Another weight is not what was prepared: computed as before.
    assert credits(index, [long_form], 0.5)[0].built is None
    _same(
        topk.search(lists, index.size, None, 4, credits=[after]),
        topk.search(lists, index.size, None, 4, credits=before),
    )


def test_preparing_stops_at_the_memory_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = [["retrieval", "augmented"], ["rag", "x"], ["large", "model"], ["llm", "y"]] * 4
    index = _index(docs)
    rows = [("RAG", "retrieval augmented", 2), ("LLM", "large model", 2)]
    table = AcronymTable.build(rows, _words)
    monkeypatch.setattr(acronym_credit, "MAX_PREPARED", 4)
    prepare(index, table, 0.3)
    prepared = [
        credit.built
        for alternative in table.alternatives(["retrieval", "augmented", "large", "model"])
        for credit in credits(index, [alternative], 0.3)
    ]
    # The first list (4 papers) fits; the second would pass the bound: it is computed instead.
    assert [None if built is None else built.end for built in prepared] == [4, None]


def _words(text: str) -> list[str]:
    return text.lower().split()


def test_the_snapshot_warm_up_prepares_the_lists() -> None:
    docs = [["mixture", "of", "experts"], ["moe", "routing"], ["x"]] * 3
    index = _index(docs)
    table = AcronymTable.build([("MoE", "mixture of experts", 3)], _words)
    papers = PaperTable.build([], [], [], [], [])
    snapshot = Corpus(index, {}, table, papers, build_autocomplete(papers), 1)
    [long_form] = table.alternatives(["mixture", "of", "experts"])
    warm_up(snapshot, 0.3)
    assert credits(index, [long_form], 0.3)[0].built is not None
