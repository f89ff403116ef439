"""Calibrate the watch-matching threshold (PAPERBOT_WATCH_MIN_SCORE) on real conference lists.

Set-up, through the real engine on a temporary database: ICLR 2024 is the corpus a server has;
then NeurIPS 2023 arrives as "new papers" (calibration split), then ICML 2024 (held-out split).
Each list is ingested as the product ingests it (.txt, no titles). For each watch query below,
a new paper is labelled relevant when its TITLE (from the .jsonl twin, never seen by the
ranking) matches the query's title pattern. That label is strict: a relevant paper whose title
does not say so counts as a false match, so measured precision is a lower bound.

For every threshold, a watch fires for a new paper when the paper is in the query's top K over
the whole corpus and its normalised score (retrieval/watch_matching.py) reaches the threshold.
The chosen threshold is the smallest whose micro precision on the calibration split is >= 0.9;
the held-out split's precision at that threshold is the number to quote.

    .venv/bin/python benchmarks/watch_threshold.py ../shared/data/conference_abstracts
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
from pathlib import Path

from config.settings import Settings
from retrieval.engine import Engine
from retrieval.watch_matching import scored_top

# (watch query as a user would write it, title pattern that labels a paper relevant)
QUERIES: list[tuple[str, str]] = [
    ("mixture of experts routing", r"mixture[- ]of[- ]experts?|\bmoe\b"),
    ("federated learning", r"federated"),
    ("retrieval-augmented generation", r"retrieval[- ]augment|\brag\b"),
    ("offline reinforcement learning", r"offline (reinforcement|rl)|offline.*\brl\b"),
    ("neural radiance fields", r"radiance field|\bnerfs?\b"),
    ("differential privacy", r"differential(ly)? priva|\bdp[- ]"),
    ("knowledge distillation", r"distill"),
    ("continual learning catastrophic forgetting", r"continual|forgetting|lifelong"),
    ("protein design", r"protein"),
    ("watermarking language models", r"watermark"),
    ("spiking neural networks", r"spik"),
    ("in-context learning", r"in[- ]context"),
    ("graph neural network oversmoothing", r"over-?smooth"),
    ("adversarial robustness certification", r"certif"),
    ("molecule generation diffusion", r"molecul"),
    ("neural operators for PDEs", r"operator|\bpdes?\b|partial differential"),
    ("conformal prediction", r"conformal"),
    ("machine unlearning", r"unlearn"),
    ("causal discovery", r"causal"),
    ("time series forecasting", r"time[- ]series|forecast"),
]
THRESHOLDS = [round(0.05 * step, 2) for step in range(6, 31)]
TOP_KS = (10, 20)


def titles(jsonl: Path) -> list[str]:
    with jsonl.open(encoding="utf-8") as handle:
        return [str(json.loads(line).get("title") or "") for line in handle]


async def new_paper_scores(
    engine: Engine, txt: Path, top_k: int
) -> dict[str, list[tuple[str, float]]]:
    """Ingest `txt`; per query, (external id, normalised score) of its new papers in the top K."""
    newest = engine.watches.newest_key()
    await engine.ingest([txt])
    corpus = engine.corpus
    new_docs = set(engine.watches.docs_after(newest))
    found: dict[str, list[tuple[str, float]]] = {}
    for query, _ in QUERIES:
        top = scored_top(corpus, engine.options, query, top_k, 300)
        docs = [(doc, score) for doc, score in top if doc in new_docs]
        ids = await engine.external_ids([corpus.papers.paper_id(doc) for doc, _ in docs])
        pids = [corpus.papers.paper_id(doc) for doc, _ in docs]
        found[query] = [(ids[pid], score) for pid, (_, score) in zip(pids, docs, strict=True)]
    return found


def relevant(external_id: str, names: list[str], pattern: str) -> bool:
    number = int(external_id.rsplit(":", 1)[1])
    return bool(re.search(pattern, names[number - 1], re.IGNORECASE))


def sweep(found: dict[str, list[tuple[str, float]]], names: list[str]) -> list[dict[str, float]]:
    rows = []
    for threshold in THRESHOLDS:
        fired = hits = queries_firing = 0
        for query, pattern in QUERIES:
            kept = [eid for eid, score in found[query] if score >= threshold]
            fired += len(kept)
            hits += sum(relevant(eid, names, pattern) for eid in kept)
            queries_firing += bool(kept)
        rows.append(
            {
                "threshold": threshold,
                "fired": fired,
                "relevant": hits,
                "precision": hits / fired if fired else 1.0,
                "queries_firing": queries_firing,
            }
        )
    return rows


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="conference_abstracts folder")
    parser.add_argument("--target", type=float, default=0.9)
    args = parser.parse_args()
    data: Path = args.data
    results = {}
    for top_k in TOP_KS:
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(
                _env_file=None,  # type: ignore[call-arg]
                db_path=Path(tmp) / "db.sqlite",
                seeds_dir=Path(tmp) / "none",
            )
            async with await Engine.open(settings, ingest_seeds=False) as engine:
                await engine.ingest([data / "iclr2024.txt"])
                calibration = await new_paper_scores(engine, data / "neurips2023.txt", top_k)
                held_out = await new_paper_scores(engine, data / "icml2024.txt", top_k)
        cal = sweep(calibration, titles(data / "neurips2023.jsonl"))
        held = sweep(held_out, titles(data / "icml2024.jsonl"))
        chosen = next((row for row in cal if row["precision"] >= args.target), cal[-1])
        at = next(row for row in held if row["threshold"] == chosen["threshold"])
        results[top_k] = (cal, held, chosen, at)
        print(f"top_k={top_k}  queries={len(QUERIES)}")
        print("threshold  cal fired/relevant/precision/queries  held-out fired/relevant/precision")
        for c, h in zip(cal, held, strict=True):
            print(
                f"  {c['threshold']:.2f}     {c['fired']:4.0f} {c['relevant']:4.0f} "
                f"{c['precision']:.3f} {c['queries_firing']:2.0f}     "
                f"{h['fired']:4.0f} {h['relevant']:4.0f} {h['precision']:.3f}"
            )
        print(
            f"chosen threshold {chosen['threshold']:.2f} (calibration precision "
            f"{chosen['precision']:.3f}); held-out precision {at['precision']:.3f} "
            f"over {at['fired']:.0f} fired matches\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
