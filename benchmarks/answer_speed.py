"""Full answers (rank + papers + 10 excerpts + lead), open time and serving memory, judged.

    .venv/bin/paperbot ingest CORPUS_FOLDER            # e.g. benchmarks/corpus.py's corpus-100000
    .venv/bin/python benchmarks/answer_speed.py --db data/100k.db --data ../shared/data

Opens `Engine` on an existing database in this process (what `paperbot run` does), times the
first answer after open, then asks the 1,000 conference titles of corpus.queries with
`ask(limit=10)`, one at a time, per-query perf_counter, in the event loop as the bot does.
RSS is read after open, and after the questions once autocomplete is ready and has answered
1,000 typed prefixes (autocomplete_speed.typed_prefixes), so its pages are counted: serving
memory, what the RSS target counts. Trees whose autocomplete builds in the background after
open (`labels_ready`) are waited for; in this tree it is mapped at open. Each target of issue 10
that this script measures is judged by the rule written beside it; the verdicts are printed
with the numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent

# (target, rule over m = the measured numbers, the corpus sizes it applies to: (low, high)).
TARGETS: list[tuple[str, str, tuple[int, int]]] = [
    ("100k: full answer, 10 excerpts, p50 <= 1.5 ms", "m['p50'] <= 1.5", (50_000, 200_000)),
    ("100k: full answer, 10 excerpts, p99 <= 5 ms", "m['p99'] <= 5", (50_000, 200_000)),
    ("1M: full answer p99 <= 20 ms", "m['p99'] <= 20", (500_000, 2_000_000)),
    (
        "1M: serving RSS <= 1.5 GB, autocomplete included",
        "m['rss_after_mb'] <= 1500",
        (500_000, 2_000_000),
    ),
    (
        "1M: open + first answer <= 1 s (warm page cache)",
        "m['open_first_s'] <= 1",
        (500_000, 2_000_000),
    ),
]


def rss_mb() -> float:
    with open("/proc/self/statm") as file:
        return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


async def measure(db: Path, texts: list[str], limit: int, settle: bool) -> dict[str, Any]:
    import autocomplete_speed

    from config.settings import Settings
    from retrieval.engine import Engine

    settings = Settings(_env_file=None, db_path=db)  # type: ignore[call-arg]
    before = rss_mb()
    started = time.perf_counter()
    engine = await Engine.open(settings, ingest_seeds=False)
    await engine.ask(texts[0], limit=limit)
    open_first_s = time.perf_counter() - started
    rss_open = rss_mb()
    if settle:
        # Steady state: the autocomplete index of the snapshot is built before timing.
        await autocomplete_speed.ready(engine.corpus)
    latencies = []
    try:
        for text in texts:
            begin = time.perf_counter()
            await engine.ask(text, limit=limit)
            latencies.append((time.perf_counter() - begin) * 1000)
        papers = (await engine.stats()).papers
        # Serving memory counts autocomplete too (issue 10: "including autocomplete").
        await autocomplete_speed.ready(engine.corpus)
        ids = autocomplete_speed.sample_ids(engine.corpus.papers)
        for text in autocomplete_speed.typed_prefixes(texts, ids, 1000):
            await engine.suggest_papers(text, 25)
        rss_serving = rss_mb()
    finally:
        await engine.close()
    values = np.asarray(latencies)
    return {
        "papers": papers,
        "questions": len(values),
        "p50": float(np.percentile(values, 50)),
        "p99": float(np.percentile(values, 99)),
        "mean": float(values.mean()),
        "open_first_s": open_first_s,
        "rss_before_mb": before,
        "rss_open_mb": rss_open,
        "rss_after_mb": rss_serving,
        "load_average": os.getloadavg()[0],
    }


def verdicts(m: dict[str, Any]) -> list[tuple[str, str, str]]:
    judged = []
    for name, rule, (low, high) in TARGETS:
        if not low <= m["papers"] <= high:
            judged.append((name, rule, f"NOT MEASURED ({m['papers']:,} papers)"))
        else:
            judged.append((name, rule, "MET" if eval(rule, {}, {"m": m}) else "NOT MET"))
    return judged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument(
        "--settle",
        action="store_true",
        help="time the questions after the background warm-up (steady state), not during it",
    )
    parser.add_argument("--code", type=Path, help="import paperbot from this checkout")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    if args.code is not None:
        sys.path.insert(0, str(args.code.resolve()))
    import corpus

    texts = [q.text for q in corpus.queries(args.data) if q.kind == "title"][: args.queries]
    m = asyncio.run(measure(args.db, texts, args.limit, args.settle))
    print(
        f"**{m['papers']:,} papers**, {m['questions']} questions, ask(limit={args.limit}),"
        f"{' after the warm-up,' if args.settle else ''} load average {m['load_average']:.2f}\n"
    )
    print("| p50 ms | p99 ms | mean ms | open + first answer s | RSS before/open/serving MB |")
    print("|---|---|---|---|---|")
    print(
        f"| {m['p50']:.3f} | {m['p99']:.3f} | {m['mean']:.3f} | {m['open_first_s']:.2f} |"
        f" {m['rss_before_mb']:,.0f} / {m['rss_open_mb']:,.0f} / {m['rss_after_mb']:,.0f} |\n"
    )
    print("| target | rule | verdict |\n|---|---|---|")
    for name, rule, verdict in verdicts(m):
        print(f"| {name} | `{rule}` | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
