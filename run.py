#!/usr/bin/env python3
"""Bootstrap paperbot on a machine that has only python3, then run it.

    python3 run.py          # with no Discord token: the chat console; with one: the bot
    python3 run.py test     # lint, type-check and the whole test suite
    python3 run.py ARGS...  # any `paperbot` sub-command, e.g. `python3 run.py ingest FILE`

The virtual environment lives in .venv and is reinstalled only when pyproject.toml changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".paperbot-installed"


def _ensure_environment() -> None:
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not (BIN / "python").exists():
        print("paperbot: creating the virtual environment in .venv ...", file=sys.stderr)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("paperbot: installing dependencies (first run only) ...", file=sys.stderr)
    subprocess.run(
        [str(BIN / "python"), "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[dev]"],
        check=True,
    )
    # numba compiles the search kernels at their first call (most of a minute on a small
    # machine): do it now, once, so the first question is not the slow one. Not fatal: without
    # the cache, kernels compile at first use, and a running bot answers meanwhile.
    print("paperbot: compiling the search kernels (first run only) ...", file=sys.stderr)
    kernels = subprocess.run([str(BIN / "python"), "-m", "retrieval.precompile"], check=False)
    if kernels.returncode != 0:
        print("paperbot: compiling the kernels failed; they compile at first use", file=sys.stderr)
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
    os.chdir(ROOT)
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
            if subprocess.run(command).returncode != 0:
                return 1
        return 0
    arguments = sys.argv[1:] or ["start"]
    os.execv(str(BIN / "paperbot"), [str(BIN / "paperbot"), *arguments])
    return 0  # not reached: execv replaces this process


if __name__ == "__main__":
    sys.exit(main())
