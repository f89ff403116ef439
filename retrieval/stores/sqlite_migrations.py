"""The store's schema as numbered migrations, and the code that brings a database up to date.

`PRAGMA user_version` holds how many migrations a database has had. Migrations are append-only:
never edit one that has shipped; add the next number instead. Later steps are written once
for both backends in `retrieval/stores/schema.py`.
"""

from __future__ import annotations

import sqlite3
from contextlib import suppress

import aiosqlite

from retrieval.errors import StoreError
from retrieval.stores.schema import SQLITE_DDL, SQLITE_STEPS

# Millisecond UTC timestamps: reading lists are ordered by when a paper was saved.
_NOW = SQLITE_DDL["now"]

MIGRATIONS: tuple[str, ...] = (
    # 1: the initial schema.
    f"""
    CREATE TABLE collections (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        slug TEXT NOT NULL UNIQUE CHECK (slug <> '' AND slug = lower(slug)),
        next_number INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL DEFAULT {_NOW}
    );

    -- `rowid` is named so that the index and other tables can refer to it; it never changes.
    -- `position` is the number in `id`; `terms` lets the index be rebuilt without re-analysis.
    CREATE TABLE papers (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE CHECK (id = lower(id)),
        collection_id INTEGER NOT NULL REFERENCES collections (id),
        position INTEGER NOT NULL,
        external_id TEXT NOT NULL,
        title TEXT,
        abstract TEXT NOT NULL,
        label TEXT NOT NULL,
        urls TEXT NOT NULL DEFAULT '[]',
        authors TEXT NOT NULL DEFAULT '[]',
        content_hash TEXT NOT NULL UNIQUE,
        terms TEXT NOT NULL,
        added_at TEXT NOT NULL DEFAULT {_NOW}
    );

    -- Every collection a paper was listed in, its home collection included, so that one
    -- filter query covers both.
    CREATE TABLE paper_collections (
        paper_rowid INTEGER NOT NULL REFERENCES papers (rowid),
        collection_id INTEGER NOT NULL REFERENCES collections (id),
        position INTEGER NOT NULL,
        external_id TEXT NOT NULL,
        PRIMARY KEY (paper_rowid, collection_id)
    ) WITHOUT ROWID;
    CREATE INDEX paper_collections_by_collection
        ON paper_collections (collection_id, position);

    CREATE TABLE ingested_files (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL UNIQUE,
        collection_id INTEGER NOT NULL REFERENCES collections (id),
        papers_added INTEGER NOT NULL,
        papers_skipped INTEGER NOT NULL,
        ingested_at TEXT NOT NULL DEFAULT {_NOW}
    );
    CREATE INDEX ingested_files_by_collection ON ingested_files (collection_id);

    CREATE TABLE acronyms (
        acronym TEXT NOT NULL,
        expansion TEXT NOT NULL,
        papers INTEGER NOT NULL,
        PRIMARY KEY (acronym, expansion)
    ) WITHOUT ROWID;

    -- Keyed by the text id users see, so saved papers outlive index rebuilds and re-ingestion.
    CREATE TABLE reading_list (
        user_id INTEGER NOT NULL,
        paper_id TEXT NOT NULL REFERENCES papers (id),
        added_at TEXT NOT NULL DEFAULT {_NOW},
        PRIMARY KEY (user_id, paper_id)
    );

    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) WITHOUT ROWID;
    """,
    # 2: external ids (a JSONL record's own id) are looked up as typed, ignoring case.
    """
    CREATE INDEX papers_by_external_id ON papers (external_id COLLATE NOCASE);
    """,
    # 3-8: conversations, watches, shortlist, activity, nodes, node guilds (one source).
    *SQLITE_STEPS,
)


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
