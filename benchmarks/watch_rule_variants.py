"""Watch matching: the rule variants tried against passing mentions, on the CALIBRATION lists only.

Same corpora, arrivals and ground truth as benchmarks/watch_threshold.py (whose helpers this
imports); the held-out list is never read here. For every new paper that holds all main words
of a calibration watch, it records the paper's rank in the corpus, its normalised BM25 score
and where each word occurs, then prints micro precision and recall (small and large corpus)
for each variant. Every variant keeps the issue 23 guarantee: a paper ranking first always
fires. docs/watches.md logs the printed table and which variant was kept.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/watch_rule_variants.py \
        ../shared/data/conference_abstracts --seeds seeds
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks import watch_threshold as bench
from config.settings import Settings
from retrieval.engine import Engine
from retrieval.query import parse_query
from retrieval.watches import matching as watch_matching
from retrieval.watches import model as watch_model


@dataclass(frozen=True)
class Seen:
    """One new paper holding every main word of one watch."""

    rank: int | None  # in the corpus's top K, 1-based
    score: float  # normalised BM25
    where: list[list[int]]  # per main word, its positions among the paper's index terms


Arrival = dict[str, tuple[dict[int, Seen], set[int]]]  # query -> (papers seen, relevant)
Rule = Callable[[Seen], bool]


async def arrive(engine: Engine, txt: Path, papers: list[tuple[str, str]], top_k: int) -> Arrival:
    new_docs, number = await bench.ingest_new(engine, txt)
    corpus, options = engine.corpus, engine.options
    kept = watch_matching.about_words
    watch_matching.about_words = lambda *_: True  # every paper holding the words, to judge here
    try:
        found: Arrival = {}
        for query, pattern in bench.CALIBRATION:
            holding = watch_matching.matching_docs(
                corpus, options, query, new_docs, top_k=top_k, min_score=0.0, max_chars=300
            )
            ranked = [doc for doc, _ in watch_matching.scored_top(corpus, options, query, 10, 300)]
            words = watch_matching.main_words(options, parse_query(query).text)
            forms = watch_matching._word_forms(corpus, words)
            seen = {}
            for doc, score in holding:
                terms = corpus.index.document_terms(doc)
                where = [np.flatnonzero(np.isin(terms, list(f))).tolist() for f in forms]
                rank = ranked.index(doc) + 1 if doc in ranked else None
                seen[number[doc]] = Seen(rank, score, where)
            relevant = bench.about(pattern, papers, number)
            found[query] = (seen, relevant)
        return found
    finally:
        watch_matching.about_words = kept


async def collect(data: Path, seeds: Path, top_k: int) -> dict[str, Arrival]:
    small, large = await bench.calibration_corpora(
        data, seeds, lambda engine, txt, papers: arrive(engine, txt, papers, top_k)
    )
    return {"small": small, "large": large}


def variant(threshold: float, extra: Callable[[Seen], bool]) -> Rule:
    """Top K or the score path, and (unless the paper ranks first) `extra`."""

    def rule(seen: Seen) -> bool:
        if seen.rank is None and seen.score < threshold:
            return False
        return seen.rank == 1 or extra(seen)

    return rule


def each_twice(seen: Seen) -> bool:
    return all(len(found) >= 2 for found in seen.where)


def in_lead(seen: Seen, lead: int = 30) -> bool:
    return all(found and found[0] < lead for found in seen.where)


def near(gap: int) -> Callable[[Seen], bool]:
    """All words within (number of words + gap) consecutive index terms, in any order."""
    return lambda seen: len(seen.where) < 2 or watch_model.span(seen.where) <= len(seen.where) + gap


VARIANTS: dict[str, Callable[[float], Rule]] = {
    "previous rule (all words, top K or score)": lambda t: variant(t, lambda _: True),
    "(a) words near: gap 0": lambda t: variant(t, near(0)),
    "(a) words near: gap 2": lambda t: variant(t, near(2)),
    "(a) words near: gap 5": lambda t: variant(t, near(5)),
    "(b) each word twice": lambda t: variant(t, each_twice),
    "(b) all words in the first 30 terms": lambda t: variant(t, in_lead),
    "(b) each twice, or all in the first 30 terms": lambda t: variant(
        t, lambda s: each_twice(s) or in_lead(s)
    ),
    "(a+b) gap 0 and each twice": lambda t: variant(t, lambda s: near(0)(s) and each_twice(s)),
    "(a+b) gap 2 and (twice or first 30)": lambda t: variant(
        t, lambda s: near(2)(s) and (each_twice(s) or in_lead(s))
    ),
}


def measure(arrival: Arrival, rule: Rule) -> str:
    fired = hits = relevant = 0
    for seen, wanted in arrival.values():
        kept = {i for i, one in seen.items() if rule(one)}
        fired, hits, relevant = fired + len(kept), hits + len(kept & wanted), relevant + len(wanted)
    precision, recall = (hits / fired if fired else 1.0), hits / relevant
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return f"{hits:4d}/{fired:4d}/{relevant:4d} P {precision:.3f} R {recall:.3f} F1 {f1:.3f}"


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="conference_abstracts folder")
    parser.add_argument("--seeds", type=Path, default=Path("seeds"), help="the seeds folder")
    parser.add_argument("--top-k", type=int, default=Settings.model_fields["watch_top_k"].default)
    args = parser.parse_args()
    corpora = await collect(args.data, args.seeds, args.top_k)
    print("calibration only; cells: relevant fired / fired / relevant, precision, recall, F1")
    for threshold in (0.35, 0.5, 0.7):
        print(f"threshold {threshold:.2f}{'':40}small{'':38}large")
        for name, make in VARIANTS.items():
            rule = make(threshold)
            cells = "   ".join(measure(corpora[c], rule) for c in ("small", "large"))
            print(f"  {name:46} {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
