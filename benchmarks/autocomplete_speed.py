"""Autocomplete latency on a real database: 1,000 typed prefixes, timed one at a time.

    .venv/bin/python benchmarks/autocomplete_speed.py --db data/100k.db --data ../shared/data

Opens `Engine` on an existing database in this process (what `paperbot run` does) and waits
until autocomplete is ready (trees whose autocomplete builds in the background after open
report how long that took; with `--code` any checkout can be measured). The prefixes are what
someone types into `/paper id`: one to three leading words of a conference title with the last
word cut short, and every tenth a paper id of the corpus cut short, with a fixed seed. Timed:
the structure's own `suggest` (ids and label words by prefix) and `Engine.suggest_papers` (what
the bot calls: a worker thread, the exact-id rule and the full-text fallback). The digest is a
hash of every answer of the structure's `suggest`: two trees that answer identically print the
same digest. The one target judged is the one this script measures for issue 10's serving RSS
rule: the process's RSS once autocomplete has answered all prefixes.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20261201
LIMIT = 25
TARGETS: list[tuple[str, str, tuple[int, int]]] = [
    (
        "1M: serving RSS <= 1.5 GB, autocomplete included",
        "m['rss_after_mb'] <= 1500",
        (500_000, 2_000_000),
    ),
]


def rss_mb() -> float:
    with open("/proc/self/statm") as file:
        return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def typed_prefixes(titles: list[str], paper_ids: list[str], count: int) -> list[str]:
    """What people type: 1-3 leading title words, the last one cut; every tenth, a cut id."""
    rng = random.Random(SEED)
    found = []
    for number in range(count):
        if number % 10 == 9 and paper_ids:
            paper_id = rng.choice(paper_ids)
            found.append(paper_id[: rng.randint(1, len(paper_id))])
            continue
        words = rng.choice(titles).split()[: rng.randint(1, 3)] or ["a"]
        last = words[-1][: rng.randint(1, len(words[-1]))]
        found.append(" ".join([*words[:-1], last]))
    return found


def sample_ids(papers: Any, count: int = 1000) -> list[str]:
    """`count` paper ids of the corpus, with a fixed seed (not all of them: no million strings
    in the process whose memory is measured)."""
    sample = random.Random(SEED).sample(range(len(papers)), min(count, len(papers)))
    return [papers.paper_id(doc) for doc in sample]


def structure_suggest(corpus: Any) -> Any:
    """The corpus's autocomplete `suggest` (`autocomplete` now, `labels` in older trees)."""
    holder = corpus.autocomplete if hasattr(corpus, "autocomplete") else corpus.labels
    return holder.suggest


async def ready(corpus: Any) -> None:
    # Older trees build autocomplete in the background after open (`labels_ready`).
    while not getattr(corpus, "labels_ready", True):  # noqa: ASYNC110 - a property, not an event
        await asyncio.sleep(0.1)


def percentiles(values: list[float]) -> dict[str, float]:
    array = np.asarray(values)
    return {
        "p50": float(np.percentile(array, 50)),
        "p99": float(np.percentile(array, 99)),
        "max": float(array.max()),
    }


async def measure(db: Path, titles: list[str], count: int) -> dict[str, Any]:
    from config.settings import Settings
    from retrieval.engine import Engine

    settings = Settings(_env_file=None, db_path=db)  # type: ignore[call-arg]
    started = time.perf_counter()
    engine = await Engine.open(settings, ingest_seeds=False)
    opened_s = time.perf_counter() - started
    try:
        corpus = engine.corpus
        await ready(corpus)
        ready_s = time.perf_counter() - started
        papers = corpus.papers
        prefixes = typed_prefixes(titles, sample_ids(papers), count)
        suggest = structure_suggest(corpus)
        digest = hashlib.sha256()
        bare, full = [], []
        for text in prefixes:
            begin = time.perf_counter()
            found = suggest(text, LIMIT)
            bare.append((time.perf_counter() - begin) * 1000)
            digest.update(repr((text, found)).encode())
        for text in prefixes:
            begin = time.perf_counter()
            await engine.suggest_papers(text, LIMIT)
            full.append((time.perf_counter() - begin) * 1000)
        rss_after = rss_mb()
    finally:
        await engine.close()
    return {
        "papers": len(papers),
        "prefixes": len(prefixes),
        "open_s": opened_s,
        "ready_s": ready_s,
        "bare": percentiles(bare),
        "full": percentiles(full),
        "digest": digest.hexdigest()[:16],
        "rss_after_mb": rss_after,
        "load_average": os.getloadavg()[0],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--prefixes", type=int, default=1000)
    parser.add_argument("--code", type=Path, help="import paperbot from this checkout")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    if args.code is not None:
        sys.path.insert(0, str(args.code.resolve()))
    import corpus

    titles = [q.text for q in corpus.queries(args.data) if q.kind == "title"]
    m = asyncio.run(measure(args.db, titles, args.prefixes))
    print(
        f"**{m['papers']:,} papers**, {m['prefixes']} prefixes, limit {LIMIT},"
        f" load average {m['load_average']:.2f}; open {m['open_s']:.2f} s,"
        f" autocomplete ready {m['ready_s']:.2f} s after the start\n"
    )
    print("| timed | p50 ms | p99 ms | max ms |\n|---|---|---|---|")
    for name, key in (("structure suggest", "bare"), ("Engine.suggest_papers", "full")):
        row = m[key]
        print(f"| {name} | {row['p50']:.3f} | {row['p99']:.3f} | {row['max']:.3f} |")
    print(f"\nanswers digest {m['digest']}; RSS after {m['rss_after_mb']:,.0f} MB\n")
    print("| target | rule | verdict |\n|---|---|---|")
    for name, rule, (low, high) in TARGETS:
        if not low <= m["papers"] <= high:
            verdict = f"NOT MEASURED ({m['papers']:,} papers)"
        else:
            verdict = "MET" if eval(rule, {}, {"m": m}) else "NOT MET"
        print(f"| {name} | `{rule}` | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
