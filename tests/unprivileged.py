"""Run a check as a user that file permissions apply to, also when the suite runs as root.

Root ignores file modes, and CI runs as root, so a test that needs a real "permission denied"
runs the code in a child process: as `nobody` (uid and gid 65534, no supplementary groups) when
the suite runs as root, as the current user otherwise. subprocess's own `user=`/`group=` do the
switch, so no tool (runuser, setpriv) and no /etc/passwd entry are needed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOBODY = 65534


def child_user() -> dict[str, Any]:
    """Keyword arguments for `subprocess.run`: drop to nobody when we are root."""
    if os.geteuid() != 0:
        return {}
    return {"user": NOBODY, "group": NOBODY, "extra_groups": []}


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
    return subprocess.run(
        [sys.executable, "-c", prologue + code, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
        **child_user(),
    )


def unprivileged_output(result: subprocess.CompletedProcess[str]) -> str:
    """The child's output after the uid line; fails if the child ran as root or crashed."""
    assert result.returncode == 0, result.stderr
    uid, _, rest = result.stdout.partition("\n")
    assert int(uid) != 0, "the permission check ran as root, where file modes do not apply"
    return rest
