"""`paperbot migrate-store`: copy a SQLite paperbot database into an empty PostgreSQL one.

Everything is copied as it is, so what users hold stays valid: paper keys (the index's names) and
ids, collection ids and counters, memberships, ingested files, acronyms, reading lists (in their
order), conversation memory and meta (generation, derived versions, command-sync hashes). The
copy is one transaction that checks every table's count before it commits: all or nothing.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

from retrieval.errors import StoreError
from retrieval.stores.postgres import INGEST_LOCK, PostgresStore
from retrieval.stores.postgres_connect import BULK_SECONDS, connect, describe, explain_open_error
from retrieval.stores.postgres_migrations import TABLES
from retrieval.stores.sqlite import SqliteStore

# Papers are read and written this many at a time, so a large corpus never sits in memory whole.
_BATCH = 5_000
Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class _Table:
    """How one table is read from SQLite (`select`, in copy order) and written to PostgreSQL."""

    name: str
    select: str
    columns: tuple[str, ...]
    convert: Callable[[Row], Row] = tuple


def _when(text: str | None) -> datetime:
    """SQLite's '%Y-%m-%dT%H:%M:%fZ' text as an aware datetime (now, for a missing value)."""
    if not text:
        return datetime.now(UTC)
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _paper(row: Row) -> Row:
    return (*row[:8], json.loads(row[8]), json.loads(row[9]), row[10], row[11], _when(row[12]))


# Parents before children. Every SQLite table of the current schema appears here (checked at
# copy time, so a table added later cannot be left behind silently).
_COPIED: tuple[_Table, ...] = (
    _Table(
        "collections",
        "SELECT id, name, slug, next_number, created_at FROM collections ORDER BY id",
        ("id", "name", "slug", "next_number", "created_at"),
        lambda row: (*row[:4], _when(row[4])),
    ),
    _Table(
        "papers",
        "SELECT rowid, id, collection_id, position, external_id, title, abstract, label, urls, "
        "authors, content_hash, terms, added_at FROM papers WHERE rowid > ? ORDER BY rowid "
        f"LIMIT {_BATCH}",
        (
            "key",
            "id",
            "collection_id",
            "position",
            "external_id",
            "title",
            "abstract",
            "label",
            "urls",
            "authors",
            "content_hash",
            "terms",
            "added_at",
        ),
        _paper,
    ),
    _Table(
        "paper_collections",
        "SELECT paper_rowid, collection_id, position, external_id FROM paper_collections "
        "ORDER BY paper_rowid, collection_id",
        ("paper_key", "collection_id", "position", "external_id"),
    ),
    _Table(
        "ingested_files",
        "SELECT id, path, sha256, collection_id, papers_added, papers_skipped, ingested_at "
        "FROM ingested_files ORDER BY id",
        (
            "id",
            "path",
            "sha256",
            "collection_id",
            "papers_added",
            "papers_skipped",
            "ingested_at",
        ),
        lambda row: (*row[:6], _when(row[6])),
    ),
    _Table(
        "acronyms",
        "SELECT acronym, expansion, papers FROM acronyms ORDER BY acronym, expansion",
        ("acronym", "expansion", "papers"),
    ),
    _Table(
        # Numbered in the order the lists show (oldest first), which PostgreSQL orders by.
        "reading_list",
        "SELECT row_number() OVER (ORDER BY added_at, rowid), user_id, paper_id, added_at "
        "FROM reading_list ORDER BY added_at, rowid",
        ("id", "user_id", "paper_id", "added_at"),
        lambda row: (*row[:3], _when(row[3])),
    ),
    _Table("meta", "SELECT key, value FROM meta ORDER BY key", ("key", "value")),
    _Table(
        "conversations",
        "SELECT scope, user_id, state, updated_at FROM conversations ORDER BY scope",
        ("scope", "user_id", "state", "updated_at"),
    ),
    _Table(
        "answer_messages",
        "SELECT message_id, scope, user_id, state, updated_at FROM answer_messages "
        "ORDER BY message_id",
        ("message_id", "scope", "user_id", "state", "updated_at"),
    ),
    # Community tables: their timestamps are TEXT in one format on both backends, copied as is.
    _Table(
        "watches",
        "SELECT id, user_id, guild_id, channel_id, query, created_at, last_fired_at, "
        "paused_reason FROM watches ORDER BY id",
        (
            "id",
            "user_id",
            "guild_id",
            "channel_id",
            "query",
            "created_at",
            "last_fired_at",
            "paused_reason",
        ),
    ),
    _Table(
        "watch_deliveries",
        "SELECT watch_id, paper_id FROM watch_deliveries ORDER BY watch_id, paper_id",
        ("watch_id", "paper_id"),
    ),
    _Table(
        "watch_digests",
        "SELECT id, watch_id, user_id, guild_id, channel_id, body, created_at, claimed_by, "
        "claimed_at, finished_at, failure FROM watch_digests ORDER BY id",
        (
            "id",
            "watch_id",
            "user_id",
            "guild_id",
            "channel_id",
            "body",
            "created_at",
            "claimed_by",
            "claimed_at",
            "finished_at",
            "failure",
        ),
    ),
    _Table(
        "shortlist",
        "SELECT guild_id, paper_id, added_by, added_at, note FROM shortlist "
        "ORDER BY guild_id, paper_id",
        ("guild_id", "paper_id", "added_by", "added_at", "note"),
    ),
    _Table(
        "paper_activity",
        "SELECT guild_id, paper_id, day, opens, saves, asks FROM paper_activity "
        "ORDER BY guild_id, paper_id, day",
        ("guild_id", "paper_id", "day", "opens", "saves", "asks"),
    ),
    _Table(
        "nodes",
        "SELECT node_id, host, pid, shard_ids, generation, started_at, heartbeat_at, guilds "
        "FROM nodes ORDER BY node_id",
        (
            "node_id",
            "host",
            "pid",
            "shard_ids",
            "generation",
            "started_at",
            "heartbeat_at",
            "guilds",
        ),
    ),
)
# Identity columns whose sequences must continue after the copied values.
_IDENTITIES = (
    ("collections", "id"),
    ("papers", "key"),
    ("ingested_files", "id"),
    ("reading_list", "id"),
    ("watches", "id"),
    ("watch_digests", "id"),
)


@dataclass(frozen=True, slots=True)
class TableCount:
    """Rows of one table in the SQLite source and in PostgreSQL after the copy."""

    table: str
    source: int
    copied: int


async def copy_sqlite_to_postgres(source: Path, url: str) -> list[TableCount]:
    """Copy the SQLite database at `source` into the empty PostgreSQL database at `url`.

    Raises StoreError (one line, no password) if the source is missing or unusable, the target
    cannot be reached or already holds paperbot data, or a count differs after the copy (then
    nothing is committed).
    """
    if not await asyncio.to_thread(source.is_file):
        raise StoreError(
            f"No SQLite database at {source}; give --from the path of your paperbot.db."
        )
    # Brings the source to the current schema, or refuses a foreign or newer one, in one line.
    async with await SqliteStore.open(source):
        pass
    where = describe(url)
    # Creates the schema on a new database, with the same one-line errors as at start.
    async with await PostgresStore.open(url):
        pass
    try:
        connection = await connect(url)
    except (asyncpg.PostgresError, OSError, TimeoutError) as error:
        raise StoreError(explain_open_error(error, url)) from None
    # One read transaction: a consistent snapshot even if a bot still writes to the file.
    snapshot = await asyncio.to_thread(_open_snapshot, source)
    try:
        async with connection.transaction():
            # Keeps a bot process from ingesting into the database halfway through the copy.
            await connection.execute("SELECT pg_advisory_xact_lock($1)", INGEST_LOCK)
            await _refuse_non_empty(connection, where)
            sources = await asyncio.to_thread(_source_counts, snapshot, source)
            for table in _COPIED:
                await _copy_table(connection, snapshot, table)
            for table_name, column in _IDENTITIES:
                await connection.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table_name}', '{column}'), "
                    f"coalesce(max({column}), 0) + 1, false) FROM {table_name}"
                )
            counts = [
                TableCount(
                    name,
                    sources[name],
                    int(await connection.fetchval(f"SELECT count(*) FROM {name}")),
                )
                for name in TABLES
            ]
            wrong = [count for count in counts if count.copied != count.source]
            if wrong:
                first = wrong[0]
                raise StoreError(
                    f"Copying into {where} gave {first.copied} rows in {first.table}, not "
                    f"{first.source}; nothing was committed. Report this as a paperbot bug."
                )
    except (asyncpg.PostgresConnectionError, OSError, TimeoutError) as error:
        raise StoreError(
            f"Lost the connection to {where} during the copy ({type(error).__name__}); "
            "nothing was committed, run migrate-store again."
        ) from None
    finally:
        connection.terminate()
        snapshot.close()
    return counts


def format_report(source: Path, url: str, counts: list[TableCount]) -> str:
    """What `paperbot migrate-store` prints: one line per table, then what to do next."""
    width = max(len(count.table) for count in counts)
    lines = [f"copied {source} -> {describe(url)}"]
    lines += [
        f"  {count.table:<{width}}  {count.copied:>9,} of {count.source:,}" for count in counts
    ]
    lines.append(
        "every table's count matches; set PAPERBOT_DATABASE_URL to this database to use it."
    )
    return "\n".join(lines)


async def _refuse_non_empty(connection: asyncpg.Connection[asyncpg.Record], where: str) -> None:
    for table in TABLES:
        rows = int(await connection.fetchval(f"SELECT count(*) FROM {table}"))
        if rows:
            raise StoreError(
                f"{where} already holds paperbot data ({rows:,} rows in {table}); "
                "migrate-store copies only into an empty database."
            )


async def _copy_table(
    connection: asyncpg.Connection[asyncpg.Record], snapshot: sqlite3.Connection, table: _Table
) -> None:
    after = 0
    while True:
        rows = await asyncio.to_thread(_read, snapshot, table, after)
        if rows:
            await connection.copy_records_to_table(
                table.name, records=rows, columns=table.columns, timeout=BULK_SECONDS
            )
        if table.name != "papers" or len(rows) < _BATCH:
            return
        after = int(rows[-1][0])


def _open_snapshot(source: Path) -> sqlite3.Connection:
    """A read-only connection inside a read transaction (used from worker threads, one at a
    time, hence check_same_thread=False)."""
    db = sqlite3.connect(
        f"{source.resolve().as_uri()}?mode=ro",
        uri=True,
        isolation_level=None,
        check_same_thread=False,
    )
    db.execute("BEGIN")
    return db


def _read(snapshot: sqlite3.Connection, table: _Table, after: int) -> list[Row]:
    params = (after,) if "?" in table.select else ()
    return [table.convert(tuple(row)) for row in snapshot.execute(table.select, params)]


def _source_counts(snapshot: sqlite3.Connection, source: Path) -> dict[str, int]:
    present = {
        str(row[0])
        for row in snapshot.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"
        )
    }
    unknown = sorted(present - set(TABLES))
    if unknown:
        raise StoreError(
            f"{source} has tables migrate-store does not copy ({', '.join(unknown)}); "
            "upgrade paperbot, whose migrate-store knows them."
        )
    return {
        name: int(snapshot.execute(f"SELECT count(*) FROM {name}").fetchone()[0]) for name in TABLES
    }
