"""Both backends behind one fixture: `store` is a SqliteStore on tmp_path, then a PostgresStore.

PostgreSQL cases run on a database created for this test process from PAPERBOT_TEST_DATABASE_URL
(named after its pid, so each pytest-xdist worker has its own; dropped at the end), its schema
emptied before each test. Without the variable they skip with
one line; in CI (CI or PAPERBOT_REQUIRE_POSTGRES=1) they fail instead, so they can never be
skipped there unnoticed.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from retrieval.stores.postgres import PostgresStore
from retrieval.stores.postgres_connect import describe
from retrieval.stores.postgres_migrations import MIGRATIONS as PG_MIGRATIONS
from retrieval.stores.postgres_migrations import TABLES
from retrieval.stores.sqlite import SqliteStore
from retrieval.stores.sqlite_migrations import MIGRATIONS as SQLITE_MIGRATIONS
from retrieval.stores.store import Store
from tests.waits import HANG_SECONDS

URL_VARIABLE = "PAPERBOT_TEST_DATABASE_URL"
HOW_TO_ENABLE = (
    f"set {URL_VARIABLE}=postgresql://postgres@127.0.0.1:5432/postgres to run the PostgreSQL cases"
)
_T = TypeVar("_T")


def postgres_required() -> bool:
    """CI must run the PostgreSQL cases: a skip there would hide that they never ran."""
    ci = os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}
    return ci or os.environ.get("PAPERBOT_REQUIRE_POSTGRES") == "1"


def run_apart(work: Awaitable[_T]) -> _T:
    """Run a coroutine on a loop of its own, leaving pytest-asyncio's loop alone."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(work)
    finally:
        loop.close()


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def with_database(url: str, database: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


def needs_postgres(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.params.get("backend") == "postgres":
        return True
    names = {"pg_url", "pg_url_sync", "pg_server_url"}
    return bool(names & set(getattr(item, "fixturenames", ())))


def pytest_runtest_setup(item: pytest.Item) -> None:
    # Raised here rather than in a fixture so that every skipped case reports this one place:
    # `pytest -rs` then prints a single line, not one per case.
    if needs_postgres(item) and not os.environ.get(URL_VARIABLE, "").strip():
        if postgres_required():
            pytest.fail(f"PostgreSQL cases must run in CI: {HOW_TO_ENABLE}", pytrace=False)
        pytest.skip(HOW_TO_ENABLE)


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """A database of this run's own on the server PAPERBOT_TEST_DATABASE_URL names."""
    admin = os.environ.get(URL_VARIABLE, "").strip()
    if not admin:  # pytest_runtest_setup skipped or failed the case already
        pytest.fail(HOW_TO_ENABLE)
    name = f"paperbot_test_{os.getpid()}_{secrets.token_hex(4)}"

    async def create() -> None:
        connection = await asyncpg.connect(admin, timeout=HANG_SECONDS)
        try:
            # Databases left by runs that were killed before they could drop theirs.
            for row in await connection.fetch(
                "SELECT datname FROM pg_database WHERE datname LIKE 'paperbot\\_test\\_%'"
            ):
                if not _process_alive(int(row[0].split("_")[2])):
                    await connection.execute(f'DROP DATABASE IF EXISTS "{row[0]}" WITH (FORCE)')
            await connection.execute(f'CREATE DATABASE "{name}"')
        finally:
            await connection.close()

    async def drop() -> None:
        connection = await asyncpg.connect(admin, timeout=HANG_SECONDS)
        try:
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await connection.close()

    try:
        run_apart(create())
    except (OSError, asyncpg.PostgresError) as error:
        pytest.fail(f"{URL_VARIABLE} is set but its server cannot be used: {error}")
    try:
        yield with_database(admin, name)
    finally:
        run_apart(drop())


async def empty_schema(url: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
    finally:
        await connection.close()


@pytest.fixture
async def pg_url(pg_server_url: str) -> str:
    """The run's database with an empty schema: each test starts from nothing."""
    await empty_schema(pg_server_url)
    return pg_server_url


@pytest.fixture
def pg_url_sync(pg_server_url: str) -> str:
    """`pg_url` for synchronous tests (those that call `asyncio.run`, like the CLI)."""
    run_apart(empty_schema(pg_server_url))
    return pg_server_url


class Backend:
    """What a backend-neutral test needs beyond the Protocol: reopening, a snapshot of
    everything stored, and the schema version knob."""

    name: str
    integrity_error: type[Exception]
    latest: int  # how many migrations a current database has had
    where: str  # how the store's messages name the database

    async def open(self) -> Store:
        raise NotImplementedError

    async def snapshot(self) -> list[Any]:
        raise NotImplementedError

    async def schema_version(self) -> int:
        raise NotImplementedError

    async def set_schema_version(self, version: int) -> None:
        raise NotImplementedError


class SqliteBackend(Backend):
    name = "sqlite"
    integrity_error = sqlite3.IntegrityError
    latest = len(SQLITE_MIGRATIONS)

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)

    async def open(self) -> Store:
        return await SqliteStore.open(self.path)

    async def snapshot(self) -> list[Any]:
        with closing(sqlite3.connect(self.path)) as connection:
            return list(connection.iterdump())

    async def schema_version(self) -> int:
        with closing(sqlite3.connect(self.path)) as connection:
            return int(connection.execute("PRAGMA user_version").fetchone()[0])

    async def set_schema_version(self, version: int) -> None:
        with closing(sqlite3.connect(self.path)) as connection:
            connection.execute(f"PRAGMA user_version = {version:d}")


class PostgresBackend(Backend):
    name = "postgres"
    integrity_error = asyncpg.IntegrityConstraintViolationError
    latest = len(PG_MIGRATIONS)

    def __init__(self, url: str) -> None:
        self.url = url
        self.where = describe(url)

    async def open(self) -> Store:
        return await PostgresStore.open(self.url)

    async def snapshot(self) -> list[Any]:
        connection = await asyncpg.connect(self.url)
        try:
            found: list[Any] = []
            for table in ("paperbot_schema", *TABLES):
                rows = await connection.fetch(f"SELECT * FROM {table} ORDER BY {table}::text")
                found.append((table, [tuple(row) for row in rows]))
            sequences = await connection.fetch(
                "SELECT sequencename, last_value FROM pg_sequences ORDER BY 1"
            )
            found.append(("sequences", [tuple(row) for row in sequences]))
            return found
        finally:
            await connection.close()

    async def schema_version(self) -> int:
        connection = await asyncpg.connect(self.url)
        try:
            return int(await connection.fetchval("SELECT version FROM paperbot_schema"))
        finally:
            await connection.close()

    async def set_schema_version(self, version: int) -> None:
        connection = await asyncpg.connect(self.url)
        try:
            await connection.execute("UPDATE paperbot_schema SET version = $1", version)
        finally:
            await connection.close()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "sqlite":
        return SqliteBackend(tmp_path / "data" / "paperbot.db")
    return PostgresBackend(request.getfixturevalue("pg_url"))


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[Store]:
    opened = await backend.open()
    try:
        yield opened
    finally:
        await opened.close()
