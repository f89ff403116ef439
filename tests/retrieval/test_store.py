"""The SQLite store's own behaviour: its file (WAL, folders, what is not a paperbot database).

Everything the Store Protocol promises is checked on both backends in tests/retrieval/stores/.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from queue import SimpleQueue
from typing import Any

import aiosqlite.core
import pytest

from retrieval.errors import StoreError
from retrieval.stores.sqlite import SqliteStore as Store
from retrieval.stores.sqlite_migrations import MIGRATIONS
from tests.waits import HANG_SECONDS


def make_folder(path: Path) -> None:
    path.mkdir(parents=True)


def dump(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as connection:
        return list(connection.iterdump())


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "paperbot.db"


# -- opening and migrations -------------------------------------------------------------------


async def test_open_creates_folders_uses_wal_and_sets_schema_version(db_path: Path) -> None:
    async with await Store.open(db_path):
        with closing(sqlite3.connect(db_path)) as connection:
            assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert connection.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def put_file_at(path: Path) -> None:
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is a text file, not SQLite\n" * 200)


async def test_a_file_that_is_not_a_database_is_a_one_line_store_error(db_path: Path) -> None:
    put_file_at(db_path)
    with pytest.raises(StoreError) as caught:
        await Store.open(db_path)
    message = str(caught.value)
    assert str(db_path) in message
    assert "\n" not in message
    assert "not a usable paperbot database" in message


async def test_another_programs_sqlite_database_is_refused_untouched(db_path: Path) -> None:
    make_folder(db_path.parent)
    with closing(sqlite3.connect(db_path)) as connection:
        connection.execute("CREATE TABLE notes (body TEXT)")
        connection.commit()
    before = dump(db_path)
    with pytest.raises(StoreError, match="another program's SQLite database"):
        await Store.open(db_path)
    assert dump(db_path) == before
    with closing(sqlite3.connect(db_path)) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


async def test_a_folder_at_the_database_path_is_a_store_error(db_path: Path) -> None:
    make_folder(db_path)
    with pytest.raises(StoreError, match="Cannot open the database") as caught:
        await Store.open(db_path)
    assert str(db_path) in str(caught.value)


def test_a_database_that_cannot_be_opened_leaves_no_thread_behind(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27's flake, made certain. aiosqlite, when its worker thread cannot open the file,
    queues that thread's stop without waiting for it; a loaded machine could run the thread
    after `asyncio.run` had closed the loop, and it printed "Event loop is closed" with a
    traceback under the command's one-line error. Here every aiosqlite worker is held after
    its first call (opening the file) until the loop has closed, as a loaded machine may hold
    it, and no thread may fail or outlive the open. (It wraps aiosqlite's worker function by
    its private name: a new aiosqlite that renames it fails this test, never passes it.)"""
    make_folder(db_path)
    release = threading.Event()
    worker = aiosqlite.core._connection_worker_thread

    def late_worker(tx: SimpleQueue[Any]) -> None:
        class Late:
            calls = 0

            def get(self) -> Any:
                item = tx.get()
                self.calls += 1
                if self.calls > 1:
                    release.wait(timeout=HANG_SECONDS)
                return item

        worker(Late())  # type: ignore[arg-type]

    monkeypatch.setattr(aiosqlite.core, "_connection_worker_thread", late_worker)
    failures: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    before = set(threading.enumerate())

    async def open_it() -> None:
        with pytest.raises(StoreError, match="Cannot open the database"):
            await Store.open(db_path)

    asyncio.run(open_it())  # the loop is closed when this returns
    release.set()
    started = set(threading.enumerate()) - before
    for thread in started:
        thread.join(timeout=HANG_SECONDS)
    assert [thread for thread in started if thread.is_alive()] == []
    assert [f"{failure.thread}: {failure.exc_value!r}" for failure in failures] == []


async def test_an_uncreatable_folder_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker" / "file"
    put_file_at(blocker)
    with pytest.raises(StoreError, match="Cannot create the folder"):
        await Store.open(blocker / "paperbot.db")
