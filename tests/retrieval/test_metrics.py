"""Ranking metrics: hand-worked cases, and agreement with pytrec_eval (trec_eval) on random runs."""

from __future__ import annotations

import math

import pytest
import pytrec_eval
from hypothesis import given
from hypothesis import strategies as st

from retrieval.metrics import (
    BEIR_MEASURES,
    Measure,
    evaluate,
    mean_scores,
    ndcg_at,
    parse_measure,
    recall_at,
    reciprocal_rank_at,
)

DOCS = [f"d{i}" for i in range(25)]


def test_ndcg_uses_linear_gain_and_log2_discount() -> None:
    relevance = {"a": 2, "b": 1, "z": 1}
    dcg = 1 / math.log2(2) + 2 / math.log2(4)  # b at rank 1, a at rank 3
    ideal = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(["b", "x", "a"], relevance, 10) == pytest.approx(dcg / ideal)


def test_ndcg_ideal_is_cut_at_k() -> None:
    relevance = {"a": 1, "b": 1, "c": 1}
    assert ndcg_at(["a"], relevance, 1) == 1.0


def test_recall_counts_relevant_documents_in_the_first_k() -> None:
    relevance = {"a": 1, "b": 1, "c": 0}
    assert recall_at(["c", "a", "x", "b"], relevance, 3) == 0.5
    assert recall_at(["c", "a", "x", "b"], relevance, 4) == 1.0


def test_reciprocal_rank_is_zero_past_the_cutoff() -> None:
    relevance = {"a": 1}
    assert reciprocal_rank_at(["x", "a"], relevance, 10) == 0.5
    assert reciprocal_rank_at(["x", "a"], relevance, 1) == 0.0


def test_a_repeated_document_counts_once() -> None:
    relevance = {"a": 1, "b": 1}
    assert recall_at(["a", "a", "b"], relevance, 2) == 1.0
    assert reciprocal_rank_at(["x", "x", "a"], relevance, 2) == 0.5


def test_no_relevant_document_scores_zero_and_is_left_out_of_means() -> None:
    assert ndcg_at(["a"], {"a": 0}, 10) == 0.0
    assert recall_at(["a"], {}, 10) == 0.0
    scored = evaluate({"q1": ["a"], "q2": ["a"]}, {"q1": {"a": 1}, "q2": {"a": 0}})
    assert list(scored) == ["q1"]


def test_a_query_without_a_ranking_scores_zero() -> None:
    scored = evaluate({}, {"q1": {"a": 1}})
    assert scored == {"q1": {"nDCG@10": 0.0, "Recall@100": 0.0, "MRR@10": 0.0}}
    assert mean_scores(scored, BEIR_MEASURES)["nDCG@10"] == 0.0


def test_parse_measure() -> None:
    assert parse_measure("ndcg@10") == Measure("nDCG", 10)
    assert parse_measure("MRR@5").name == "MRR@5"
    for bad in ("P@10", "nDCG", "nDCG@0", "nDCG@x"):
        with pytest.raises(ValueError, match="unknown measure"):
            parse_measure(bad)


judgements = st.dictionaries(
    st.sampled_from(DOCS), st.integers(0, 3), min_size=1, max_size=10
).filter(lambda relevance: any(grade > 0 for grade in relevance.values()))
rankings = st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True)
query_ids = st.sampled_from([f"q{i}" for i in range(6)])


@given(
    st.dictionaries(query_ids, judgements, min_size=1),
    st.dictionaries(query_ids, rankings, min_size=1),
    st.sampled_from([1, 3, 5, 10, 20]),
)
def test_agrees_with_trec_eval(
    qrels: dict[str, dict[str, int]], run: dict[str, list[str]], k: int
) -> None:
    # Distinct descending scores, so trec_eval's order is exactly the list order.
    scored_run = {
        query: {doc: float(len(ranking) - rank) for rank, doc in enumerate(ranking)}
        for query, ranking in run.items()
    }
    cut_run = {
        query: {doc: float(len(ranking) - rank) for rank, doc in enumerate(ranking[:k])}
        for query, ranking in run.items()
    }
    reference = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{k}", f"recall.{k}"}).evaluate(
        scored_run
    )
    reference_rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut_run)
    measures = [Measure("nDCG", k), Measure("Recall", k), Measure("MRR", k)]
    ours = evaluate(run, qrels, measures)
    for query in reference:  # trec_eval scores the queries that are in both run and qrels
        assert ours[query][f"nDCG@{k}"] == pytest.approx(reference[query][f"ndcg_cut_{k}"])
        assert ours[query][f"Recall@{k}"] == pytest.approx(reference[query][f"recall_{k}"])
        assert ours[query][f"MRR@{k}"] == pytest.approx(reference_rr[query]["recip_rank"])
    assert set(reference) == set(qrels) & set(run)
