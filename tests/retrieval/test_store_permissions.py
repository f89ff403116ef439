"""The store refuses a database it cannot write, checked without root's privileges.

Kept apart from test_store.py because it runs the store in a child process as a non-root user
(tests/unprivileged.py): root ignores file modes, and CI runs as root. The last test checks that
such a child runs wherever the checkout lives.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

from retrieval.stores.sqlite import SqliteStore as Store
from tests.unprivileged import (
    direct,
    problem,
    reachable_folder,
    run_python,
    through_descriptors,
    unprivileged_output,
)

OPEN = """
import asyncio, sys
from pathlib import Path
from retrieval.errors import StoreError
from retrieval.stores.sqlite import SqliteStore as Store

async def main() -> None:
    try:
        store = await Store.open(Path(sys.argv[1]))
    except StoreError as error:
        print("StoreError:", error)
    else:
        await store.close()
        print("opened")

asyncio.run(main())
"""


async def _create(path: Path) -> None:
    async with await Store.open(path):
        pass


def _database(folder: Path, mode: int) -> Path:
    """A closed database whose file has `mode`, in a folder anyone may write to."""
    db_path = folder / "data" / "paperbot.db"
    asyncio.run(_create(db_path))
    db_path.parent.chmod(0o777)
    for path in db_path.parent.iterdir():
        path.chmod(0o666)
    db_path.chmod(mode)
    return db_path


def test_a_read_only_database_is_refused_at_open() -> None:
    with reachable_folder() as folder:
        db_path = _database(folder, 0o444)
        output = unprivileged_output(run_python(OPEN, str(db_path), cwd=folder))
    assert output.startswith("StoreError: "), output
    assert "is read-only" in output and str(db_path) in output, output


def test_a_writable_database_opens_in_the_same_child() -> None:
    # The control: the same child, user and folder open the database when only the file's mode
    # differs, so the refusal above is about that mode and nothing else.
    with reachable_folder() as folder:
        db_path = _database(folder, 0o666)
        output = unprivileged_output(run_python(OPEN, str(db_path), cwd=folder))
    assert output == "opened\n", output


def test_the_unprivileged_child_runs_a_checkout_in_a_folder_only_root_may_enter(
    tmp_path: Path,
) -> None:
    # A checkout (here its `retrieval` package) and the interpreter (a copy, as in a `.venv`
    # inside the checkout) in a folder only its owner may enter, like /root/... or a
    # `mktemp -d` folder: nobody cannot reach them by path, and the permission checks above
    # used to fail there with PermissionError on the interpreter.
    private = tmp_path / "private"
    checkout = private / "checkout"
    (checkout / "retrieval").mkdir(parents=True)
    (checkout / "retrieval" / "__init__.py").write_text("", encoding="utf-8")
    interpreter = private / "bin" / "python"
    interpreter.parent.mkdir()
    shutil.copy2(os.path.realpath(sys.executable), interpreter)
    private.chmod(0o700)
    if os.geteuid() == 0:  # the situation the suite met; as any other user it is just the owner
        assert problem(direct(checkout, str(interpreter))) is not None
    assert problem(through_descriptors(checkout, str(interpreter))) is None
