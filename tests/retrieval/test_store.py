"""The SQLite store's own behaviour: its file (WAL, folders, what is not a paperbot database).

Everything the Store Protocol promises is checked on both backends in tests/retrieval/stores/.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from retrieval.errors import StoreError
from retrieval.stores.sqlite import SqliteStore as Store
from retrieval.stores.sqlite_migrations import MIGRATIONS


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


async def test_an_uncreatable_folder_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker" / "file"
    put_file_at(blocker)
    with pytest.raises(StoreError, match="Cannot create the folder"):
        await Store.open(blocker / "paperbot.db")
