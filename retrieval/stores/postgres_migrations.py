"""The PostgreSQL schema as numbered migrations, applied once even when several processes start.

`paperbot_schema.version` holds how many migrations a database has had. Migrations are
append-only: never edit one that has shipped; a new table is the next number. A session-level
advisory lock serializes processes that open one database together: the first applies what is
missing, the others wait, re-read the version and find nothing to do.
"""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING

import asyncpg

from retrieval.errors import StoreError
from retrieval.stores.schema import POSTGRES_MIGRATIONS

if TYPE_CHECKING:
    from retrieval.stores.postgres_connect import Db

# pg_advisory_lock keys: "paperbot" in ASCII, then +1 for ingest (see postgres.py).
MIGRATION_LOCK = 0x7061706572626F74


# Written once for both backends in `retrieval/stores/schema.py`, in shipped version order:
# 1 is SQLite's 1-2 (plus the version table), 2 its 3, 3 its 4-6, 4 its 7, 5 its 8.
MIGRATIONS: tuple[str, ...] = POSTGRES_MIGRATIONS

# Every table a paperbot database holds, parents before children (copy and emptiness checks).
TABLES: tuple[str, ...] = (
    "collections",
    "papers",
    "paper_collections",
    "ingested_files",
    "acronyms",
    "reading_list",
    "meta",
    "conversations",
    "answer_messages",
    "watches",
    "watch_deliveries",
    "watch_digests",
    "shortlist",
    "paper_activity",
    "nodes",
)


async def _state(connection: Db) -> tuple[int | None, int]:
    """(schema version or None, how many tables the schema holds), from one snapshot.

    One REPEATABLE READ transaction, and the table list read from pg_tables (not with
    to_regclass, which looks at the catalog as it is now): two separate reads could see
    "no paperbot_schema" before another process commits its first migration and "tables" after
    it, and take a half-seen paperbot database for another program's.
    """
    async with connection.transaction(isolation="repeatable_read", readonly=True):
        names = {
            str(row[0])
            for row in await connection.fetch(
                "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema()"
            )
        }
        if "paperbot_schema" not in names:
            return None, len(names)
        return int(await connection.fetchval("SELECT version FROM paperbot_schema")), len(names)


async def check_compatible(connection: Db, where: str) -> int:
    """The schema version, or StoreError if this code must not touch the database."""
    version, tables = await _state(connection)
    if version is None:
        if tables:
            raise StoreError(
                f"The PostgreSQL database {where} holds another program's tables, not "
                "paperbot's; point PAPERBOT_DATABASE_URL at an empty database."
            )
        return 0
    if version > len(MIGRATIONS):
        raise StoreError(
            f"The PostgreSQL database {where} was written by a newer paperbot (schema "
            f"{version}, this one knows {len(MIGRATIONS)}); upgrade paperbot or point "
            "PAPERBOT_DATABASE_URL at another database."
        )
    return version


async def migrate(connection: Db, where: str) -> int:
    """Apply the migrations the database has not had, each in its own transaction.

    Returns the new version. Raises StoreError (one line) for a foreign or newer database.
    Only "already current" is decided without the lock; every other verdict (foreign, newer,
    what to apply) is taken under it, where no other paperbot can be halfway through.
    """
    version, _ = await _state(connection)
    if version == len(MIGRATIONS):
        return version  # the common case: no lock, no wait behind another process
    await connection.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        version = await check_compatible(connection, where)
        while version < len(MIGRATIONS):
            async with connection.transaction():
                await connection.execute(MIGRATIONS[version])
                version += 1
                await connection.execute("UPDATE paperbot_schema SET version = $1", version)
    finally:
        # On a lost connection the server has released the lock already; the error that
        # brought us here is the one worth raising.
        with suppress(asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
            await connection.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
    return version
