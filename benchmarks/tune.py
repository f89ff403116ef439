"""Tuning log: each ranking weight and BM25 parameter, grid-searched on SciFact train only.

    .venv/bin/python benchmarks/tune.py ../shared/data/scifact [--json OUT]

The corpus is ingested once into a temporary database through the real engine; every setting
then opens an engine on that database (the index is rebuilt with the setting's k1/b/epsilon) and
ranks the train queries with `Engine.rank_text`, as `paperbot eval` does. Each parameter is
varied alone, the others at their defaults (config/settings.py, read from `Settings`).

Rule, printed with the table: a parameter's chosen value is the one with the best train
nDCG@10; the default is kept unless another value beats it by more than TIE (0.001, the last
reported digit). The chosen values together form one setting; it is scored on train, and then,
once, on test. No test number is computed for any other setting.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from config.settings import Settings  # noqa: E402
from retrieval.engine import Engine  # noqa: E402
from retrieval.evaluation import read_qrels, read_queries  # noqa: E402
from retrieval.metrics import BEIR_MEASURES, evaluate, mean_scores  # noqa: E402
from retrieval.text import analyze  # noqa: E402

DEPTH = 100
TIE = 0.001
GRID: dict[str, tuple[float, ...]] = {
    "bm25_k1": (0.6, 0.9, 1.2, 1.5, 1.8),
    "bm25_b": (0.3, 0.45, 0.6, 0.75, 0.9),
    "bm25_epsilon": (0.0, 0.1, 0.25, 0.5),
    "acronym_weight": (0.0, 0.15, 0.3, 0.5, 1.0),
    "proximity_weight": (0.0, 0.25, 0.5, 1.0, 2.0),
}


def base_settings(folder: Path) -> Settings:
    """The defaults, on a database in `folder`, with nothing from the environment or files."""
    seeds = folder / "no-seeds"
    seeds.mkdir(exist_ok=True)
    return Settings(  # type: ignore[call-arg]
        _env_file=None, db_path=folder / "tune.db", seeds_dir=seeds, ranking="enhanced"
    )


async def ingest(settings: Settings, corpus: Path) -> None:
    engine = await Engine.open(settings, ingest_seeds=False)
    try:
        report = await engine.ingest([corpus], collection="scifact")
        if report.errors or not report.papers_added:
            raise SystemExit(f"tune: ingest of {corpus} failed: {report.errors}")
    finally:
        await engine.close()


async def score(
    settings: Settings, queries: dict[str, str], qrels: dict[str, dict[str, int]]
) -> dict[str, float]:
    """Mean nDCG@10, Recall@100, MRR@10 of `queries` under `settings` (database already full)."""
    engine = await Engine.open(settings, ingest_seeds=False)
    try:
        external: dict[str, str] = {}
        run: dict[str, list[str]] = {}
        for query_id, text in queries.items():
            ranked = await engine.rank_text(text, depth=DEPTH)
            for paper_id, _ in ranked:
                if paper_id not in external:
                    external[paper_id] = (await engine.paper(paper_id)).external_id
            run[query_id] = [external[paper_id] for paper_id, _ in ranked]
    finally:
        await engine.close()
    return mean_scores(evaluate(run, qrels, BEIR_MEASURES), BEIR_MEASURES)


def largest_document_share(corpus: Path) -> tuple[str, int, int]:
    """(term, documents holding it, documents) for the commonest term of title + text.

    BM25Okapi's IDF is negative, and epsilon's floor applies, only for a term in more than half
    of the documents; this says whether epsilon can matter on this corpus at all.
    """
    frequencies: Counter[str] = Counter()
    documents = 0
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            frequencies.update(set(analyze(f"{record.get('title') or ''}\n{record['text']}")))
            documents += 1
    term, count = frequencies.most_common(1)[0]
    return term, count, documents


def with_value(settings: Settings, name: str, value: float) -> Settings:
    return Settings.model_validate({**settings.model_dump(), name: value})


async def tune(data: Path) -> dict[str, Any]:
    queries = read_queries(data / "queries.jsonl")
    train = read_qrels(data / "qrels" / "train.tsv")
    train_queries = {query_id: queries[query_id] for query_id in train}
    results: dict[str, Any] = {"parameters": {}, "tie": TIE}
    with tempfile.TemporaryDirectory(prefix="paperbot-tune-") as folder:
        base = base_settings(Path(folder))
        started = time.perf_counter()
        await ingest(base, data / "corpus.jsonl")
        print(f"ingested {data / 'corpus.jsonl'} in {time.perf_counter() - started:.1f} s")
        term, count, documents = largest_document_share(data / "corpus.jsonl")
        results["commonest_term"] = {"term": term, "documents": count, "of": documents}
        print(
            f"commonest term: {term!r} in {count:,} of {documents:,} documents "
            f"({count / documents:.1%}; epsilon applies only above 50%)"
        )
        cache: dict[tuple[tuple[str, float], ...], dict[str, float]] = {}

        async def train_score(changes: dict[str, float]) -> dict[str, float]:
            key = tuple(sorted(changes.items()))
            if key not in cache:
                settings = base
                for name, value in changes.items():
                    settings = with_value(settings, name, value)
                cache[key] = await score(settings, train_queries, train)
            return cache[key]

        defaults = {name: float(getattr(base, name)) for name in GRID}
        chosen: dict[str, float] = {}
        for name, values in GRID.items():
            default = defaults[name]
            rows = []
            for value in sorted({*values, default}):
                changes = {} if value == default else {name: value}
                rows.append({"value": value, **await train_score(changes)})
            best = max(rows, key=lambda row: row["nDCG@10"])
            at_default = next(row for row in rows if row["value"] == default)
            keep = best["nDCG@10"] - at_default["nDCG@10"] <= TIE
            chosen[name] = default if keep else best["value"]
            results["parameters"][name] = {
                "default": default,
                "chosen": chosen[name],
                "rows": rows,
            }
            print_parameter(name, default, chosen[name], rows)
        changes = {name: value for name, value in chosen.items() if value != defaults[name]}
        results["chosen"] = chosen
        results["chosen_train"] = await train_score(changes)
        settings = base
        for name, value in changes.items():
            settings = with_value(settings, name, value)
        test = read_qrels(data / "qrels" / "test.tsv")
        results["chosen_test"] = await score(
            settings, {query_id: queries[query_id] for query_id in test}, test
        )
        results["train_queries"], results["test_queries"] = len(train), len(test)
        results["seconds"] = round(time.perf_counter() - started, 1)
    print_summary(results, defaults)
    return results


def print_parameter(name: str, default: float, chosen: float, rows: list[dict[str, Any]]) -> None:
    print(f"\n{name} (default {default:g}; others at defaults; SciFact train)\n")
    print("| value | nDCG@10 | Recall@100 | MRR@10 | |")
    print("|---|---|---|---|---|")
    for row in rows:
        marks = [mark for mark, on in (("default", row["value"] == default),
                                       ("chosen", row["value"] == chosen)) if on]  # fmt: skip
        print(
            f"| {row['value']:g} | {row['nDCG@10']:.4f} | {row['Recall@100']:.4f} | "
            f"{row['MRR@10']:.4f} | {', '.join(marks)} |"
        )


def print_summary(results: dict[str, Any], defaults: dict[str, float]) -> None:
    chosen = results["chosen"]
    print(
        f"\nrule: chosen = best train nDCG@10; the default is kept unless beaten by more than "
        f"{results['tie']}"
    )
    changed = [f"{name} {defaults[name]:g} -> {chosen[name]:g}"
               for name in chosen if chosen[name] != defaults[name]]  # fmt: skip
    print("chosen setting:", ", ".join(f"{name}={value:g}" for name, value in chosen.items()))
    print("differs from the defaults in:", ", ".join(changed) if changed else "nothing")
    for split in ("train", "test"):
        metrics = results[f"chosen_{split}"]
        print(
            f"chosen setting, SciFact {split} ({results[f'{split}_queries']} queries): "
            + ", ".join(f"{name} {value:.4f}" for name, value in metrics.items())
        )
    print(f"total {results['seconds']} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "data", type=Path, help="a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)"
    )
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    args = parser.parse_args()
    results = asyncio.run(tune(args.data))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
