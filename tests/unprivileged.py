"""Run a check as a user that file permissions apply to, also when the suite runs as root.

Root ignores file modes, and CI runs as root, so a test that needs a real "permission denied"
runs the code in a child process: as `nobody` (uid and gid 65534, no supplementary groups) when
the suite runs as root, as the current user otherwise. subprocess's own `user=`/`group=` do the
switch, so no tool (runuser, setpriv) and no /etc/passwd entry are needed.

nobody must reach the interpreter, its library and standard library, the packages and this
checkout. A checkout under a folder only root may enter (/root/..., a `mktemp -d` folder), with
its .venv inside, is out of nobody's reach. Then the child is given everything through
descriptors root opened (`/proc/self/fd/N` leads to the file itself, whatever the folders above
it allow), and nothing is copied. Which way works is tried once, up front, with an import of
this checkout's `retrieval`. Only if neither does do the tests skip, with the reason (and fail
in CI, whose checkout nobody can reach).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOBODY = 65534


def child_user() -> dict[str, Any]:
    """Keyword arguments for `subprocess.run`: drop to nobody when we are root."""
    if os.geteuid() != 0:
        return {}
    return {"user": NOBODY, "group": NOBODY, "extra_groups": []}


@dataclass(frozen=True, slots=True)
class ChildPython:
    """A Python that `child_user()` can start on this checkout: the interpreter, what to add to
    the child's environment, and the descriptors the child must inherit."""

    executable: str
    env: Mapping[str, str]
    pass_fds: tuple[int, ...] = field(default=())

    def run(
        self, args: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        """`python ARGS` as `child_user()`, in `cwd`, with `env` and this Python's settings."""
        return subprocess.run(
            [self.executable, *args],
            capture_output=True,
            text=True,
            cwd=cwd,
            env={**env, **self.env},
            timeout=timeout,
            check=False,
            pass_fds=self.pass_fds,
            **child_user(),
        )


def direct(root: Path = ROOT, executable: str = sys.executable) -> ChildPython:
    """The interpreter and the checkout `root` by their paths."""
    return ChildPython(executable, {"PYTHONPATH": str(root)})


def through_descriptors(root: Path = ROOT, executable: str = sys.executable) -> ChildPython:
    """The interpreter, its libraries and the checkout `root` by descriptors opened here (kept
    open for the session: children started later inherit them)."""
    opened: dict[str, str] = {}

    def through(path: str) -> str:
        if path not in opened:
            opened[path] = f"/proc/self/fd/{os.open(path, os.O_PATH)}"
        return opened[path]

    stdlib = sorted({sys.base_prefix, sys.base_exec_prefix})
    # The packages: this checkout first, then the parent's own path (the venv's site-packages
    # and what its .pth files added), without the standard library that PYTHONHOME gives.
    packages = [str(root)] + [
        entry
        for entry in sys.path
        if entry
        and Path(entry).is_dir()
        and not any(Path(entry).is_relative_to(prefix) for prefix in stdlib)
    ]
    env = {
        "PYTHONHOME": os.pathsep.join(through(prefix) for prefix in stdlib),
        "PYTHONPATH": os.pathsep.join(through(entry) for entry in dict.fromkeys(packages)),
    }
    executable = through(os.path.realpath(executable))
    # libpython, when the interpreter links it from a folder nobody cannot enter (pyenv's).
    library = sysconfig.get_config_var("LIBDIR")
    if sysconfig.get_config_var("Py_ENABLE_SHARED") and library and Path(library).is_dir():
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            filter(None, (through(library), os.environ.get("LD_LIBRARY_PATH")))
        )
    descriptors = tuple(int(path.rsplit("/", 1)[1]) for path in opened.values())
    return ChildPython(executable, env, descriptors)


def problem(child: ChildPython) -> str | None:
    """Why `child` cannot import this checkout's `retrieval` as `child_user()`, or None."""
    expected = child.env["PYTHONPATH"].split(os.pathsep)[0] + "/retrieval/__init__.py"
    try:
        result = child.run(
            ["-c", "import retrieval; print(retrieval.__file__)"],
            cwd=Path("/"),
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            timeout=60,
        )
    except OSError as error:  # the interpreter itself cannot be started
        return f"{type(error).__name__}: {error}"
    if result.returncode != 0:
        lines = result.stderr.strip().splitlines() or [f"exit status {result.returncode}"]
        return lines[-1]
    if result.stdout.strip() != expected:
        # An editable install's finder can hand the child another checkout's code.
        return f"it imported {result.stdout.strip()}, not {expected}"
    return None


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}


@functools.cache
def _choose() -> tuple[ChildPython | None, str]:
    if os.geteuid() != 0:
        return direct(), ""
    by_path = problem(direct())
    if by_path is None:
        return direct(), ""
    child = through_descriptors()
    by_descriptor = problem(child)
    if by_descriptor is None:
        return child, ""
    return None, (
        f"nobody (uid {NOBODY}) cannot run this checkout's Python ({ROOT}): directly, "
        f"{by_path}; through open descriptors, {by_descriptor}"
    )


def child_python() -> ChildPython:
    """The Python to run unprivileged checks with; skips the calling test (fails it in CI)
    with the reason when nobody cannot run this checkout at all."""
    child, reason = _choose()
    if child is None:
        if _in_ci():
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return child


@contextmanager
def reachable_folder() -> Iterator[Path]:
    """A temporary folder the child can reach: pytest's own tmp_path is private to root."""
    folder = Path(tempfile.mkdtemp(prefix="paperbot-perm-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for path in (folder, *folder.rglob("*")):
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(folder)


def run_python(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run `code` (with `args` as sys.argv[1:]) in a child Python as `child_user()`.

    The child's first stdout line is its effective uid, so callers can assert that the check
    really ran without root's privileges.
    """
    prologue = "import os; print(os.geteuid(), flush=True)\n"
    return child_python().run(
        ["-c", prologue + code, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )


def unprivileged_output(result: subprocess.CompletedProcess[str]) -> str:
    """The child's output after the uid line; fails if the child ran as root or crashed."""
    assert result.returncode == 0, result.stderr
    uid, _, rest = result.stdout.partition("\n")
    assert int(uid) != 0, "the permission check ran as root, where file modes do not apply"
    return rest
