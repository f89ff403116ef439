"""The PostgreSQL store against the SQLite one on the real conference lists, and NOTIFY latency.

    .venv/bin/python benchmarks/pg_store.py [--data ../shared/data/conference_abstracts]
        [--url postgresql://postgres@127.0.0.1:5432/postgres] [--notifies 20]

Creates its own databases on the server (dropped at the end) and a SQLite file in a temporary
folder, then prints: ingest time per backend, a full `index_rows()` read, `migrate-store` of the
SQLite file into PostgreSQL, and the delay from a committed ingest in one store to its
generation arriving at another store's `corpus_generations()` (p50 and max).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from retrieval.ingest import ingest_paths  # noqa: E402
from retrieval.stores.migrate import copy_sqlite_to_postgres  # noqa: E402
from retrieval.stores.postgres import PostgresStore  # noqa: E402
from retrieval.stores.protocol import NewPaper, Store  # noqa: E402
from retrieval.stores.sqlite import SqliteStore  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "conference_abstracts"
DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def _database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


async def _admin(url: str, sql: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


async def _ingest(store: Store, files: list[Path]) -> tuple[float, int]:
    started = time.perf_counter()
    report = await ingest_paths(store, files)
    return time.perf_counter() - started, report.papers_added


async def _read_all(store: Store) -> tuple[float, int]:
    started = time.perf_counter()
    rows = await store.index_rows()
    return time.perf_counter() - started, len(rows)


async def _notify_delays(url: str, count: int) -> list[float]:
    listener, writer = await PostgresStore.open(url), await PostgresStore.open(url)
    generations = listener.corpus_generations(poll_seconds=60)
    delays: list[float] = []
    try:
        current = await anext(generations)
        for n in range(count):
            paper = NewPaper(
                abstract=f"Notification probe {n}.",
                external_id=f"probe-{n}",
                label=f"Probe {n}",
                content_hash=f"probe-{n}-{os.getpid()}",
                terms=f"probe {n}",
            )
            await writer.add_file(
                origin=f"probe-{n}", sha256=f"probe-{n}", collection="Probes", papers=[paper]
            )
            committed = time.perf_counter()
            target = current + 1  # each ingest bumps the generation once; nobody else writes
            while current < target:
                current = await asyncio.wait_for(anext(generations), 10)
            delays.append(time.perf_counter() - committed)
    finally:
        await generations.aclose()  # type: ignore[attr-defined]
        await listener.close()
        await writer.close()
    return delays


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--url", default=os.environ.get("PAPERBOT_TEST_DATABASE_URL") or DEFAULT_URL
    )
    parser.add_argument("--notifies", type=int, default=20)
    args = parser.parse_args()
    files = sorted(args.data.glob("*.jsonl"))
    if not files:
        print(f"no *.jsonl in {args.data}", file=sys.stderr)
        return 2
    names = [f"paperbot_bench_{os.getpid()}_{suffix}" for suffix in ("ingest", "copy")]
    for name in names:
        await _admin(args.url, f'CREATE DATABASE "{name}"')
    ingest_url, copy_url = (_database(args.url, name) for name in names)
    try:
        with tempfile.TemporaryDirectory() as folder:
            sqlite_path = Path(folder) / "paperbot.db"
            async with await SqliteStore.open(sqlite_path) as sqlite:
                seconds, added = await _ingest(sqlite, files)
                print(f"ingest   sqlite    {added:,} papers in {seconds:.2f} s")
                seconds, rows = await _read_all(sqlite)
                print(f"read     sqlite    index_rows() of {rows:,} papers in {seconds:.3f} s")
            async with await PostgresStore.open(ingest_url) as postgres:
                seconds, added = await _ingest(postgres, files)
                print(f"ingest   postgres  {added:,} papers in {seconds:.2f} s")
                seconds, rows = await _read_all(postgres)
                print(f"read     postgres  index_rows() of {rows:,} papers in {seconds:.3f} s")
            started = time.perf_counter()
            counts = await copy_sqlite_to_postgres(sqlite_path, copy_url)
            papers = next(count.copied for count in counts if count.table == "papers")
            print(
                f"migrate  sqlite->postgres  {papers:,} papers, all tables checked, "
                f"in {time.perf_counter() - started:.2f} s"
            )
        delays = sorted(await _notify_delays(ingest_url, args.notifies))
        print(
            f"notify   {len(delays)} ingests: commit -> other store's generation "
            f"p50 {statistics.median(delays) * 1000:.1f} ms, max {delays[-1] * 1000:.1f} ms"
        )
    finally:
        for name in names:
            await _admin(args.url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
