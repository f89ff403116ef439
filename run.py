#!/usr/bin/env python3
"""Bootstrap paperbot on a machine that has only python3, then run it.

    python3 run.py          # with no Discord token: the chat console; with one: the bot
    python3 run.py test     # lint, type-check and the whole test suite
    python3 run.py ARGS...  # any `paperbot` sub-command, e.g. `python3 run.py ingest FILE`

The virtual environment lives in .venv and is reinstalled only when pyproject.toml changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import threading
import time
import venv
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".paperbot-installed"
# How often a silent step says it is still running.
TICK_SECONDS = 10.0


def _say(line: str) -> None:
    print(f"paperbot: {line}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _ticking(what: str, estimate: str, every: float = TICK_SECONDS) -> Iterator[None]:
    """While the block runs, a line every `every` seconds saying how long `what` has taken, so
    a long silent step (numba prints nothing while it compiles) visibly moves."""
    started = time.monotonic()
    done = threading.Event()

    def tick() -> None:
        while not done.wait(every):
            _say(f"  ... still {what}: {time.monotonic() - started:.0f} s so far ({estimate})")

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()


def _ensure_environment() -> None:
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    _say("first run: setting up in two steps, two or three minutes in all (later runs skip it)")
    if not (BIN / "python").exists():
        _say(f"creating a private Python environment in {VENV} ...")
        venv.EnvBuilder(with_pip=True).create(VENV)
    # pip's own lines (each package as it is fetched and installed) are the progress here.
    _say("step 1 of 2: installing dependencies (about a minute; pip lists each package) ...")
    subprocess.run(
        [str(BIN / "python"), "-m", "pip", "install", "-e", f"{ROOT}[dev]"],
        check=True,
        cwd=ROOT,
    )
    # numba compiles the search kernels at their first call (most of a minute on a small
    # machine): do it now, once, so the first question is not the slow one. Not fatal: without
    # the cache, kernels compile at first use, and a running bot answers meanwhile.
    estimate = "about a minute in all"
    _say("step 2 of 2: preparing the search engine (about a minute) ...")
    with _ticking("preparing the search engine", estimate):
        # From ROOT, so `-m` imports this checkout's engine, not a `retrieval` folder that
        # happens to sit in the caller's working directory.
        kernels = subprocess.run(
            [str(BIN / "python"), "-m", "retrieval.precompile"], check=False, cwd=ROOT
        )
    if kernels.returncode != 0:
        _say("compiling the kernels failed; they compile at first use")
    # Last: an install or compile cut short by Ctrl-C is done again by the next run.
    STAMP.write_text(wanted)


def _test_commands() -> list[list[str]]:
    python = str(BIN / "python")
    return [
        [python, "-m", "ruff", "check", "."],
        [python, "-m", "ruff", "format", "--check", "."],
        # The fake engine is type-checked against EngineAPI too (tests/bot/test_fakes.py).
        [
            python,
            "-m",
            "mypy",
            "retrieval",
            "config",
            "bot",
            "tests/bot/fakes.py",
            "tests/bot/test_fakes.py",
        ],
        # -rs: the skipped tests and their reasons, listed at the end. pytest exits 5 when it
        # collected no tests, which fails like any other non-zero exit.
        [python, "-m", "pytest", "-rs", *sys.argv[2:]],
    ]


def main() -> int:
    # No chdir: paths on the command line (`ingest inputs/x.jsonl`, `-o out.csv`) and a `.env`
    # are the caller's, relative to where they run this, as with `.venv/bin/paperbot`.
    try:
        _ensure_environment()
    except subprocess.CalledProcessError as error:
        print(f"paperbot: installing dependencies failed ({error}); see pip's output above.")
        return 1
    except KeyboardInterrupt:
        # Ctrl-C while installing or compiling: the next run does it again (no stamp yet).
        print("paperbot: interrupted", file=sys.stderr)
        return 130
    if sys.argv[1:2] == ["test"]:
        for command in _test_commands():
            print("$", " ".join(command[2:]), flush=True)
            if subprocess.run(command, cwd=ROOT).returncode != 0:
                return 1
        return 0
    arguments = sys.argv[1:] or ["start"]
    os.execv(str(BIN / "paperbot"), [str(BIN / "paperbot"), *arguments])
    return 0  # not reached: execv replaces this process


if __name__ == "__main__":
    sys.exit(main())
