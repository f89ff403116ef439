"""Two serving processes on one machine over the same database and index files: what the
second one adds to the machine's memory.

    .venv/bin/python benchmarks/two_processes.py --db data/100k.db

Starts two child processes one after the other; each opens `Engine` on the database (mapping
the same index files under PAPERBOT_INDEX_DIR) and answers a few questions, then reports its
/proc/self/smaps_rollup. Pages of the mapped index are shared between them; what the second
process adds is its private memory (Private_Clean + Private_Dirty, its USS). Issue 10's target
is judged by the rule below.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ("second process adds <= 300 MB (its private memory)", "second['private_mb'] <= 300")

CHILD = """
import asyncio, json, sys, time
from pathlib import Path
from config.settings import Settings
from retrieval.engine import Engine

QUESTIONS = ["retrieval augmented generation attacks", "mixture of experts routing",
             "diffusion models for image generation", "graph neural networks oversmoothing"]

def rollup():
    found = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        found[name] = int(value.split()[0]) / 1024
    return found

async def main():
    settings = Settings(_env_file=None, db_path=Path(sys.argv[1]))
    engine = await Engine.open(settings, ingest_seeds=False)
    for question in QUESTIONS * 5:
        await engine.ask(question, limit=10)
    memory = rollup()
    print(json.dumps({"rss_mb": memory["Rss"], "pss_mb": memory["Pss"],
                      "private_mb": memory["Private_Clean"] + memory["Private_Dirty"],
                      "shared_mb": memory["Shared_Clean"] + memory["Shared_Dirty"]}), flush=True)
    sys.stdin.readline()  # stay alive (and mapped) until the parent has measured both
    await engine.close()

asyncio.run(main())
"""


def start(db: Path) -> tuple[subprocess.Popen[str], dict[str, float]]:
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, json.loads(process.stdout.readline())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    args = parser.parse_args()
    first_process, first = start(args.db)
    time.sleep(1)
    second_process, second = start(args.db)
    for process in (first_process, second_process):
        assert process.stdin is not None
        process.stdin.write("\n")
        process.stdin.flush()
        process.wait(timeout=900)  # closing waits for the autocomplete warm-up (a minute at 1M)
    print("| process | RSS MB | PSS MB | private MB | shared MB |\n|---|---|---|---|---|")
    for name, m in (("first", first), ("second", second)):
        print(
            f"| {name} | {m['rss_mb']:,.0f} | {m['pss_mb']:,.0f} | {m['private_mb']:,.0f} |"
            f" {m['shared_mb']:,.0f} |"
        )
    name, rule = TARGET
    verdict = "MET" if eval(rule, {}, {"second": second}) else "NOT MET"
    print(f"\n| target | rule | verdict |\n|---|---|---|\n| {name} | `{rule}` | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
