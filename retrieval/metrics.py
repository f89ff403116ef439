"""Ranking metrics with trec_eval's conventions: nDCG@k, Recall@k and MRR@k (pure functions).

The conventions are those of trec_eval (and so of pytrec_eval, ir-measures and BEIR), and the
tests check these functions against pytrec_eval on random runs:

- A document is relevant when its judged grade is >= 1; unjudged documents count as grade 0.
- nDCG@k uses linear gain (the grade itself) and discount log2(rank + 1) (trec_eval's
  `ndcg_cut`); the ideal ranking orders every judged document by grade.
- Recall@k is the share of relevant documents found in the first k.
- MRR@k is 1 / rank of the first relevant document within the first k, else 0 (trec_eval's
  `recip_rank` over a run cut at k).

A ranking is a sequence of document ids, best first; a repeated id counts only where it first
appears. A query with no relevant document has no defined score: `evaluate` leaves it out,
while the per-query functions return 0.0 for it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

Relevance = Mapping[str, int]  # document id -> judged grade
Qrels = Mapping[str, Relevance]  # query id -> judgements
Run = Mapping[str, Sequence[str]]  # query id -> ranked document ids, best first


def _unique(ranking: Sequence[str], k: int) -> list[str]:
    return list(dict.fromkeys(ranking))[:k]


def ndcg_at(ranking: Sequence[str], relevance: Relevance, k: int) -> float:
    """Normalized discounted cumulative gain of the first k documents (linear gain)."""
    ideal_grades = sorted((grade for grade in relevance.values() if grade > 0), reverse=True)
    ideal = sum(grade / math.log2(rank + 2) for rank, grade in enumerate(ideal_grades[:k]))
    if ideal == 0:
        return 0.0
    gained = sum(
        max(relevance.get(doc, 0), 0) / math.log2(rank + 2)
        for rank, doc in enumerate(_unique(ranking, k))
    )
    return gained / ideal


def recall_at(ranking: Sequence[str], relevance: Relevance, k: int) -> float:
    """Share of the relevant documents that appear among the first k."""
    relevant = {doc for doc, grade in relevance.items() if grade > 0}
    if not relevant:
        return 0.0
    return sum(1 for doc in _unique(ranking, k) if doc in relevant) / len(relevant)


def reciprocal_rank_at(ranking: Sequence[str], relevance: Relevance, k: int) -> float:
    """1 / rank of the first relevant document among the first k; 0.0 if there is none."""
    for rank, doc in enumerate(_unique(ranking, k), start=1):
        if relevance.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


@dataclass(frozen=True, slots=True)
class Measure:
    """A metric at a cutoff, e.g. Measure("nDCG", 10) named "nDCG@10"."""

    metric: str
    k: int

    @property
    def name(self) -> str:
        return f"{self.metric}@{self.k}"

    def __call__(self, ranking: Sequence[str], relevance: Relevance) -> float:
        return _METRICS[self.metric](ranking, relevance, self.k)


_METRICS: dict[str, Callable[[Sequence[str], Relevance, int], float]] = {
    "nDCG": ndcg_at,
    "Recall": recall_at,
    "MRR": reciprocal_rank_at,
}

BEIR_MEASURES = (Measure("nDCG", 10), Measure("Recall", 100), Measure("MRR", 10))
KNOWN_ITEM_MEASURES = (Measure("MRR", 10), Measure("Recall", 10), Measure("Recall", 100))


def parse_measure(text: str) -> Measure:
    """ "nDCG@10" -> Measure("nDCG", 10); raises ValueError naming the accepted forms."""
    metric, _, cutoff = text.partition("@")
    known = {name.lower(): name for name in _METRICS}
    if metric.lower() not in known or not cutoff.isdigit() or int(cutoff) < 1:
        raise ValueError(f"unknown measure {text!r}; use nDCG@k, Recall@k or MRR@k with k >= 1")
    return Measure(known[metric.lower()], int(cutoff))


def evaluate(
    run: Run, qrels: Qrels, measures: Sequence[Measure] = BEIR_MEASURES
) -> dict[str, dict[str, float]]:
    """Per-query scores: {query id: {measure name: value}}.

    Every query of `qrels` with at least one relevant document is scored; a query missing from
    `run` counts as an empty ranking (all zeros), so a system cannot gain by not answering.
    """
    scores: dict[str, dict[str, float]] = {}
    for query_id, relevance in qrels.items():
        if not any(grade > 0 for grade in relevance.values()):
            continue
        ranking = run.get(query_id, ())
        scores[query_id] = {m.name: m(ranking, relevance) for m in measures}
    return scores


def mean_scores(
    per_query: Mapping[str, Mapping[str, float]], measures: Sequence[Measure]
) -> dict[str, float]:
    """The mean of each measure over the scored queries (0.0 when there are none)."""
    count = len(per_query)
    return {
        m.name: (sum(scores[m.name] for scores in per_query.values()) / count if count else 0.0)
        for m in measures
    }
