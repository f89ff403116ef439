"""How long a corpus change takes to reach another running engine (issue: scale-out).

Two engines over one PostgreSQL database, as two bot processes would be: A follows changes
(`live.follow`, LISTEN/NOTIFY plus a slow poll), B ingests a small new list N times. For each
ingest, the time from B's commit returning to A answering from the new corpus is recorded.

    PAPERBOT_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python benchmarks/propagation.py --runs 20
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import asyncpg

from config.settings import Settings
from retrieval.engine import Engine


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--poll", type=float, default=5.0, help="A's slow-poll interval, s")
    args = parser.parse_args()
    base = os.environ["PAPERBOT_TEST_DATABASE_URL"]
    name = f"paperbot_propagation_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(base)
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = base.rsplit("/", 1)[0] + f"/{name}"
    work = Path(tempfile.mkdtemp(prefix="paperbot-propagation-"))
    try:
        seeds = work / "seeds"
        seeds.mkdir()
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None, database_url=url, seeds_dir=seeds, index_dir=work / "index-a"
        )
        other = Settings(  # type: ignore[call-arg]
            _env_file=None, database_url=url, seeds_dir=seeds, index_dir=work / "index-b"
        )
        delays: list[float] = []
        async with await Engine.open(settings) as a, await Engine.open(other) as b:
            follower = asyncio.create_task(a.live.follow(args.poll))
            await asyncio.sleep(0.5)  # LISTEN established
            for run in range(args.runs):
                path = work / f"list-{run}.txt"
                word = f"zqx{run}propagation"
                path.write_text(f"Run {run} 2026\n\nA paper about {word} and more.\n")
                await b.ingest([path])
                committed = time.perf_counter()
                while not (await a.ask(word)).hits:  # noqa: ASYNC110 (polling is the measurement)
                    await asyncio.sleep(0.005)
                delays.append((time.perf_counter() - committed) * 1000)
            follower.cancel()
        delays.sort()
        print(
            f"{len(delays)} ingests: change visible in the other engine after "
            f"p50 {statistics.median(delays):.0f} ms, max {delays[-1]:.0f} ms "
            f"(slow poll every {args.poll:g} s; load {os.getloadavg()[0]:.1f})"
        )
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
