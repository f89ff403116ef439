"""A one-paper `paperbot ingest` into a big database, and a running engine catching up with it.

Works on copies of `--db` (and its `<db>.index` folder), never on the original:

1. `paperbot ingest one.txt` as an operator runs it (a subprocess, wall time), `--runs` times,
   each on a fresh copy. Target: under 10 s at 100k papers.
2. Catch-up: an engine opened on a copy (a bot process) before another process ingests one
   paper, then `live.catch_up()` timed, in two cases: the ingesting process already saved the
   new index in the shared index folder (same machine), and the running engine has an index
   folder of its own, so it must bring its index up to date itself (other machines, or the
   moment before the ingester's save). Each caught-up engine's rankings are compared with a
   freshly opened engine's: they must be identical.

`--code DIR` runs another checkout (e.g. main, for a before/after) with the same script:

    .venv/bin/python benchmarks/small_ingest.py --db /tmp/big/100k.db --runs 3
    .venv/bin/python benchmarks/small_ingest.py --db /tmp/big/100k.db --code /work/main
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

QUERIES = ("mixture of experts routing", "retrieval augmented generation attacks", "protein")
TARGET_SECONDS = 10.0


def copy_database(source: Path, folder: Path) -> Path:
    folder.mkdir(parents=True)
    target = folder / source.name
    shutil.copy2(source, target)
    index = source.with_name(source.name + ".index")
    if index.is_dir():
        shutil.copytree(index, folder / index.name)
    return target


def one_paper_list(folder: Path, tag: str) -> Path:
    path = folder / f"one-{tag}.txt"
    path.write_text(
        f"Small ingest {tag}\n\nWe introduce Zorble{tag}, a sparse mixture of experts router "
        "for retrieval-augmented generation that halves the cost of expert routing.\n",
        encoding="utf-8",
    )
    return path


def cli_ingest(code: Path, db: Path, path: Path, index_dir: Path | None = None) -> float:
    """Wall seconds of `python -m bot ingest PATH` over `db`, run from `code`."""
    env = {**os.environ, "PAPERBOT_DB_PATH": str(db), "PYTHONPATH": str(code)}
    env.pop("PAPERBOT_INDEX_DIR", None)
    if index_dir is not None:
        env["PAPERBOT_INDEX_DIR"] = str(index_dir)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bot", "ingest", str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0 or "1 paper added" not in done.stdout:
        raise SystemExit(f"ingest failed ({done.returncode}): {done.stdout}{done.stderr}")
    return seconds


async def rankings(engine: Any) -> list[list[tuple[str, float]]]:
    return [await engine.rank_text(query, depth=20) for query in QUERIES]


async def catch_up(code: Path, source: Path, work: Path, own_index: bool) -> tuple[float, bool]:
    """Seconds of the running engine's catch-up, and whether it then ranks as a fresh one."""
    from config.settings import Settings
    from retrieval.engine import Engine

    db = copy_database(source, work)
    index_dir = db.with_name(db.name + ".index")
    running_index = index_dir
    if own_index:
        running_index = work / "running.index"
        shutil.copytree(index_dir, running_index)
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, db_path=db, index_dir=running_index, seeds_dir=work / "no-seeds"
    )
    async with await Engine.open(settings, ingest_seeds=False) as running:
        await rankings(running)
        # A bot done starting up (older trees built autocomplete in the background).
        while not getattr(running.corpus, "labels_ready", True):  # noqa: ASYNC110 - a property
            await asyncio.sleep(0.1)
        cli_ingest(code, db, one_paper_list(work, "catchup"), index_dir)
        started = time.perf_counter()
        changed = await running.live.catch_up()
        seconds = time.perf_counter() - started
        if not changed:
            raise SystemExit("the running engine did not see the ingest")
        caught_up = await rankings(running)
    async with await Engine.open(settings, ingest_seeds=False) as fresh:
        same = caught_up == await rankings(fresh)
    return seconds, same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="database to copy (not modified)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--work", type=Path, help="folder for the copies (default: a temp dir)")
    args = parser.parse_args()
    code = args.code.resolve()
    sys.path.insert(0, str(code))
    work = Path(tempfile.mkdtemp(prefix="paperbot-small-ingest-", dir=args.work))
    load = os.getloadavg()[0]
    print(f"code {code}; database {args.db}; load {load:.1f} on {os.cpu_count()} cores")
    try:
        walls = []
        for run in range(args.runs):
            db = copy_database(args.db, work / f"run-{run}")
            walls.append(cli_ingest(code, db, one_paper_list(db.parent, str(run))))
            verdict = "met" if walls[-1] < TARGET_SECONDS else "NOT met"
            print(f"paperbot ingest (1 paper) run {run + 1}: {walls[-1]:.2f} s wall ({verdict})")
        for own_index, case in ((False, "index saved by the ingester"), (True, "own index")):
            folder = work / ("catchup-own" if own_index else "catchup-shared")
            seconds, same = asyncio.run(catch_up(code, args.db, folder, own_index))
            ranks = "ranks as a fresh engine" if same else "RANKS DIFFERENTLY from a fresh engine"
            print(f"catch-up after another process's ingest ({case}): {seconds:.2f} s; {ranks}")
            if not same:
                return 1
        verdict = "met" if all(wall < TARGET_SECONDS for wall in walls) else "NOT met"
        print(f"target: every 1-paper ingest under {TARGET_SECONDS:g} s: {verdict}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
