"""Migrations written once (`retrieval/stores/schema.py`) against the lists that shipped before
(`legacy_schema.py`): the same text, and a database the old code created opens and holds
exactly the schema a new database gets, on SQLite and on PostgreSQL."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import asyncpg

from retrieval.stores import postgres_migrations, sqlite_migrations
from retrieval.stores.postgres import PostgresStore
from retrieval.stores.sqlite import SqliteStore
from tests.retrieval.stores.conftest import empty_schema
from tests.retrieval.stores.legacy_schema import POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS
from tests.retrieval.stores.papers import add, papers


def _statements(script: str) -> list[str]:
    """A script's statements with white space folded and comments left out (neither reaches
    PostgreSQL's catalog)."""
    code = " ".join(line for line in script.splitlines() if not line.strip().startswith("--"))
    return [" ".join(part.split()) for part in code.split(";") if part.strip()]


def test_the_sqlite_migrations_are_the_shipped_text() -> None:
    assert sqlite_migrations.MIGRATIONS == SQLITE_MIGRATIONS


def test_the_postgres_migrations_are_the_shipped_statements() -> None:
    assert len(postgres_migrations.MIGRATIONS) == len(POSTGRES_MIGRATIONS)
    for new, old in zip(postgres_migrations.MIGRATIONS, POSTGRES_MIGRATIONS, strict=True):
        assert _statements(new) == _statements(old)


def _sqlite_schema(path: Path) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(path)) as connection:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        rows = connection.execute(
            # sqlite_stat1 is SQLite's own (PRAGMA optimize on close), not the schema.
            "SELECT type, name, tbl_name, sql FROM sqlite_master "
            "WHERE name NOT LIKE 'sqlite^_%' ESCAPE '^' ORDER BY type, name"
        ).fetchall()
    return [("version", version), *rows]


async def test_a_sqlite_database_from_the_old_migrations_opens_unchanged(tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    with closing(sqlite3.connect(old, isolation_level=None)) as connection:
        for version, script in enumerate(SQLITE_MIGRATIONS, start=1):
            connection.executescript(script)
            connection.execute(f"PRAGMA user_version = {version:d}")
    before = _sqlite_schema(old)
    async with await SqliteStore.open(old) as store:
        await add(store, "a", "ICML 2026", papers(1, 2))
        assert [p.id for p in await store.papers_by_key([1, 2])] == ["icml2026-1", "icml2026-2"]
    assert _sqlite_schema(old) == before
    async with await SqliteStore.open(tmp_path / "new.db"):
        pass
    assert _sqlite_schema(tmp_path / "new.db") == before


async def _postgres_schema(url: str) -> list[tuple[Any, ...]]:
    connection = await asyncpg.connect(url)
    try:
        found: list[tuple[Any, ...]] = [
            ("version", await connection.fetchval("SELECT version FROM paperbot_schema"))
        ]
        for sql in (
            "SELECT table_name, column_name, ordinal_position, data_type, column_default, "
            "is_nullable, is_identity FROM information_schema.columns "
            "WHERE table_schema = current_schema() ORDER BY 1, 2",
            "SELECT tablename, indexname, indexdef FROM pg_indexes "
            "WHERE schemaname = current_schema() ORDER BY 1, 2",
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) "
            "FROM pg_constraint WHERE connamespace = current_schema()::regnamespace "
            "ORDER BY 1, 2",
        ):
            found.extend(tuple(row) for row in await connection.fetch(sql))
        return found
    finally:
        await connection.close()


async def test_a_postgres_database_from_the_old_migrations_opens_unchanged(pg_url: str) -> None:
    connection = await asyncpg.connect(pg_url)
    try:
        for version, script in enumerate(POSTGRES_MIGRATIONS, start=1):
            async with connection.transaction():
                await connection.execute(script)
                await connection.execute("UPDATE paperbot_schema SET version = $1", version)
    finally:
        await connection.close()
    before = await _postgres_schema(pg_url)
    async with await PostgresStore.open(pg_url) as store:
        await add(store, "a", "ICML 2026", papers(1, 2))
        assert [p.id for p in await store.papers_by_key([1, 2])] == ["icml2026-1", "icml2026-2"]
    assert await _postgres_schema(pg_url) == before
    await empty_schema(pg_url)
    async with await PostgresStore.open(pg_url):
        pass
    assert await _postgres_schema(pg_url) == before
