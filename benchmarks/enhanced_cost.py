"""What enhanced ranking adds over exact: rank() with acronym credits and the proximity re-rank
switched off one at a time, the five variants interleaved per query (rotating order).

    python benchmarks/enhanced_cost.py --db COPY_OF_100k.db --data ../shared/data

The corpus is a saved database's (opened as rank_profile.py --db opens it; the copy that
snapshot_speed.py ingests will do). Best 10, the engine's other options, the 1,000 conference
titles of corpus.queries; perf_counter per query. "neither" is enhanced mode without both
(de-duplicated terms, one pass over plain columns).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=1000)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    import corpus
    import rank_profile
    import speed

    from retrieval import ranking
    from retrieval import text as analysis
    from retrieval.models import ParsedQuery
    from retrieval.parameters import rank_options

    snapshot = rank_profile.corpus_of_db(args.db)
    texts = [q.text for q in corpus.queries(args.data) if q.kind == "title"][: args.queries]
    base = replace(rank_options(speed.default_settings()), max_results=10, mode="enhanced")
    variants = {
        "enhanced": base,
        "no proximity": replace(base, proximity_weight=0.0),
        "no acronym credit": replace(base, expansion_weight=0.0),
        "neither": replace(base, proximity_weight=0.0, expansion_weight=0.0),
        "exact": replace(base, mode="exact"),
    }
    items = list(variants.items())
    for text in texts[:20]:
        for _, options in items:
            ranking.rank(snapshot, ParsedQuery(text=text), options, analysis.analyze)
    spent: dict[str, list[float]] = {name: [] for name in variants}
    load = os.getloadavg()[0]
    for number, text in enumerate(texts):
        turn = number % len(items)
        for name, options in items[turn:] + items[:turn]:
            started = time.perf_counter()
            ranking.rank(snapshot, ParsedQuery(text=text), options, analysis.analyze)
            spent[name].append(1000 * (time.perf_counter() - started))
    print(
        f"{snapshot.index.size:,} papers, {len(texts)} titles, best 10; load average"
        f" {load:.2f} before, {os.getloadavg()[0]:.2f} after\n"
    )
    print("| variant | p50 ms | p99 ms | mean ms |\n|---|---|---|---|")
    for name, values in spent.items():
        array = np.asarray(values)
        print(
            f"| {name} | {np.percentile(array, 50):.3f} | {np.percentile(array, 99):.3f} |"
            f" {array.mean():.3f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
