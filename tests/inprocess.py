"""`paperbot ARGS` run in the test's own process: `main()` as a child would see it, for a few
milliseconds instead of the 1.5-2.5 s of CPU a new interpreter costs (imports, numba's cache).

What it reproduces: the environment (replaced whole, then restored), the working folder, stdin,
stdout and stderr as text over bytes like a pipe (`export` writes bytes to sys.stdout.buffer),
a root logger with no handlers (so what `main` logs goes to the captured stderr, as in a new
process), and an exit or uncaught exception turned into the exit status and traceback the
interpreter would give. What it cannot: anything after `main` returns (interpreter shutdown,
threads still printing), signals, the console script itself; tests about those run a real
process.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import subprocess
import sys
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path


def run_main(
    args: Sequence[str], *, folder: Path, environment: Mapping[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """`main(args)` in `folder` with exactly `environment`; what a `subprocess.run(...,
    capture_output=True, text=True)` of `python -m bot ARGS` would have returned."""
    from bot.terminal.cli import main

    saved_environment, saved_folder = dict(os.environ), Path.cwd()
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    # Text over bytes, as a pipe is: `export` writes its file's bytes to sys.stdout.buffer.
    raw_out, raw_err = io.BytesIO(), io.BytesIO()
    out, err = (io.TextIOWrapper(raw, encoding="utf-8") for raw in (raw_out, raw_err))
    saved_stdin = sys.stdin
    os.environ.clear()
    os.environ.update(environment)
    os.chdir(folder)
    root.handlers.clear()
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit:  # argparse, as `python -m bot` would exit
                if isinstance(exit.code, str):
                    print(exit.code, file=sys.stderr)
                code = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
            except Exception:
                traceback.print_exc()
                code = 1
    finally:
        sys.stdin = saved_stdin
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
        os.chdir(saved_folder)
        os.environ.clear()
        os.environ.update(saved_environment)
    return subprocess.CompletedProcess(list(args), code, _read(out, raw_out), _read(err, raw_err))


def _read(stream: io.TextIOWrapper, raw: io.BytesIO) -> str:
    """What `stream` was given, decoded as `subprocess.run(text=True)` decodes a pipe."""
    stream.flush()
    return io.TextIOWrapper(io.BytesIO(raw.getvalue()), encoding="utf-8").read()
