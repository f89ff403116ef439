"""The first question of a new install: a serving engine started on an empty numba cache.

    .venv/bin/python benchmarks/first_question.py
    .venv/bin/python benchmarks/first_question.py --code /tmp/before   # another checkout

A child process (with `--code DIR` first on PYTHONPATH) gets a fresh, empty kernel cache
(NUMBA_CACHE_DIR in a temp folder), opens an engine on a throwaway copy of the seed lists as
`paperbot run` does (warm-up in the background), asks one question at once, then closes, which
waits for the warm-up. Target rule: the first answer within 1 s (MET / NOT MET).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 1.0
QUESTION = "mixture of experts routing"


async def _child() -> dict[str, float]:
    from config.settings import Settings
    from retrieval.engine import Engine

    folder = Path(tempfile.mkdtemp(prefix="paperbot-first-question-"))
    settings = Settings(db_path=folder / "p.db", database_url=None, seeds_dir=ROOT / "seeds")
    started = time.perf_counter()
    engine = await Engine.open(settings, warm=True)
    timings = {"open_s": time.perf_counter() - started}
    started = time.perf_counter()
    await engine.ask(QUESTION)
    timings["first_question_s"] = time.perf_counter() - started
    started = time.perf_counter()
    await engine.close()  # waits for the warm-up (the kernel compile) to finish
    timings["warm_up_left_s"] = time.perf_counter() - started
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout to measure")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        print(json.dumps(asyncio.run(_child())))
        return 0
    with tempfile.TemporaryDirectory(prefix="paperbot-numba-") as cache:
        environment = {**os.environ, "PYTHONPATH": str(options.code), "NUMBA_CACHE_DIR": cache}
        done = subprocess.run(
            [sys.executable, __file__, "--child"],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
            cwd=options.code,
        )
    timings = json.loads(done.stdout.strip().splitlines()[-1])
    for name, seconds in timings.items():
        print(f"{name:<18} {seconds:8.2f}")
    verdict = "MET" if timings["first_question_s"] <= TARGET_S else "NOT MET"
    print(f"first answer within {TARGET_S:.0f} s on an empty kernel cache: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
