"""CPU per test: a pytest plugin that records it, and a summary of what it recorded.

Wall time on the shared 2-core machine depends on who else is working; the CPU a test costs
(its worker's, plus the subprocesses it waited for) barely does, so this is what the suite's
speed work (docs/testing.md) compares. The PostgreSQL server's own CPU is not counted.

    PAPERBOT_TEST_CPU=/tmp/cpu PYTHONPATH=.:tools .venv/bin/python -m pytest -p cpu_per_test
    .venv/bin/python tools/cpu_per_test.py /tmp/cpu [N]

The plugin writes one tab-separated file per pytest process (`/tmp/cpu-gw0.tsv`, ...): a line
per test with its wall time, the worker's CPU and its children's CPU in seconds, and when it
ended; a `#start` and `#end` line give the process's own CPU at both ends (what collection and
imports cost is the difference from the tests' sum). The summary prints each worker's totals
and the N most expensive tests and files.
"""

from __future__ import annotations

import collections
import os
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

_out: IO[str] | None = None


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _mark(tag: str) -> None:
    assert _out is not None
    own, children = _cpu()
    _out.write(f"#{tag}\t{time.time():.3f}\t{own:.3f}\t{children:.3f}\n")
    _out.flush()


def pytest_sessionstart(session: pytest.Session) -> None:
    global _out
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    prefix = os.environ.get("PAPERBOT_TEST_CPU", "test-cpu")
    _out = open(f"{prefix}-{worker}.tsv", "w", encoding="utf-8")  # noqa: SIM115 - session-long
    _mark("start")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    own, children = _cpu()
    started = time.monotonic()
    yield
    own_after, children_after = _cpu()
    wall = time.monotonic() - started
    assert _out is not None
    _out.write(
        f"{item.nodeid}\t{wall:.3f}\t{own_after - own:.3f}\t{children_after - children:.3f}"
        f"\t{time.time():.3f}\n"
    )
    _out.flush()


def pytest_sessionfinish(session: pytest.Session) -> None:
    _mark("end")


def summary(prefix: str, top: int) -> None:
    tests: list[tuple[float, float, float, float, str]] = []
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    base = Path(prefix)
    for path in sorted(base.parent.glob(f"{base.name}-*.tsv")):
        marks: dict[str, list[float]] = {}
        own_sum = children_sum = 0.0
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                fields = line.rstrip("\n").split("\t")
                if fields[0].startswith("#"):
                    marks[fields[0]] = [float(value) for value in fields[1:]]
                    continue
                wall, own, children = (float(value) for value in fields[1:4])
                tests.append((own + children, own, children, wall, fields[0]))
                per_file = files[fields[0].split("::")[0]]
                per_file[0] += own + children
                per_file[1] += wall
                per_file[2] += 1
                own_sum += own
                children_sum += children
        line = f"{path}: tests' CPU {own_sum:.1f} s own + {children_sum:.1f} s children"
        if "#start" in marks and "#end" in marks:
            start, end = marks["#start"], marks["#end"]
            line += (
                f"; session {end[0] - start[0]:.1f} s wall, process CPU {end[1]:.1f} s"
                f" ({end[1] - own_sum:.1f} s outside tests)"
            )
        print(line)
    total = sum(test[0] for test in tests)
    print(f"{len(tests)} tests, {total:.1f} s CPU (own + children)")
    print("--- tests by CPU: total own children wall")
    for cpu, own, children, wall, name in sorted(tests, reverse=True)[:top]:
        print(f"{cpu:7.2f} {own:7.2f} {children:7.2f} {wall:7.2f}  {name}")
    print("--- files by CPU: total wall tests")
    for name, (cpu, wall, count) in sorted(files.items(), key=lambda item: -item[1][0])[:top]:
        print(f"{cpu:7.1f} {wall:7.1f} {count:5.0f}  {name}")


def main(argv: list[str]) -> int:
    if not 2 <= len(argv) <= 3:
        print(__doc__, file=sys.stderr)
        return 2
    summary(argv[1], int(argv[2]) if len(argv) == 3 else 40)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
