"""The store's schema as numbered migrations, and the code that brings a database up to date.

`PRAGMA user_version` holds how many migrations a database has had. Migrations are append-only:
never edit one that has shipped; add the next number instead. The schema is written once for
both backends in `retrieval/stores/schema.py`.
"""

from __future__ import annotations

import sqlite3
from contextlib import suppress

import aiosqlite

from retrieval.errors import StoreError
from retrieval.stores.schema import SQLITE_MIGRATIONS

# Written once for both backends in `retrieval/stores/schema.py`, in shipped version order.
MIGRATIONS: tuple[str, ...] = SQLITE_MIGRATIONS


def statements(script: str) -> list[str]:
    """Split a script into statements, honouring semicolons inside strings and triggers."""
    found: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            found.append(pending.strip())
            pending = ""
    if pending.strip():
        found.append(pending.strip())
    return found


async def check_compatible(connection: aiosqlite.Connection, where: str) -> int:
    """The schema version, or StoreError if this code must not touch the database.

    The version and the table count come from one statement, hence one snapshot: read apart,
    another process's first migration could commit in between, and a half-seen paperbot
    database would pass for another program's.
    """
    rows = list(
        await connection.execute_fetchall(
            "SELECT (SELECT user_version FROM pragma_user_version), "
            "(SELECT count(*) FROM sqlite_master)"
        )
    )
    version, objects = int(rows[0][0]), int(rows[0][1])
    _refuse_newer(version, where)
    if version == 0 and objects:
        # Version 0 with tables in it is another program's database, not an empty one of ours.
        raise StoreError(
            f"{where} is another program's SQLite database, not paperbot's; "
            "set another database path."
        )
    return version


async def migrate(connection: aiosqlite.Connection, where: str) -> int:
    """Apply the migrations `connection` has not had, each in its own transaction.

    `connection` must be in autocommit mode (isolation_level=None). Returns the new version.
    """
    version = await check_compatible(connection, where)
    while version < len(MIGRATIONS):
        # IMMEDIATE takes the write lock first, so two processes opening one new database
        # cannot both apply a migration; the loser re-reads the version and moves on.
        await connection.execute("BEGIN IMMEDIATE")
        try:
            version = await check_compatible(connection, where)
            if version < len(MIGRATIONS):
                for statement in statements(MIGRATIONS[version]):
                    await connection.execute(statement)
                version += 1
                # PRAGMA arguments cannot be bound; `version` is an int we computed.
                await connection.execute(f"PRAGMA user_version = {version:d}")
            await connection.execute("COMMIT")
        except BaseException:
            # Unconditional, as in Store._transaction: after a cancellation the BEGIN may still
            # be queued, and this ROLLBACK runs after it. Failing for want of a transaction is fine.
            with suppress(sqlite3.OperationalError):
                await connection.execute("ROLLBACK")
            raise
    return version


def _refuse_newer(version: int, where: str) -> None:
    if version > len(MIGRATIONS):
        raise StoreError(
            f"The database {where} was written by a newer paperbot (schema {version}, this one "
            f"knows {len(MIGRATIONS)}); upgrade paperbot or point it at another database."
        )
