"""Where a full answer's time goes: ranking, the store fetch, the excerpts, the thread hops.

    .venv/bin/python benchmarks/answer_parts.py --db data/100k.db --data ../shared/data

Opens `Engine` on an existing database (as answer_speed.py does), waits for the background
warm-up (kernels, autocomplete, the sentence table), then for each of the conference titles of
corpus.queries, one at a time, times with perf_counter: ranking in a worker thread (as `ask`
does), a bare `asyncio.to_thread` hop, fetching the page's papers from the store, the page's
excerpts and lead from the sentence table (as `build_answer` does when the table covers the
page) and from the abstracts (the path before the table, its per-abstract cache cleared), and
the whole `ask(limit=10)`. Prints p50 / p99 / mean per part and the load average.
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
PARTS = ("rank (thread)", "thread hop", "fetch", "excerpts (table)", "excerpts (abstracts)", "ask")


async def measure(db: Path, texts: list[str], limit: int) -> dict[str, list[float]]:
    from config.settings import Settings
    from retrieval.engine import Engine
    from retrieval.questions import rank_question
    from retrieval.snapshot import page_excerpts as table_excerpts

    settings = Settings(_env_file=None, db_path=db)  # type: ignore[call-arg]
    engine = await Engine.open(settings, ingest_seeds=False)
    times: dict[str, list[float]] = {part: [] for part in PARTS}
    try:
        await engine.ask(texts[0], limit=limit)
        corpus = engine.corpus
        while _warming(corpus):  # noqa: ASYNC110 - properties, not events
            await asyncio.sleep(0.5)
        budget = settings.excerpt_chars

        def clock(part: str, started: float) -> None:
            times[part].append((time.perf_counter() - started) * 1000)

        for text in texts:
            started = time.perf_counter()
            _, ranking, _ = await asyncio.to_thread(
                rank_question, corpus, engine.options, text, None, settings.max_query_chars
            )
            clock("rank (thread)", started)
            started = time.perf_counter()
            await asyncio.to_thread(int)
            clock("thread hop", started)
            docs = ranking.docs[:limit]
            started = time.perf_counter()
            papers = await engine.store.papers_by_key(corpus.keys_of(docs))
            clock("fetch", started)
            abstracts = [paper.abstract for paper in papers]
            started = time.perf_counter()
            table_excerpts.page_excerpts(
                corpus.index, corpus.sentences.table, docs, abstracts, ranking.weights, budget
            )
            clock("excerpts (table)", started)
            table_excerpts._analysed.cache_clear()
            started = time.perf_counter()
            nowhere = [None] * len(abstracts)
            table_excerpts.page_excerpts(None, None, nowhere, abstracts, ranking.weights, budget)
            clock("excerpts (abstracts)", started)
            started = time.perf_counter()
            await engine.ask(text, limit=limit)
            clock("ask", started)
    finally:
        await engine.close()
    return times


def _warming(corpus: Any) -> bool:
    """The autocomplete index (older trees build it after open) or the sentence table is still
    being built."""
    building = not getattr(corpus, "labels_ready", True)
    return building or corpus.sentences.table.size < corpus.index.size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--code", type=Path, help="import paperbot from this checkout")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    if args.code is not None:
        sys.path.insert(0, str(args.code.resolve()))
    import corpus

    texts = [q.text for q in corpus.queries(args.data) if q.kind == "title"][: args.queries]
    times: dict[str, Any] = asyncio.run(measure(args.db, texts, args.limit))
    print(
        f"{len(texts)} questions, ask(limit={args.limit}) after the warm-up, "
        f"load average {os.getloadavg()[0]:.2f}\n"
    )
    print("| part | p50 ms | p99 ms | mean ms |\n|---|---|---|---|")
    for part in PARTS:
        values = np.asarray(times[part])
        print(
            f"| {part} | {np.percentile(values, 50):.3f} | {np.percentile(values, 99):.3f} |"
            f" {values.mean():.3f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
