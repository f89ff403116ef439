"""The ingest pipeline alone on one big file: the parent's RSS at each progress line.

    PYTHONPATH=. .venv/bin/python benchmarks/ingest_memory.py /tmp/stream-bench/one-200000.jsonl

Runs `ingest_paths` into a fresh SQLite database in a temporary folder (no engine, no index
build), so what it prints is what parsing, the process pool, the spool and the store write
cost the parent process. Bounded memory shows as a flat column: the RSS at 10% of the file
about equals the RSS at 100%. Worker processes are not counted (see ingest_scale.py for the
whole process tree, index included).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from pathlib import Path

from retrieval.ingest import ListLimits, ingest_paths
from retrieval.stores.sqlite import SqliteStore


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def run(source: Path, every: int) -> int:
    rows: list[tuple[float, float, str]] = []
    started = time.perf_counter()

    def progress(line: str) -> None:
        if "papers analyzed" in line or "papers written" in line:
            count = line.split(": ", 1)[1].split(" papers")[0]
            phase = "analyzed" if "analyzed" in line else "written"
            rows.append((time.perf_counter() - started, rss_mb(), f"{phase} {count}"))

    with tempfile.TemporaryDirectory() as folder:
        async with await SqliteStore.open(Path(folder) / "ingest.db") as store:
            print(f"parent RSS after opening the store: {rss_mb():,.0f} MB\n")
            limits = ListLimits(max_file_bytes=1 << 40, max_papers=1 << 40)
            report = await ingest_paths(store, [source], progress=progress, limits=limits)
    print("| seconds | parent RSS MB | progress |\n|---|---|---|")
    for index, (at, rss, what) in enumerate(rows):
        if index % every == 0 or index == len(rows) - 1:
            print(f"| {at:.1f} | {rss:,.0f} | {what} |")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\n{report.papers_added:,} papers added, errors: {list(report.errors)}")
    print(f"parent peak RSS: {peak:,.0f} MB")
    return 1 if report.errors else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--every", type=int, default=5, help="print every Nth progress line")
    args = parser.parse_args()
    return asyncio.run(run(args.file, args.every))


if __name__ == "__main__":
    sys.exit(main())
