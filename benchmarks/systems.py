"""One system, one phase, in a process of its own; prints one JSON line with the measurements.

    python benchmarks/systems.py SYSTEM PHASE --size N --work DIR --data DIR [options]

    paperbot  ingest   the real Engine ingests the corpus folder into a new on-disk database
    paperbot  serve    open that database, first answer (cold start), then every query
    bm25s     build    bm25s.BM25.index on paperbot's analyzer tokens, saved to disk
    bm25s     serve    load the saved index, first answer, then every query
    fts5      build    SQLite FTS5 table (porter unicode61 tokenizer), optimized
    fts5      serve    open the database, first answer, then every query
    rank_bm25 serve    BM25Okapi over the same tokens, then get_scores on the first --sample queries

Peak RSS is this process's own (ru_maxrss), so each system and phase is measured apart.
Latencies include analyzing the query. Every system returns the best 10 (paperbot's answer:
the best 3 with excerpts, as users get them; paperbot's rank: the best 10 paper ids).
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()  # before the heavy imports, for the cold start from process start

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import sqlite3  # noqa: E402
import sys  # noqa: E402
from collections.abc import Awaitable, Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402

K1, B, EPSILON = 1.2, 0.75, 0.25  # paperbot's defaults, used by every system that takes them
TOP = 10


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def size_mb(*paths: Path) -> float:
    total = 0
    for path in paths:
        if path.is_dir():
            total += sum(item.stat().st_size for item in path.rglob("*") if item.is_file())
        elif path.exists():
            total += path.stat().st_size
    return total / 1e6


def load_queries(work: Path) -> list[str]:
    data = json.loads((work / "queries.json").read_text(encoding="utf-8"))
    return [query["text"] for query in data]


def timed(run: Callable[[str], object], texts: Sequence[str], budget: float) -> list[float]:
    """Milliseconds per query, in order, until the texts or the time budget run out."""
    deadline = time.perf_counter() + budget
    latencies = []
    for text in texts:
        if time.perf_counter() > deadline:
            break
        started = time.perf_counter()
        run(text)
        latencies.append(1000 * (time.perf_counter() - started))
    return latencies


async def timed_async(
    run: Callable[[str], Awaitable[object]], texts: Sequence[str], budget: float
) -> list[float]:
    deadline = time.perf_counter() + budget
    latencies = []
    for text in texts:
        if time.perf_counter() > deadline:
            break
        started = time.perf_counter()
        await run(text)
        latencies.append(1000 * (time.perf_counter() - started))
    return latencies


def base_tokens(data: Path, size: int) -> tuple[list[list[str]], float]:
    """Paperbot's analyzer output for the corpus, and the seconds analysis took."""
    from retrieval.text import analyze

    base = corpus.base_documents(data)[:size]
    started = time.perf_counter()
    tokens = [analyze(doc.text) for doc in base]
    return corpus.replicate_tokens(tokens, size), time.perf_counter() - started


# -- paperbot -----------------------------------------------------------------------------------


def _paperbot_settings(args: argparse.Namespace) -> Any:
    from config.settings import Settings

    seeds = args.work / "no-seeds"
    seeds.mkdir(exist_ok=True)
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        db_path=args.work / f"paperbot-{args.size}.db",
        seeds_dir=seeds,
    )


def _paperbot_files(settings: Any) -> list[Path]:
    db = Path(settings.db_path)
    suffixes = ("", "-wal", "-shm", ".index")
    return [db.with_name(db.name + suffix) for suffix in suffixes]


async def paperbot_ingest(args: argparse.Namespace) -> dict[str, Any]:
    from retrieval.engine import Engine

    settings = _paperbot_settings(args)
    for path in _paperbot_files(settings):
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    folder = args.work / f"corpus-{args.size}"
    started = time.perf_counter()
    engine = await Engine.open(settings, ingest_seeds=False)
    ingest_started = time.perf_counter()
    report = await engine.ingest([folder], collection="bench")
    ingested = time.perf_counter()
    await engine.close()
    finished = time.perf_counter()
    if report.errors or report.papers_added != args.size:
        raise SystemExit(f"ingest failed: {report.errors[:3]} added {report.papers_added}")
    return {
        "build_s": ingested - ingest_started,
        "build_total_s": finished - started,
        "build_rss_mb": peak_rss_mb(),
        "disk_mb": size_mb(*_paperbot_files(settings)),
    }


async def paperbot_serve(args: argparse.Namespace) -> dict[str, Any]:
    from retrieval.engine import Engine
    from retrieval.errors import PaperbotError

    texts = load_queries(args.work)
    settings = _paperbot_settings(args)
    started = time.perf_counter()
    engine = await Engine.open(settings)
    first = await engine.ask(texts[0])
    cold = time.perf_counter()
    assert engine.corpus.index.size == args.size and first.hits

    async def answer(text: str) -> None:
        # A question of stopwords only is answered with a hint: timed all the same.
        with contextlib.suppress(PaperbotError):
            await engine.ask(text)

    async def rank_only(text: str) -> None:
        await engine.rank_text(text, depth=TOP)

    for text in texts[: args.warmup]:
        await answer(text)
    answers = await timed_async(answer, texts, args.budget)
    ranks = await timed_async(rank_only, texts, args.budget)
    await engine.close()
    return {
        "cold_start_s": cold - started,
        "cold_start_process_s": cold - STARTED,
        "serve_rss_mb": peak_rss_mb(),
        "latencies_ms": {"paperbot answer": answers, "paperbot rank": ranks},
    }


# -- bm25s --------------------------------------------------------------------------------------


def bm25s_build(args: argparse.Namespace) -> dict[str, Any]:
    import bm25s

    tokens, analysis_s = base_tokens(args.data, args.size)
    started = time.perf_counter()
    model = bm25s.BM25(k1=K1, b=B)
    model.index(tokens, show_progress=False)
    built = time.perf_counter()
    folder = args.work / f"bm25s-{args.size}"
    shutil.rmtree(folder, ignore_errors=True)
    model.save(folder)
    return {
        "build_s": built - started,
        "build_total_s": time.perf_counter() - started,
        "analysis_s": analysis_s,
        "build_rss_mb": peak_rss_mb(),
        "disk_mb": size_mb(folder),
    }


def bm25s_serve(args: argparse.Namespace) -> dict[str, Any]:
    import bm25s

    from retrieval.text import analyze

    texts = load_queries(args.work)
    started = time.perf_counter()
    model = bm25s.BM25.load(args.work / f"bm25s-{args.size}", mmap=False)

    def search(text: str) -> object:
        terms = model.get_tokens_ids(analyze(text))
        if not terms:
            return []
        return model.retrieve([terms], k=TOP, show_progress=False, n_threads=1)

    search(texts[0])
    cold = time.perf_counter()
    for text in texts[: args.warmup]:
        search(text)
    return {
        "cold_start_s": cold - started,
        "cold_start_process_s": cold - STARTED,
        "latencies_ms": {"bm25s": timed(search, texts, args.budget)},
        "serve_rss_mb": peak_rss_mb(),
    }


# -- SQLite FTS5 --------------------------------------------------------------------------------

_FTS_WORD = re.compile(r"[^\W_]+")


def fts5_query(text: str, stopwords: frozenset[str]) -> str | None:
    """Any-word (OR) query, as BM25 ranks: unicode61 words, minus paperbot's stopwords."""
    words = [w for w in _FTS_WORD.findall(text.lower()) if len(w) > 1 and w not in stopwords]
    return " OR ".join(f'"{word}"' for word in dict.fromkeys(words)) or None


def fts5_build(args: argparse.Namespace) -> dict[str, Any]:
    path = args.work / f"fts5-{args.size}.db"
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)
    docs = list(corpus.replicate(corpus.base_documents(args.data), args.size))
    started = time.perf_counter()
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'porter unicode61')")
    with connection:
        connection.executemany("INSERT INTO docs (body) VALUES (?)", ((d.text,) for d in docs))
    with connection:
        connection.execute("INSERT INTO docs (docs) VALUES ('optimize')")
    connection.close()
    return {
        "build_s": time.perf_counter() - started,
        "build_rss_mb": peak_rss_mb(),
        "disk_mb": size_mb(path),
    }


def fts5_serve(args: argparse.Namespace) -> dict[str, Any]:
    from retrieval.stopwords import STOPWORDS

    texts = load_queries(args.work)
    started = time.perf_counter()
    connection = sqlite3.connect(args.work / f"fts5-{args.size}.db")
    stopwords = frozenset(STOPWORDS)

    def search(text: str) -> object:
        query = fts5_query(text, stopwords)
        if query is None:
            return []
        sql = "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT ?"
        return connection.execute(sql, (query, TOP)).fetchall()

    search(texts[0])
    cold = time.perf_counter()
    for text in texts[: args.warmup]:
        search(text)
    latencies = timed(search, texts, args.budget)
    return {
        "cold_start_s": cold - started,
        "cold_start_process_s": cold - STARTED,
        "latencies_ms": {"SQLite FTS5": latencies},
        "serve_rss_mb": peak_rss_mb(),
    }


# -- rank_bm25 ----------------------------------------------------------------------------------


def rank_bm25_serve(args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np
    from rank_bm25 import BM25Okapi

    from retrieval.text import analyze

    texts = load_queries(args.work)[: args.sample]
    tokens, analysis_s = base_tokens(args.data, args.size)
    started = time.perf_counter()
    model = BM25Okapi(tokens, k1=K1, b=B, epsilon=EPSILON)
    built = time.perf_counter()
    del tokens

    def search(text: str) -> object:
        scores = model.get_scores(analyze(text))
        best = np.argpartition(-scores, TOP)[:TOP]
        return best[np.argsort(-scores[best])]

    return {
        "build_s": built - started,
        "analysis_s": analysis_s,
        "latencies_ms": {"rank_bm25 BM25Okapi": timed(search, texts, args.budget)},
        "serve_rss_mb": peak_rss_mb(),
    }


PHASES: dict[tuple[str, str], Callable[[argparse.Namespace], Any]] = {
    ("paperbot", "ingest"): lambda args: asyncio.run(paperbot_ingest(args)),
    ("paperbot", "serve"): lambda args: asyncio.run(paperbot_serve(args)),
    ("bm25s", "build"): bm25s_build,
    ("bm25s", "serve"): bm25s_serve,
    ("fts5", "build"): fts5_build,
    ("fts5", "serve"): fts5_serve,
    ("rank_bm25", "serve"): rank_bm25_serve,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("system", choices=sorted({system for system, _ in PHASES}))
    parser.add_argument("phase", choices=sorted({phase for _, phase in PHASES}))
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--budget", type=float, default=600.0, help="seconds of queries at most")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--sample", type=int, default=200, help="rank_bm25: queries to run")
    args = parser.parse_args()
    run = PHASES.get((args.system, args.phase))
    if run is None:
        parser.error(f"{args.system} has no {args.phase} phase")
    before = os.getloadavg()[0]
    result = {"system": args.system, "phase": args.phase, "size": args.size, **run(args)}
    # The machine is shared: the 1-minute load average before and after, to judge the numbers.
    result["load_average"] = [before, os.getloadavg()[0]]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
