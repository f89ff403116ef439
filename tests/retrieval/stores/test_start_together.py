"""Processes that open one new database at the same moment all start, on both backends.

The deployment the scaling guide describes (N processes started at once by a systemd template)
once lost a process on PostgreSQL: it checked the schema in two reads, another process's first
migration committed in between, and the half-seen paperbot database passed for another
program's. Two checks here: a deterministic one, where another process migrates the database
after each statement in turn, and real processes opening a fresh database together, repeated.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
import pytest

from retrieval.stores import postgres_migrations, sqlite_migrations
from retrieval.stores.postgres_connect import describe
from tests.retrieval.stores.conftest import (
    HOW_TO_ENABLE,
    URL_VARIABLE,
    empty_schema,
    postgres_required,
    run_apart,
)
from tests.unprivileged import ROOT
from tests.waits import HANG_SECONDS

_STATEMENTS = {"execute", "fetch", "fetchval", "execute_fetchall"}


class _Interleaved:
    """A connection that, once its `after`-th statement has run, lets `other` run (another
    process acting between this one's statements); everything else is delegated."""

    def __init__(self, inner: Any, after: int, other: Callable[[], Awaitable[bool]]) -> None:
        self._inner = inner
        self._after = after
        self._other = other
        self.statements = 0
        self.other_ran = False

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._inner, name)
        if name not in _STATEMENTS:
            return found

        async def statement(*args: Any, **kwargs: Any) -> Any:
            result = await found(*args, **kwargs)
            self.statements += 1
            if self.statements == self._after:
                self.other_ran = await self._other()
            return result

        return statement


async def _postgres_with_another_after(url: str, after: int) -> _Interleaved:
    """Migrate a fresh database while another process migrates it after statement `after`."""
    where = describe(url)
    await empty_schema(url)
    mine, theirs = await asyncpg.connect(url), await asyncpg.connect(url)
    latest = len(postgres_migrations.MIGRATIONS)

    async def other_process() -> bool:
        # As another paperbot would: it can migrate only when this one holds no lock.
        lock = postgres_migrations.MIGRATION_LOCK
        if not await theirs.fetchval("SELECT pg_try_advisory_lock($1)", lock):
            return False
        try:
            await postgres_migrations.migrate(theirs, where)
        finally:
            await theirs.execute("SELECT pg_advisory_unlock($1)", lock)
        return True

    try:
        connection = _Interleaved(mine, after, other_process)
        assert await postgres_migrations.migrate(connection, where) == latest  # type: ignore[arg-type]
        assert await theirs.fetch("SELECT version FROM paperbot_schema") == [(latest,)]
    finally:
        await mine.close()
        await theirs.close()
    return connection


async def test_postgres_whichever_statement_another_migration_commits_after_open_succeeds(
    pg_url: str,
) -> None:
    interleavings = 0
    for after in range(1, 100):
        connection = await _postgres_with_another_after(pg_url, after)
        interleavings += connection.other_ran
        # Once this one holds the migration lock it keeps it to the end, so no later statement
        # can be followed by another process's migration: every interleaving has been tried.
        if connection.statements <= after or not connection.other_ran:
            break
    # The case that failed: the other process's first migration lands right after this one's
    # first read.
    assert interleavings >= 1


async def _sqlite_with_another_after(path: Path, after: int) -> _Interleaved:
    """Migrate a new database file while another process migrates it after statement `after`."""
    mine = await aiosqlite.connect(path, isolation_level=None)
    theirs = await aiosqlite.connect(path, isolation_level=None)

    async def other_process() -> bool:
        # It cannot write while this one holds the write lock (the migration's BEGIN
        # IMMEDIATE): it would wait there, so it is let in only between transactions.
        if mine.in_transaction:
            return False
        await sqlite_migrations.migrate(theirs, str(path))
        return True

    try:
        for db in (mine, theirs):  # no fsync: a test database, one per interleaving
            await db.execute("PRAGMA synchronous = OFF")
        connection = _Interleaved(mine, after, other_process)
        latest = len(sqlite_migrations.MIGRATIONS)
        assert await sqlite_migrations.migrate(connection, str(path)) == latest  # type: ignore[arg-type]
    finally:
        await mine.close()
        await theirs.close()
    with closing(sqlite3.connect(path)) as check:
        assert check.execute("PRAGMA user_version").fetchone() == (latest,)
    return connection


async def test_sqlite_whichever_statement_another_migration_commits_after_open_succeeds(
    tmp_path: Path,
) -> None:
    interleavings = 0
    for after in range(1, 1000):
        connection = await _sqlite_with_another_after(tmp_path / f"{after}.db", after)
        interleavings += connection.other_ran
        if connection.statements <= after:
            break
    assert interleavings >= 1


# -- real processes -----------------------------------------------------------------------------

# Imports once, says "ready", then opens (and closes) the store named by each line it reads (after
# the pause the line gives), and answers "opened" or the one-line error. Reused across rounds and
# both backends, so that a round costs an open, not eight interpreter start-ups.
_CHILD = """
import asyncio, sys
from pathlib import Path
from retrieval.errors import StoreError
from retrieval.stores.postgres import PostgresStore
from retrieval.stores.sqlite import SqliteStore

async def open_and_close(target, wait):
    await asyncio.sleep(wait)
    try:
        if target.startswith("postgresql://"):
            store = await PostgresStore.open(target)
        else:
            store = await SqliteStore.open(Path(target))
    except StoreError as error:
        return f"StoreError: {error}"
    await store.close()
    return "opened"

print("ready", flush=True)
for line in sys.stdin:
    target, wait = line.rsplit(" ", 1)
    print(asyncio.run(open_and_close(target, float(wait))), flush=True)
"""
_PROCESSES = 8
_ROUNDS = 6
# Half the processes start at the same instant; the others a little later, one after another, so
# that across rounds they also arrive while the first one is between two migrations. How much
# later changes only which interleavings a round tries, never whether the test passes.
_STAGGER_SECONDS = 0.03


@contextlib.contextmanager
def _children() -> Iterator[list[subprocess.Popen[str]]]:
    """_PROCESSES children running _CHILD, imported and waiting for a line each."""
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(_PROCESSES)
    ]
    try:
        for child in children:
            assert child.stdout is not None and child.stdout.readline() == "ready\n"
        yield children
    finally:
        for child in children:
            if child.stdin is not None:
                child.stdin.close()
        for child in children:
            child.wait(timeout=HANG_SECONDS)


def _open_together(
    children: list[subprocess.Popen[str]], fresh_database: Callable[[int], str]
) -> list[list[str]]:
    """Each round, every process is told `fresh_database(round)` at once; their answers."""
    answers = []
    for round_number in range(_ROUNDS):
        target = fresh_database(round_number)
        for number, child in enumerate(children):  # all imported and waiting
            assert child.stdin is not None
            wait = max(0, number - _PROCESSES // 2) * _STAGGER_SECONDS
            child.stdin.write(f"{target} {wait}\n")
            child.stdin.flush()
        answers.append([child.stdout.readline().strip() for child in children])  # type: ignore[union-attr]
    return answers


async def _pg_versions(url: str) -> list[tuple[int, ...]]:
    connection = await asyncpg.connect(url)
    try:
        return [tuple(row) for row in await connection.fetch("SELECT version FROM paperbot_schema")]
    finally:
        await connection.close()


def _sqlite_rounds(children: list[subprocess.Popen[str]], folder: Path) -> None:
    paths = [folder / f"round-{n}" / "paperbot.db" for n in range(_ROUNDS)]
    answers = _open_together(children, lambda round_number: str(paths[round_number]))
    assert answers == [["opened"] * _PROCESSES] * _ROUNDS
    for path in paths:
        with closing(sqlite3.connect(path)) as check:
            assert check.execute("PRAGMA user_version").fetchone() == (
                len(sqlite_migrations.MIGRATIONS),
            )


def _postgres_rounds(children: list[subprocess.Popen[str]], url: str) -> None:
    latest = len(postgres_migrations.MIGRATIONS)
    versions = []

    def fresh_database(round_number: int) -> str:
        if round_number:  # what the previous round left
            versions.append(run_apart(_pg_versions(url)))
        run_apart(empty_schema(url))
        return url

    answers = _open_together(children, fresh_database)
    versions.append(run_apart(_pg_versions(url)))
    assert answers == [["opened"] * _PROCESSES] * _ROUNDS
    assert versions == [[(latest,)]] * _ROUNDS


@pytest.mark.slow
def test_eight_processes_opening_a_fresh_database_together_all_start(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """SQLite's rounds, then PostgreSQL's, by the same eight processes: what costs here is eight
    interpreters importing the stores, not a round (one test, so that one pytest-xdist worker
    runs both). Without PAPERBOT_TEST_DATABASE_URL the PostgreSQL half skips as the other
    PostgreSQL cases do, after the SQLite half has passed."""
    with _children() as children:
        _sqlite_rounds(children, tmp_path)
        if not os.environ.get(URL_VARIABLE, "").strip():
            if postgres_required():
                pytest.fail(f"PostgreSQL cases must run in CI: {HOW_TO_ENABLE}", pytrace=False)
            pytest.skip(f"the SQLite half passed; {HOW_TO_ENABLE}")
        _postgres_rounds(children, request.getfixturevalue("pg_url_sync"))
