"""The SQLite store (the default): papers, collections, files, acronyms, reading lists, meta.

One aiosqlite connection writes, with every write method a single transaction behind a lock, and
a second, read-only connection serves reads. In WAL mode a read sees the last commit and never
waits for an ingest in progress. Paper ids are stored lowercase and looked up case-insensitively.
It implements `retrieval.stores.protocol.Store`; SQLite's rowid is the paper `key` there.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import random
import sqlite3
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, TypeGuard, TypeVar

import aiosqlite

from retrieval import ids
from retrieval.errors import StoreError
from retrieval.models import Paper
from retrieval.stores import shared
from retrieval.stores.community import CommunitySql
from retrieval.stores.dialect import SQLITE
from retrieval.stores.plan import FilePlan, Known, Stored, write_chunks
from retrieval.stores.protocol import FileResult, IndexRow, NewPaper, PaperChunks
from retrieval.stores.shared import Tx
from retrieval.stores.sqlite_migrations import check_compatible, migrate

log = logging.getLogger(__name__)

_BUSY_TIMEOUT_MS = 10_000
_PAGE_SIZE = 8192
# Values per `IN (...)`: far below SQLite's bound-variable limit, even on old builds (999).
_CHUNK = 500
# Rows aiosqlite fetches per step when a cursor is iterated (its own default).
_ITER_CHUNK = 64
_T = TypeVar("_T")


# Every query that returns `Paper`s selects these columns, in this order (see `_paper`).
_PAPER_SELECT = """
SELECT p.id, c.name, p.position, p.external_id, p.abstract, p.label, p.title, p.urls,
       p.authors, p.content_hash,
       (SELECT json_group_array(name) FROM (
            SELECT o.name FROM paper_collections AS m
            JOIN collections AS o ON o.id = m.collection_id
            WHERE m.paper_rowid = p.rowid AND m.collection_id <> p.collection_id
            ORDER BY o.id)),
       p.rowid
FROM papers AS p
JOIN collections AS c ON c.id = p.collection_id
"""


class SqliteStore(CommunitySql):
    """The SQLite database. Open with `await SqliteStore.open(path)`; close with `close()`."""

    dialect = SQLITE

    def __init__(self, path: Path, writer: aiosqlite.Connection, reader: aiosqlite.Connection):
        self.path = path
        self._writer = writer
        self._reader = reader
        # aiosqlite runs one statement at a time, but a transaction spans several awaits; the
        # lock keeps another coroutine's write from landing inside (and rolling back with) it.
        self._write_lock = asyncio.Lock()
        self._closed = False

    # -- lifecycle ------------------------------------------------------------------------

    @classmethod
    async def open(cls, path: Path) -> SqliteStore:
        """Open (creating if needed) and migrate the database at `path`.

        Raises StoreError with one actionable line if the file cannot be used.
        """
        path = Path(path)
        where = str(path)
        try:
            await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(
                f"Cannot create the folder for the database {where} ({error.strerror}); "
                "create it or set another database path."
            ) from error
        # Processes started together on a new file meet SQLite locks that do not wait for the
        # busy timeout (switching the file to WAL, first opening its shared memory): the whole
        # opening is idempotent (the migrations run under their own lock), so it is tried again.
        deadline = asyncio.get_running_loop().time() + _BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                return await cls._open_once(path, where)
            except StoreError as error:
                busy = isinstance(error.__cause__, sqlite3.OperationalError) and _is_busy(
                    error.__cause__
                )
                if not busy or asyncio.get_running_loop().time() > deadline:
                    raise
            await asyncio.sleep(random.uniform(0.05, 0.2))

    @classmethod
    async def _open_once(cls, path: Path, where: str) -> SqliteStore:
        writer: aiosqlite.Connection | None = None
        reader: aiosqlite.Connection | None = None
        try:
            writer = await _connect(path)
            # A paper row (abstract + terms) is ~3 KB: a 4 KB page holds one and wastes a third
            # of the file; 8 KB pages hold two or three. Only a new, empty database takes this.
            await writer.execute(f"PRAGMA page_size = {_PAGE_SIZE:d}")
            # Before anything writes (WAL mode is stored in the file), so that a database this
            # code must not use is left exactly as it was found.
            await check_compatible(writer, where)
            rows = list(await writer.execute_fetchall("PRAGMA journal_mode = WAL"))
            if str(rows[0][0]).lower() != "wal":
                log.warning("%s: WAL is unavailable here; reads will wait for writes", where)
            await writer.execute("PRAGMA foreign_keys = ON")
            # NORMAL is durable across application crashes in WAL mode; only a power loss can
            # drop the last commits, which a re-ingest restores.
            await writer.execute("PRAGMA synchronous = NORMAL")
            version = await migrate(writer, where)
            await _check_writable(writer, version)
            reader = await _connect(path)
            await reader.execute("PRAGMA query_only = ON")
        except BaseException as error:
            for connection in (reader, writer):
                if connection is not None:
                    with suppress(Exception):
                        await connection.close()
            if isinstance(error, sqlite3.Error):
                raise StoreError(_explain(where, error)) from error
            raise
        return cls(path, writer, reader)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        async with self._write_lock:
            # Both connections are closed even if something fails on the way: a worker thread
            # left running would keep the process from exiting.
            try:
                with suppress(sqlite3.Error):
                    await self._writer.execute("PRAGMA optimize")
            finally:
                try:
                    await self._reader.close()
                finally:
                    await self._writer.close()

    # -- ingest ---------------------------------------------------------------------------

    async def add_file(
        self,
        *,
        origin: str,
        sha256: str,
        collection: str,
        papers: Sequence[NewPaper] | PaperChunks,
    ) -> FileResult:
        """`IngestStore.add_file` behind the write lock: chunks are planned and written one at
        a time, and numbers, positions and rowids run on across them."""
        slug = ids.collection_slug(collection)
        async with self._transaction() as db:
            seen = list(
                await db.execute_fetchall(
                    "SELECT c.name, c.slug FROM ingested_files AS f "
                    "JOIN collections AS c ON c.id = f.collection_id WHERE f.sha256 = ?",
                    (sha256,),
                )
            )
            if seen:
                return FileResult(0, 0, str(seen[0][0]), str(seen[0][1]), already_ingested=True)
            collection_id, name, next_number = await _get_or_create_collection(
                db, collection.strip(), slug
            )
            next_position = await _scalar(
                db,
                "SELECT coalesce(max(position), 0) + 1 FROM paper_collections "
                "WHERE collection_id = ?",
                (collection_id,),
            )

            async def stored(chunk: Sequence[NewPaper]) -> Stored:
                # Earlier chunks are visible here: they were written in this transaction.
                return await _stored_papers(db, collection_id, [p.content_hash for p in chunk])

            async def keys(chunk: Sequence[NewPaper], known: Stored) -> Iterator[int]:
                # The write lock is held, so max(rowid) + 1 onwards is free: explicit rowids let
                # the membership rows be written without asking SQLite for each paper's rowid.
                return itertools.count(
                    await _scalar(db, "SELECT coalesce(max(rowid), 0) + 1 FROM papers")
                )

            async def write(plan: FilePlan) -> None:
                await _write_plan(db, plan, collection_id)

            chunks = PaperChunks.of(papers)
            counts = await write_chunks(
                chunks, slug, next_number, next_position, stored=stored, keys=keys, write=write
            )
            # The sha256 was checked above under the same write lock: nothing can race it.
            await shared.record_file(_SqliteTx(db), origin, sha256, collection_id, counts)
            # Any recorded file may change what the index holds (papers or memberships).
            await _bump_generation(db)
        return counts.result(name, slug)

    async def index_rows(self, *, with_terms: bool = True, after_key: int = 0) -> list[IndexRow]:
        """Index input of papers with rowid > `after_key`, by rowid, in one query.

        Without `with_terms`, `terms` is "": enough to check and use a saved index, and about a
        tenth of the reading.
        """
        terms = "p.terms" if with_terms else "''"
        rows = await self._read(
            f"""
            SELECT p.rowid, p.id, c.slug, {terms},
                   (SELECT group_concat(o.slug, ' ') FROM paper_collections AS m
                    JOIN collections AS o ON o.id = m.collection_id
                    WHERE m.paper_rowid = p.rowid AND m.collection_id <> p.collection_id)
            FROM papers AS p
            JOIN collections AS c ON c.id = p.collection_id
            WHERE p.rowid > ?
            ORDER BY p.rowid
            """,
            (after_key,),
        )
        # Hundreds of thousands of objects: built in a worker thread, not on the event loop.
        return await asyncio.to_thread(_index_rows, rows)

    # -- papers ---------------------------------------------------------------------------

    async def paper(self, paper_id: str) -> Paper | None:
        """An exact paperbot id, else an external id as typed (a JSONL record's own id,
        'icml2024-01938'), else the id in canonical form ('ICML2026-07' -> icml2026-7)."""
        typed = " ".join(paper_id.split()).lower()
        for where, value in (
            ("p.id = ?", typed),
            ("p.external_id = ? COLLATE NOCASE", typed),
            ("p.id = ?", ids.lookup_key(paper_id)),
        ):
            rows = await self._read(f"{_PAPER_SELECT} WHERE {where} LIMIT 1", (value,))
            if rows:
                return _paper(rows[0])
        return None

    async def papers_by_key(self, rowids: Sequence[int]) -> list[Paper]:
        """Papers in the order given; unknown rowids are left out."""
        found: dict[int, Paper] = {}
        for chunk in _chunks(rowids):
            marks = ", ".join("?" * len(chunk))
            for row in await self._read(f"{_PAPER_SELECT} WHERE p.rowid IN ({marks})", chunk):
                found[int(row[11])] = _paper(row)
        return [found[rowid] for rowid in rowids if rowid in found]

    async def abstracts_by_key(self, rowids: Sequence[int]) -> dict[int, str]:
        found: dict[int, str] = {}
        for chunk in _chunks(rowids):
            marks = ", ".join("?" * len(chunk))
            sql = f"SELECT rowid, abstract FROM papers WHERE rowid IN ({marks})"
            found.update((int(row[0]), str(row[1])) for row in await self._read(sql, chunk))
        return found

    async def random_paper(self, slug: str | None = None) -> Paper | None:
        """A uniformly random paper, optionally among a collection's papers and members."""
        if slug is None:
            total = await self._read_scalar("SELECT count(*) FROM papers")
            pick = "SELECT rowid FROM papers ORDER BY rowid LIMIT 1 OFFSET ?"
            params: tuple[Any, ...] = ()
        else:
            members = (
                "FROM paper_collections AS m JOIN collections AS k ON k.id = m.collection_id "
                "WHERE k.slug = ?"
            )
            params = (slug.strip().lower(),)
            total = await self._read_scalar(f"SELECT count(*) {members}", params)
            pick = f"SELECT m.paper_rowid {members} ORDER BY m.position LIMIT 1 OFFSET ?"
        if total == 0:
            return None
        rows = await self._read(
            f"{_PAPER_SELECT} WHERE p.rowid = ({pick})", (*params, random.randrange(total))
        )
        return _paper(rows[0]) if rows else None

    # -- collections and statistics -------------------------------------------------------

    async def size_bytes(self) -> int:
        """The database's size in pages, including commits not yet checkpointed from the WAL."""
        return await self._read_scalar(
            "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
        )

    # -- reading lists --------------------------------------------------------------------

    async def saved(self, user_id: int) -> list[Paper]:
        """A user's reading list, oldest first."""
        rows = await self._read(
            f"{_PAPER_SELECT} JOIN reading_list AS r ON r.paper_id = p.id "
            "WHERE r.user_id = ? ORDER BY r.added_at, r.rowid",
            (user_id,),
        )
        return [_paper(row) for row in rows]

    # -- derived data ---------------------------------------------------------------------

    # -- plumbing -------------------------------------------------------------------------

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE ... COMMIT on the writer; ROLLBACK and re-raise on any exception."""
        async with self._write_lock:
            try:
                await self._writer.execute("BEGIN IMMEDIATE")
                yield self._writer
                await self._writer.execute("COMMIT")
            except BaseException as error:
                # Queued unconditionally, not guarded by `in_transaction`: after a cancellation
                # the BEGIN may still be waiting in aiosqlite's queue, and this runs after it.
                # The error when no transaction is open (BEGIN itself failed) means nothing.
                with suppress(sqlite3.OperationalError):
                    await self._writer.execute("ROLLBACK")
                if _is_database_fault(error):
                    raise StoreError(_explain(str(self.path), error)) from error
                raise

    async def _read(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        try:
            return list(await self._reader.execute_fetchall(sql, params))
        except sqlite3.DatabaseError as error:
            if _is_database_fault(error):
                raise StoreError(_explain(str(self.path), error)) from error
            raise

    async def _read_scalar(self, sql: str, params: Iterable[Any] = ()) -> int:
        return int((await self._read(sql, params))[0][0])

    async def _rows(self, sql: str, /, *, bulk: bool = False, **values: Any) -> list[Any]:
        query = SQLITE.query(sql)
        return await self._read(query.text, query.args(values))

    async def _write(self, work: Callable[[Tx], Awaitable[_T]], *, bulk: bool = False) -> _T:
        async with self._transaction() as db:
            return await work(_SqliteTx(db))

    async def _hold_ingest_lock(self, tx: Tx) -> None:
        pass  # the write lock and BEGIN IMMEDIATE already make every write the only one

    async def _bump_generation(self, tx: Tx) -> None:
        await tx.rows(shared.BUMP_GENERATION)


class _SqliteTx:
    """`Tx` over the writer connection inside `SqliteStore._transaction`."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    async def execute(self, sql: str, /, **values: Any) -> int:
        query = SQLITE.query(sql)
        cursor = await self._db.execute(query.text, query.args(values))
        return max(cursor.rowcount, 0)

    async def rows(self, sql: str, /, **values: Any) -> list[Any]:
        query = SQLITE.query(sql)
        return list(await self._db.execute_fetchall(query.text, query.args(values)))

    async def executemany(self, sql: str, values: Sequence[Mapping[str, Any]], /) -> None:
        query = SQLITE.query(sql)
        await self._db.executemany(query.text, [query.args(row) for row in values])

    async def insert_many(self, sql: str, rows: Sequence[Sequence[Any]], /) -> None:
        await self._db.executemany(SQLITE.query(sql).text, rows)


def _json_list(values: tuple[str, ...]) -> str:
    # Most papers have no URLs or authors: json.dumps is a tenth of the store write's time.
    return json.dumps(list(values)) if values else "[]"


def _is_busy(error: sqlite3.Error) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED: another connection holds a lock this one needed."""
    text = str(error).lower()
    return "locked" in text or "busy" in text


async def _connect(path: Path) -> aiosqlite.Connection:
    """An aiosqlite connection to `path`, its busy timeout set; nothing left running on failure.

    The file is opened in a thread this coroutine waits for, and only the open connection is
    handed to aiosqlite. Left to open it in its own worker thread, aiosqlite answers a failure (a
    folder at the path, a file it may not open) by queueing that thread's stop without waiting
    for it: on a busy machine the thread then posted its last result to an event loop that had
    already closed, and printed "Event loop is closed" with a traceback after the command's
    one-line error.
    """
    raw = await asyncio.to_thread(_open_file, path)
    connection = aiosqlite.Connection(lambda: raw, _ITER_CHUNK)
    try:
        await connection  # starts the worker thread; its connector (above) cannot fail
    except BaseException:  # cancelled: aiosqlite may never have taken the file
        raw.close()
        raise
    try:
        await connection.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS:d}")
    except BaseException:
        await connection.close()
        raise
    return connection


def _open_file(path: Path) -> sqlite3.Connection:
    # isolation_level=None: the sqlite3 module never opens transactions behind our back; each
    # write method issues its own BEGIN IMMEDIATE ... COMMIT. Opened in one thread and used only
    # in aiosqlite's, one at a time: hence check_same_thread=False.
    return sqlite3.connect(path, isolation_level=None, check_same_thread=False)


async def _check_writable(connection: aiosqlite.Connection, version: int) -> None:
    """Fail now if the database is read-only, rather than at the first ingest or save.

    SQLite opens a read-only file without complaint (even BEGIN IMMEDIATE succeeds); only a
    real write fails. This one rewrites the current version and is rolled back.
    """
    await connection.execute("BEGIN IMMEDIATE")
    try:
        await connection.execute(f"PRAGMA user_version = {version:d}")
    finally:
        await connection.execute("ROLLBACK")


async def _get_or_create_collection(
    db: aiosqlite.Connection, name: str, slug: str
) -> tuple[int, str, int]:
    """(id, stored name, next number) of the collection with `slug`, creating it if new."""
    rows = list(
        await db.execute_fetchall(
            "SELECT id, name, next_number FROM collections WHERE slug = ?", (slug,)
        )
    )
    if not rows:
        rows = list(
            await db.execute_fetchall(
                "INSERT INTO collections (name, slug) VALUES (?, ?) "
                "RETURNING id, name, next_number",
                (name or slug, slug),
            )
        )
    return int(rows[0][0]), str(rows[0][1]), int(rows[0][2])


async def _write_plan(db: aiosqlite.Connection, plan: FilePlan, collection_id: int) -> None:
    """One chunk's papers (with the rowids planned for them), memberships and acronyms."""
    tx = _SqliteTx(db)
    await tx.insert_many(
        shared.INSERT_PAPERS,
        [shared.paper_values(new, collection_id, _json_list) for new in plan.papers],
    )
    await shared.write_memberships(tx, plan, collection_id)


async def _stored_papers(
    db: aiosqlite.Connection, collection_id: int, hashes: Sequence[str]
) -> Stored:
    """content hash -> (rowid, is a member of the collection, has a title, has authors) for
    the hashes already stored."""
    found: Stored = {}
    for chunk in _chunks(hashes):
        marks = ", ".join("?" * len(chunk))
        rows = await db.execute_fetchall(
            "SELECT p.content_hash, p.rowid, EXISTS (SELECT 1 FROM paper_collections AS m "
            "WHERE m.paper_rowid = p.rowid AND m.collection_id = ?), "
            "coalesce(p.title, '') <> '', coalesce(p.authors, '[]') <> '[]' "
            f"FROM papers AS p WHERE p.content_hash IN ({marks})",
            (collection_id, *chunk),
        )
        found.update(
            (str(row[0]), Known(int(row[1]), bool(row[2]), bool(row[3]), bool(row[4])))
            for row in rows
        )
    return found


async def _set_meta(db: aiosqlite.Connection, key: str, value: str) -> None:
    await _SqliteTx(db).execute(shared.SET_META, key=key, value=value)


async def _bump_generation(db: aiosqlite.Connection) -> None:
    await _SqliteTx(db).rows(shared.BUMP_GENERATION)


async def _scalar(db: aiosqlite.Connection, sql: str, params: Iterable[Any] = ()) -> int:
    rows = list(await db.execute_fetchall(sql, params))
    return int(rows[0][0])


def _index_rows(rows: Sequence[sqlite3.Row]) -> list[IndexRow]:
    # Slugs are [a-z0-9]+, so a space separates them safely.
    return [
        IndexRow(
            key=row[0],
            paper_id=row[1],
            slugs=(row[2], *row[4].split()) if row[4] else (row[2],),
            terms=row[3],
        )
        for row in rows
    ]


def _chunks(values: Sequence[_T]) -> Iterable[list[_T]]:
    """Distinct values in batches small enough to bind as `IN (...)` parameters."""
    unique = list(dict.fromkeys(values))
    for start in range(0, len(unique), _CHUNK):
        yield unique[start : start + _CHUNK]


def _paper(row: sqlite3.Row) -> Paper:
    return shared.paper_of(row, json.loads)


def _is_database_fault(error: BaseException) -> TypeGuard[sqlite3.DatabaseError]:
    """An error in the file or its disk (damaged, locked, read-only, full), not in our SQL or data:
    sqlite3 raises plain DatabaseError for SQLITE_CORRUPT and SQLITE_NOTADB."""
    return type(error) in (sqlite3.DatabaseError, sqlite3.OperationalError)


def _explain(where: str, error: sqlite3.Error) -> str:
    """One line saying what is wrong with the database file and what to do about it."""
    text = str(error).lower()
    if "not a database" in text or "malformed" in text:
        return (
            f"{where} is not a usable paperbot database (not SQLite, or damaged); "
            "move it aside or set another database path."
        )
    if "readonly" in text or "read-only" in text:
        return (
            f"The database {where} is read-only; make it and its folder writable, "
            "or set another database path."
        )
    if "unable to open" in text:
        return (
            f"Cannot open the database {where}; check that the path is a file "
            "in a folder you can write to."
        )
    if _is_busy(error):
        return (
            f"The database {where} is locked by another program; wait for it to finish "
            "or stop it, then retry."
        )
    if "full" in text:
        return f"The disk holding the database {where} is full; free some space and retry."
    return f"Cannot use the database {where}: {error}."
