"""Fit the watch model's weights (`retrieval/watches/model.json`) on the CALIBRATION watch list.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/fit_watch_model.py \
        ../shared/data/conference_abstracts --seeds seeds [--cache /tmp/watch_pairs.npz]

Same corpora, arrivals and ground truth as benchmarks/watch_threshold.py (whose helpers this
imports); the held-out list is never read. Every (calibration watch, new paper holding a main
word) pair of both corpora (small: seeds + a NeurIPS 2023 sample; large: ICLR 2024 + NeurIPS
2023) gets `watch_model.features` and its label (about the topic or not).

Cross-validation by query: the 20 queries are split into 5 folds of 4 (a query's pairs on both
corpora stay in one fold); each fold is predicted by a model fitted on the other 16 queries.
The script prints, for every L2 strength and probability threshold, micro precision and recall
per corpus of the out-of-fold predictions (plus the rank-first guarantee), next to the current
rule (all words, top K or score 0.35, each twice or in the lead) on the same pairs. It keeps the
L2 strength and threshold with the best cross-validated F1 (worse of the two corpora), refits
on all 20 queries and writes the weights with that threshold.

Logistic regression: features standardised, Newton's method on the L2-penalised log-loss.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from benchmarks import watch_threshold as bench
from config.settings import Settings
from retrieval.engine import Engine
from retrieval.logistic import fit_logistic
from retrieval.watches import model as watch_model
from retrieval.watches.matching import candidates, matching_docs

FOLDS = 5
L2 = (1.0, 10.0, 100.0, 1000.0, 3000.0)
# Feature sets compared by cross-validation: all of them, and a lean set (docs/watches.md).
FEATURE_SETS = {
    "all": watch_model.FEATURES,
    "lean": (
        "held", "all_held", "log_rank", "relative", "log_count", "lead", "opening", "phrase",
        "associated", "top_share", "all_twice", "top_lead",
    ),
}  # fmt: skip
TARGET = 0.9
PROBABILITIES = [round(0.05 * step, 2) for step in range(2, 19)]
Arrays = dict[str, npt.NDArray[np.float64]]


async def arrive(engine: Engine, txt: Path, papers: list[tuple[str, str]], top_k: int) -> Arrays:
    """Ingest `txt`; one row per (calibration query, candidate) with label and the rule."""
    new_docs, number = await bench.ingest_new(engine, txt)
    corpus, options = engine.corpus, engine.options
    rows, label, rule, first, query_of, relevant, paper = [], [], [], [], [], [], []
    for q, (query, pattern) in enumerate(bench.CALIBRATION):
        about = bench.about(pattern, papers, number)
        found = candidates(corpus, options, query, new_docs, 300)
        fired = {
            doc
            for doc, _ in matching_docs(
                corpus, options, query, new_docs, top_k=top_k, min_score=0.35, max_chars=300
            )
        }
        for doc, row, holds in zip(found.docs, found.rows, found.holding, strict=True):
            rows.append(row)
            label.append(number[doc] in about)
            rule.append(doc in fired)
            first.append(holds and doc == found.first)
            query_of.append(q)
            paper.append(number[doc])
        relevant.append(len(about))
    return {
        "x": np.asarray(rows, dtype=np.float64).reshape(-1, len(watch_model.FEATURES)),
        "y": np.asarray(label, dtype=np.float64),
        "rule": np.asarray(rule, dtype=np.float64),
        "first": np.asarray(first, dtype=np.float64),
        "query": np.asarray(query_of, dtype=np.float64),
        "relevant": np.asarray(relevant, dtype=np.float64),
        "paper": np.asarray(paper, dtype=np.float64),
    }


async def collect(data: Path, seeds: Path, top_k: int) -> list[Arrays]:
    """[small, large] calibration pairs."""
    pairs = await bench.calibration_corpora(
        data, seeds, lambda engine, txt, papers: arrive(engine, txt, papers, top_k)
    )
    return [
        {**arrays, "corpus": np.full(len(arrays["y"]), corpus, dtype=np.float64)}
        for corpus, arrays in enumerate(pairs)
    ]


def fit(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], l2: float, names: Sequence[str]
) -> watch_model.WatchModel:
    """On the `names` columns of `x` (all FEATURES): the shared logistic fit."""
    return watch_model.WatchModel(fit_logistic(x, y, l2, names, watch_model.FEATURES))


def scores(pairs: Arrays, fired: npt.NDArray[np.bool_]) -> tuple[int, int, int]:
    """(relevant fired, fired, relevant) micro over the queries."""
    return int((fired & (pairs["y"] > 0)).sum()), int(fired.sum()), int(pairs["relevant"].sum())


def cell(counts: tuple[int, int, int]) -> tuple[str, float]:
    hits, fired, relevant = counts
    precision = hits / fired if fired else 1.0
    recall = hits / relevant if relevant else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return f"{hits:4d}/{fired:4d}/{relevant:4d} P {precision:.3f} R {recall:.3f} F1 {f1:.3f}", f1


def out_of_fold(
    corpora: list[Arrays], l2: float, names: Sequence[str]
) -> list[npt.NDArray[np.float64]]:
    """Each pair's probability from the model fitted without its query's fold."""
    queries = len(bench.CALIBRATION)
    fold_of = np.arange(queries) % FOLDS
    predicted = [np.zeros(len(c["y"])) for c in corpora]
    for fold in range(FOLDS):
        train = [fold_of[c["query"].astype(int)] != fold for c in corpora]
        x = np.vstack([c["x"][t] for c, t in zip(corpora, train, strict=True)])
        y = np.concatenate([c["y"][t] for c, t in zip(corpora, train, strict=True)])
        model = fit(x, y, l2, names)
        for c, t, out in zip(corpora, train, predicted, strict=True):
            out[~t] = model.probability(c["x"][~t].tolist())
    return predicted


def fired_by(
    pairs: Arrays, chance: npt.NDArray[np.float64], threshold: float
) -> npt.NDArray[np.bool_]:
    """As model_matching_docs: probability >= threshold and the rarest word held, or first."""
    rarest = pairs["x"][:, watch_model.FEATURES.index("top_held")] > 0
    return np.asarray(((chance >= threshold) & rarest) | (pairs["first"] > 0))


def sweep(
    corpora: list[Arrays], l2: float, names: Sequence[str]
) -> list[tuple[float, list[tuple[int, int, int]]]]:
    """(threshold, per-corpus counts) of the out-of-fold predictions, every threshold."""
    predicted = out_of_fold(corpora, l2, names)
    return [
        (t, [scores(c, fired_by(c, p, t)) for c, p in zip(corpora, predicted, strict=True)])
        for t in PROBABILITIES
    ]


def choose(rows: list[tuple[float, list[tuple[int, int, int]]]]) -> tuple[float, float]:
    """(threshold, worse-corpus F1): the smallest threshold with precision and recall >= TARGET
    on both corpora, else the best worse-corpus F1 (as watch_threshold.py chooses)."""
    worse = {t: min(cell(c)[1] for c in counts) for t, counts in rows}
    for t, counts in rows:
        if all(min(ratios(c)) >= TARGET for c in counts):
            return t, worse[t]
    best = max(worse, key=lambda t: (worse[t], -t))
    return best, worse[best]


def ratios(counts: tuple[int, int, int]) -> tuple[float, float]:
    hits, fired, relevant = counts
    return (hits / fired if fired else 1.0), (hits / relevant if relevant else 1.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="conference_abstracts folder")
    parser.add_argument("--seeds", type=Path, default=Path("seeds"), help="the seeds folder")
    parser.add_argument("--top-k", type=int, default=Settings.model_fields["watch_top_k"].default)
    parser.add_argument("--cache", type=Path, help="pairs saved here, read when present")
    parser.add_argument("--out", type=Path, default=watch_model.MODEL_FILE)
    args = parser.parse_args()
    if args.cache is not None and args.cache.exists():
        with np.load(args.cache) as saved:
            corpora = [{k[2:]: saved[k] for k in saved.files if k[0] == str(i)} for i in (0, 1)]
    else:
        corpora = asyncio.run(collect(args.data, args.seeds, args.top_k))
        if args.cache is not None:
            arrays = {f"{i}_{k}": v for i, c in enumerate(corpora) for k, v in c.items()}
            np.savez(args.cache, **arrays)
    print("calibration queries only; 5-fold cross-validation by query (out-of-fold predictions)")
    print("cells: relevant fired / fired / relevant, precision, recall, F1 (small | large)")
    for name, c in zip(("small", "large"), corpora, strict=True):
        print(f"  {name}: {len(c['y'])} pairs, {int(c['y'].sum())} of them relevant")
    rule = [cell(scores(c, c["rule"] > 0)) for c in corpora]
    rule_f1 = min(f1 for _, f1 in rule)
    print(f"current rule, 0.35 (in-sample)   {' | '.join(t for t, _ in rule)}")
    results = {}
    for set_name, names in FEATURE_SETS.items():
        for l2 in L2:
            rows = sweep(corpora, l2, names)
            threshold, worse = choose(rows)
            results[(set_name, l2)] = (worse, threshold, rows)
            counts = dict(rows)[threshold]
            cells = " | ".join(cell(c)[0] for c in counts)
            print(f"{set_name:4} L2 {l2:6.0f} p >= {threshold:.2f}    {cells}")
    (set_name, l2), (worse, threshold, rows) = max(results.items(), key=lambda kv: kv[1][0])
    print(f"\nchosen: {set_name} features, L2 {l2:.0f}, threshold {threshold:.2f}")
    print(f"  worse-corpus F1 {worse:.3f} cross-validated; current rule {rule_f1:.3f} in-sample")
    print("  every threshold of the chosen features and L2:")
    for t, counts in rows:
        print(f"  p >= {t:.2f}  {' | '.join(cell(c)[0] for c in counts)}")
    names = FEATURE_SETS[set_name]
    x = np.vstack([c["x"] for c in corpora])
    y = np.concatenate([c["y"] for c in corpora])
    model = fit(x, y, l2, names)
    fitted = replace(model.fitted, threshold=threshold)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fitted.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}; weights on standardised features:")
    for name, weight in zip(names, model.fitted.weights, strict=True):
        print(f"  {name:12} {weight:+.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
