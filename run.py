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
import tempfile
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
def _ticking(what: str, estimate: str, every: float = TICK_SECONDS) -> Iterator[list[float]]:
    """While the block runs, after each `every` seconds of silence a line saying how long `what`
    has taken, so a long quiet step visibly moves. The block sets `[0]` of what it is given to
    time.monotonic() whenever it prints something itself."""
    started = time.monotonic()
    last = [started]
    done = threading.Event()

    def tick() -> None:
        while not done.wait(min(every, 1.0)):
            now = time.monotonic()
            if now - last[0] >= every:
                _say(f"  ... still {what}: {now - started:.0f} s so far ({estimate})")
                last[0] = now

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        yield last
    finally:
        done.set()
        ticker.join()


def _run_step(command: list[str], what: str, estimate: str, every: float = TICK_SECONDS) -> int:
    """Run `command` from ROOT (so `-m` imports this checkout, not a folder of the caller's),
    its output passed through to stderr (stdout may be a command's JSON), with a line after
    each `every` seconds of silence; its exit status."""
    with _ticking(what, estimate, every) as last:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
        try:
            assert process.stdout is not None
            for line in process.stdout:
                last[0] = time.monotonic()
                sys.stderr.write(line)
                sys.stderr.flush()
            return process.wait()
        finally:
            if process.poll() is None:  # Ctrl-C reached it too; let it stop
                process.wait()


def _ensure_environment(*, dev: bool = False) -> None:
    """The environment for running paperbot, and with `dev` for testing it too (ruff, mypy,
    pytest, ...: a user who only runs paperbot does not download them). The stamp records which;
    a test environment serves a plain run as well."""
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamped = STAMP.read_text() if STAMP.exists() else ""
    if stamped == f"{wanted} dev" or (stamped == wanted and not dev):
        return
    python = str(BIN / "python")
    if stamped == wanted:
        # paperbot is installed and its kernels compiled: only the test tools are missing.
        _say(
            "adding the test tools to .venv (ruff, mypy, pytest and the rest of the dev extra; "
            "about a minute, pip lists each package) ..."
        )
        _install(python, f"{ROOT}[dev]", "adding the test tools", "about a minute in all")
        STAMP.write_text(f"{wanted} dev")
        return
    if (BIN / "python").exists():
        _say(
            "pyproject.toml changed (or the last setup was cut short): updating .venv in two "
            "steps, up to four minutes in all (later runs skip it)"
        )
    else:
        _say("first run: setting up in two steps, two to four minutes in all (later runs skip it)")
        _say(f"creating a private Python environment in {VENV} (about half a minute) ...")
        with _ticking("creating the environment", "about half a minute in all"):
            venv.EnvBuilder(with_pip=True).create(VENV)
    # pip's own lines (each package as it is fetched) are the progress here; unpacking them all
    # ("Installing collected packages") is a minute without a line, which the ticks fill.
    _say("step 1 of 2: installing dependencies (one to two minutes; pip lists each package) ...")
    target = f"{ROOT}[dev]" if dev else str(ROOT)
    _install(python, target, "installing dependencies", "one to two minutes in all")
    # numba compiles the scoring kernels at their first call (5-12 s on a small machine): do it
    # now, once, so the first question is not the slow one. Not fatal: without the cache, the
    # kernels compile at the first question.
    _say("step 2 of 2: preparing the search engine (about ten seconds) ...")
    compile_kernels = [python, "-m", "retrieval.snapshot.precompile"]
    if _run_step(compile_kernels, "preparing the search engine", "about ten seconds in all") != 0:
        _say("compiling the kernels failed; they compile at first use")
    # Last: an install or compile cut short by Ctrl-C is done again by the next run.
    STAMP.write_text(f"{wanted} dev" if dev else wanted)


def _install(python: str, target: str, what: str, estimate: str) -> None:
    """pip install -e `target` into .venv, pip's lines passed through; raises on failure."""
    install = [python, "-m", "pip", "install", "-e", target]
    status = _run_step(install, what, estimate)
    if status != 0:
        raise subprocess.CalledProcessError(status, install)


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
        # collected no tests, which fails like any other non-zero exit. -n auto: one pytest
        # worker per core (pytest-xdist; each has its own PostgreSQL database); `-n 0` after
        # `test` runs in one process, e.g. to debug.
        [python, "-m", "pytest", "-rs", "-n", "auto", *sys.argv[2:]],
    ]


def _lower_priority() -> None:
    os.nice(10)


def _test_environment() -> dict[str, str]:
    """The environment of the test steps: this one, with bytecode caching on. With
    PYTHONDONTWRITEBYTECODE set, every pytest worker compiles the project again and rewrites every
    test module's asserts, and every `python -m bot` a test starts compiles the project's modules
    (docs/testing.md has what that costs); the `__pycache__` folders written instead are ignored
    by git."""
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    return environment


def _run_tests(commands: list[list[str]]) -> int:
    """ruff's checks one after the other (a second or two; a lint error is the usual failure, so
    it stops there), then mypy beside pytest: mypy on an empty cache (a fresh checkout) is about
    20 s of CPU, which pytest's waits on subprocesses and PostgreSQL leave room for. mypy runs at
    a lower priority with its output held in a file, printed under its own `$` line after
    pytest's; the run fails if either fails, and says which."""
    *lint, typecheck, tests = commands
    environment = _test_environment()
    for command in lint:
        print("$", " ".join(command[2:]), flush=True)
        if subprocess.run(command, cwd=ROOT, env=environment).returncode != 0:
            return 1
    shown = " ".join(typecheck[2:])
    print(f"$ {shown}  (beside pytest; its output follows pytest's)", flush=True)
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as held:
        checker = subprocess.Popen(
            typecheck,
            cwd=ROOT,
            env=environment,
            stdout=held,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=_lower_priority if os.name == "posix" else None,
        )
        try:
            print("$", " ".join(tests[2:]), flush=True)
            tested = subprocess.run(tests, cwd=ROOT, env=environment).returncode
        finally:
            checked = checker.wait()  # Ctrl-C reached mypy too; let it stop
        held.seek(0)
        print("$", shown, flush=True)
        print(held.read(), end="", flush=True)
    failed = [name for name, code in (("mypy", checked), ("pytest", tested)) if code != 0]
    if failed:
        print(f"paperbot: test failed: {' and '.join(failed)}", flush=True)
        return 1
    return 0


def main() -> int:
    # No chdir: paths on the command line (`ingest inputs/x.jsonl`, `-o out.csv`) and a `.env`
    # are the caller's, relative to where they run this, as with `.venv/bin/paperbot`.
    testing = sys.argv[1:2] == ["test"]
    try:
        _ensure_environment(dev=testing)
    except subprocess.CalledProcessError as error:
        print(f"paperbot: installing dependencies failed ({error}); see pip's output above.")
        return 1
    except KeyboardInterrupt:
        # Ctrl-C while installing or compiling: the next run does it again (no stamp yet).
        print("paperbot: interrupted", file=sys.stderr)
        return 130
    if testing:
        return _run_tests(_test_commands())
    arguments = sys.argv[1:] or ["start"]
    os.execv(str(BIN / "paperbot"), [str(BIN / "paperbot"), *arguments])
    return 0  # not reached: execv replaces this process


if __name__ == "__main__":
    sys.exit(main())
