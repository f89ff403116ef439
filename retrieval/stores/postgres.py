"""The PostgreSQL store: one database shared by several paperbot processes, through asyncpg.

It implements `retrieval.stores.protocol.Store` like the SQLite store, with what sharing needs:
paper keys, ids and numbers are allocated in the database under an advisory lock (never in
process memory); every change to the corpus bumps the generation and sends
`NOTIFY paperbot_corpus, '<generation>'` in the same transaction (see `corpus_generations`);
transactions that collide are retried here; a server that went away is `StoreUnavailable`
within a bounded time, and the pool reconnects by itself when it is back.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import asyncpg

from retrieval import ids
from retrieval.errors import StoreError, StoreUnavailable
from retrieval.models import Paper
from retrieval.stores import shared
from retrieval.stores.community import CommunitySql
from retrieval.stores.dialect import POSTGRES
from retrieval.stores.plan import FilePlan, Known, Stored, new_paper_count, write_chunks
from retrieval.stores.postgres_connect import (
    BULK_SECONDS,
    QUICK_SECONDS,
    RETRYABLE,
    close_pool,
    create_pool,
    describe,
    explain_open_error,
    is_unavailable,
    rowcount,
)
from retrieval.stores.postgres_listen import CHANNEL, corpus_generations
from retrieval.stores.postgres_migrations import MIGRATION_LOCK, migrate
from retrieval.stores.protocol import FileResult, IndexRow, NewPaper, PaperChunks
from retrieval.stores.shared import Tx

if TYPE_CHECKING:
    from retrieval.stores.postgres_connect import Db

log = logging.getLogger(__name__)

# Held for the length of a transaction that allocates keys or bumps the generation: keys then
# ascend in commit order (a reader's `after_key` never skips a row committed later with a
# smaller key) and notifications arrive in generation order.
INGEST_LOCK = MIGRATION_LOCK + 1
_ATTEMPTS = 5
# A retry that starts at the deadline still gets this long (a collision is over in milliseconds).
_MIN_TRY_SECONDS = 0.1
_T = TypeVar("_T")


class _Collided(Exception):
    """A row another transaction wrote first; the whole transaction runs again."""


_RETRY: tuple[type[BaseException], ...] = (*RETRYABLE, _Collided)
# What connecting or migrating raises for a bad URL, a refusing server or a missing database.
# ValueError: asyncpg's verdict on a URL it cannot parse (a port that is not a number).
_OPEN_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError, ValueError)


# Every query that returns `Paper`s selects these columns, in this order (see `_paper`).
_PAPER_SELECT = """
SELECT p.id, c.name, p.position, p.external_id, p.abstract, p.label, p.title, p.urls,
       p.authors, p.content_hash,
       ARRAY(SELECT o.name FROM paper_collections AS m
             JOIN collections AS o ON o.id = m.collection_id
             WHERE m.paper_key = p.key AND m.collection_id <> p.collection_id
             ORDER BY o.id),
       p.key
FROM papers AS p
JOIN collections AS c ON c.id = p.collection_id
"""

# The members of the collection whose slug is the parameter `{slug}`.
_MEMBERS = (
    "FROM paper_collections AS m JOIN collections AS k ON k.id = m.collection_id "
    "WHERE k.slug = {slug}"
)


class PostgresStore(CommunitySql):
    """A PostgreSQL database. Open with `await PostgresStore.open(url)`; close with `close()`."""

    dialect = POSTGRES

    def __init__(self, url: str, pool: asyncpg.Pool[asyncpg.Record]) -> None:
        self._url = url  # holds the password: never logged, never in a message
        self.where = describe(url)
        self._pool = pool
        self._closed = False

    # -- lifecycle ------------------------------------------------------------------------

    @classmethod
    async def open(cls, url: str) -> PostgresStore:
        """Connect, and migrate the schema (once, however many processes start together).

        Raises StoreError with one line naming PAPERBOT_DATABASE_URL (without the password) if
        the server cannot be reached, refuses the user, has no such database, or holds a schema
        this code must not touch.
        """
        pool: asyncpg.Pool[asyncpg.Record] | None = None
        try:
            pool = await create_pool(url)  # parses the URL, connects nothing yet
            async with pool.acquire(timeout=QUICK_SECONDS) as connection:
                await migrate(connection, describe(url))
        except BaseException as error:
            if pool is not None:
                await close_pool(pool)
            if isinstance(error, _OPEN_ERRORS):
                raise StoreError(explain_open_error(error, url)) from None
            raise
        return cls(url, pool)

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            await close_pool(self._pool)

    def corpus_generations(self, *, poll_seconds: float = 30.0) -> AsyncIterator[int]:
        """The corpus generation now, then each newer one as other processes commit changes.

        LISTENs on a dedicated connection: yields the current generation at start and after
        every reconnect (notifications sent while disconnected are not replayed), each notified
        one, and whatever a poll every `poll_seconds` finds. Strictly increasing; reconnects by
        itself and never raises StoreUnavailable; runs until the consumer stops iterating.
        """
        return corpus_generations(self._url, self.where, poll_seconds=poll_seconds)

    # -- ingest ---------------------------------------------------------------------------

    async def add_file(
        self,
        *,
        origin: str,
        sha256: str,
        collection: str,
        papers: Sequence[NewPaper] | PaperChunks,
    ) -> FileResult:
        """`IngestStore.add_file` under the ingest lock: keys come from the database and ids
        from the collection's counter, read and advanced under a row lock. Chunks are planned
        and written one at a time; a collided transaction reads them again from the first."""
        slug = ids.collection_slug(collection)
        chunks = PaperChunks.of(papers)

        async def work(db: Db) -> FileResult:
            await db.execute("SELECT pg_advisory_xact_lock($1)", INGEST_LOCK)
            seen = await db.fetchrow(
                "SELECT c.name, c.slug FROM ingested_files AS f "
                "JOIN collections AS c ON c.id = f.collection_id WHERE f.sha256 = $1",
                sha256,
            )
            if seen is not None:
                return FileResult(0, 0, seen[0], seen[1], already_ingested=True)
            await db.execute(
                "INSERT INTO collections (name, slug) VALUES ($1, $2) "
                "ON CONFLICT (slug) DO NOTHING",
                collection.strip() or slug,
                slug,
            )
            found = await db.fetchrow(
                "SELECT id, name, next_number FROM collections WHERE slug = $1 FOR UPDATE", slug
            )
            assert found is not None  # inserted or already there, and never deleted
            collection_id, name, next_number = int(found[0]), str(found[1]), int(found[2])
            next_position = int(
                await db.fetchval(
                    "SELECT coalesce(max(position), 0) + 1 FROM paper_collections "
                    "WHERE collection_id = $1",
                    collection_id,
                )
            )

            async def stored(chunk: Sequence[NewPaper]) -> Stored:
                return await _stored_papers(db, chunk, collection_id)

            async def keys(chunk: Sequence[NewPaper], known: Stored) -> Iterator[int]:
                return await _new_keys(db, new_paper_count(chunk, known))

            async def write(plan: FilePlan) -> None:
                await _write_plan(db, plan, collection_id)

            counts = await write_chunks(
                chunks, slug, next_number, next_position, stored=stored, keys=keys, write=write
            )
            if not await shared.record_file(_PostgresTx(db), origin, sha256, collection_id, counts):
                raise _Collided  # the same file, committed by another process meanwhile
            # Any recorded file may change what the index holds (papers or memberships).
            await _bump_generation(db)
            return counts.result(name, slug)

        return await self._transaction(work, seconds=BULK_SECONDS)

    async def index_rows(self, *, with_terms: bool = True, after_key: int = 0) -> list[IndexRow]:
        """Index input of papers with key > `after_key`, by key, in one query."""
        terms = "p.terms" if with_terms else "''"
        rows = await self._fetch(
            f"""
            SELECT p.key, p.id, c.slug, {terms}, coalesce(o.slugs, '{{}}')
            FROM papers AS p
            JOIN collections AS c ON c.id = p.collection_id
            -- Memberships beyond the home collection, aggregated in one pass (a subquery
            -- per paper costs twice the whole read).
            LEFT JOIN (
                SELECT m.paper_key, array_agg(k.slug ORDER BY k.id) AS slugs
                FROM paper_collections AS m
                JOIN papers AS q ON q.key = m.paper_key AND q.collection_id <> m.collection_id
                JOIN collections AS k ON k.id = m.collection_id
                WHERE m.paper_key > $1
                GROUP BY m.paper_key
            ) AS o ON o.paper_key = p.key
            WHERE p.key > $1
            ORDER BY p.key
            """,
            after_key,
            seconds=BULK_SECONDS,
        )
        # Hundreds of thousands of objects: built in a worker thread, not on the event loop.
        return await asyncio.to_thread(_index_rows, rows)

    # -- derived data ---------------------------------------------------------------------

    # -- papers ---------------------------------------------------------------------------

    async def paper(self, paper_id: str) -> Paper | None:
        """An exact paperbot id, else an external id as typed (ignoring case; the first stored
        if several share it), else the id in canonical form ('ICML2026-07' -> icml2026-7)."""
        typed = " ".join(paper_id.split()).lower()
        rows = await self._fetch(
            f"""{_PAPER_SELECT}
            WHERE p.key = coalesce(
                (SELECT key FROM papers WHERE id = $1),
                (SELECT key FROM papers WHERE lower(external_id) = $1 ORDER BY key LIMIT 1),
                (SELECT key FROM papers WHERE id = $2))
            """,
            typed,
            ids.lookup_key(paper_id),
        )
        return _paper(rows[0]) if rows else None

    async def papers_by_key(self, keys: Sequence[int]) -> list[Paper]:
        """Papers in the order given; unknown keys are left out."""
        if not keys:
            return []
        rows = await self._fetch(
            f"{_PAPER_SELECT} WHERE p.key = ANY($1::bigint[])", list(set(keys))
        )
        found = {int(row[11]): _paper(row) for row in rows}
        return [found[key] for key in keys if key in found]

    async def abstracts_by_key(self, keys: Sequence[int]) -> dict[int, str]:
        if not keys:
            return {}
        rows = await self._fetch(
            "SELECT key, abstract FROM papers WHERE key = ANY($1::bigint[])", list(set(keys))
        )
        return {int(row[0]): str(row[1]) for row in rows}

    async def random_paper(self, slug: str | None = None) -> Paper | None:
        """A uniformly random paper, optionally among a collection's papers and members."""
        if slug is None:
            total = await self._fetchval("SELECT count(*) FROM papers")
            pick = "SELECT key FROM papers ORDER BY key LIMIT 1 OFFSET $1"
            params: tuple[Any, ...] = ()
        else:
            params = (slug.strip().lower(),)
            total = await self._fetchval(f"SELECT count(*) {_MEMBERS.format(slug='$1')}", *params)
            pick = f"SELECT m.paper_key {_MEMBERS.format(slug='$2')} ORDER BY m.position"
            pick += " LIMIT 1 OFFSET $1"
        if not total:
            return None
        rows = await self._fetch(
            f"{_PAPER_SELECT} WHERE p.key = ({pick})", random.randrange(int(total)), *params
        )
        return _paper(rows[0]) if rows else None

    # -- collections and statistics -------------------------------------------------------

    async def size_bytes(self) -> int:
        return int(await self._fetchval("SELECT pg_database_size(current_database())"))

    # -- reading lists --------------------------------------------------------------------

    async def saved(self, user_id: int) -> list[Paper]:
        """A user's reading list, oldest first."""
        rows = await self._fetch(
            f"{_PAPER_SELECT} JOIN reading_list AS r ON r.paper_id = p.id "
            "WHERE r.user_id = $1 ORDER BY r.id",
            user_id,
        )
        return [_paper(row) for row in rows]

    # -- plumbing -------------------------------------------------------------------------

    async def _fetch(
        self, sql: str, *params: Any, seconds: float = QUICK_SECONDS
    ) -> list[asyncpg.Record]:
        async def work(db: Db) -> list[asyncpg.Record]:
            return list(await db.fetch(sql, *params))

        return await self._run(work, seconds=seconds, transaction=False)

    async def _rows(self, sql: str, /, *, bulk: bool = False, **values: Any) -> list[Any]:
        query = POSTGRES.query(sql)
        seconds = BULK_SECONDS if bulk else QUICK_SECONDS
        return await self._fetch(query.text, *query.args(values), seconds=seconds)

    async def _write(self, work: Callable[[Tx], Awaitable[_T]], *, bulk: bool = False) -> _T:
        async def run(db: Db) -> _T:
            return await work(_PostgresTx(db))

        return await self._transaction(run, seconds=BULK_SECONDS if bulk else QUICK_SECONDS)

    async def _hold_ingest_lock(self, tx: Tx) -> None:
        await tx.execute("SELECT pg_advisory_xact_lock(:lock)", lock=INGEST_LOCK)

    async def _bump_generation(self, tx: Tx) -> None:
        await _bump(tx)

    async def _fetchval(self, sql: str, *params: Any) -> Any:
        async def work(db: Db) -> Any:
            return await db.fetchval(sql, *params)

        return await self._run(work, seconds=QUICK_SECONDS, transaction=False)

    async def _transaction(
        self, work: Callable[[Db], Awaitable[_T]], *, seconds: float = QUICK_SECONDS
    ) -> _T:
        return await self._run(work, seconds=seconds, transaction=True)

    async def _run(
        self,
        work: Callable[[Db], Awaitable[_T]],
        *,
        seconds: float,
        transaction: bool,
    ) -> _T:
        """Run `work` on a pooled connection (in a transaction if asked) within `seconds`.

        Collisions (serialization failures, deadlocks, a row another process wrote first) run
        it again after a short random pause, up to _ATTEMPTS times in all; a server that is
        away, or slower than `seconds`, is StoreUnavailable. A transaction that fails rolls
        back whole. `seconds` bounds the whole call (waiting for a connection, the work, a
        second try), so a user's question is told within Discord's 3 s deadline.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        for attempt in range(1, _ATTEMPTS + 1):
            expired: list[bool] = []  # set by the watchdog
            try:
                left = max(deadline - loop.time(), _MIN_TRY_SECONDS)
                async with self._pool.acquire(timeout=left) as db:
                    # Not asyncio.timeout: a cancelled query or transaction still waits for the
                    # server (cancel request, ROLLBACK, reset on release), which hangs on a
                    # server that stopped answering. Dropping the socket ends every such wait.
                    left = max(deadline - loop.time(), _MIN_TRY_SECONDS)
                    watchdog = loop.call_later(left, _expire, db, expired)
                    try:
                        if not transaction:
                            return await work(db)
                        async with db.transaction():
                            return await work(db)
                    finally:
                        watchdog.cancel()
            except _RETRY as error:
                if attempt == _ATTEMPTS:
                    log.warning("%s: gave up after %d collisions: %s", self.where, attempt, error)
                    raise StoreUnavailable() from None
                log.info("%s: retrying after %s", self.where, type(error).__name__)
                await asyncio.sleep(random.uniform(0.01, 0.05) * 2**attempt)
            except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError) as error:
                if not is_unavailable(error):
                    raise
                if not transaction and attempt == 1 and not expired and _stale(error):
                    # A pooled connection the server dropped while idle (a restart): a read
                    # is safe to run again on a fresh one.
                    continue
                log.warning("%s unavailable: %s", self.where, type(error).__name__)
                raise StoreUnavailable() from None
        raise AssertionError("unreachable")  # the loop returns or raises


def _expire(db: Db, expired: list[bool]) -> None:
    expired.append(True)
    db.terminate()


def _stale(error: BaseException) -> bool:
    """The connection was found closed, as opposed to a server that refuses or stays silent."""
    return isinstance(error, asyncpg.ConnectionDoesNotExistError | asyncpg.InterfaceError)


class _PostgresTx:
    """`Tx` over a pooled connection inside `PostgresStore._transaction`."""

    def __init__(self, db: Db) -> None:
        self._db = db

    async def execute(self, sql: str, /, **values: Any) -> int:
        query = POSTGRES.query(sql)
        return rowcount(await self._db.execute(query.text, *query.args(values)))

    async def rows(self, sql: str, /, **values: Any) -> list[Any]:
        query = POSTGRES.query(sql)
        return list(await self._db.fetch(query.text, *query.args(values)))

    async def executemany(self, sql: str, values: Sequence[Mapping[str, Any]], /) -> None:
        query = POSTGRES.query(sql)
        await self._db.executemany(query.text, [query.args(row) for row in values])

    async def insert_many(self, sql: str, rows: Sequence[Sequence[Any]], /) -> None:
        await self._db.executemany(POSTGRES.query(sql).text, rows)


async def _set_meta(db: Db, key: str, value: str) -> None:
    await _PostgresTx(db).execute(shared.SET_META, key=key, value=value)


async def _stored_papers(db: Db, chunk: Sequence[NewPaper], collection_id: int) -> Stored:
    """content hash -> (key, is a member of the collection, has a title, has authors),
    earlier chunks included."""
    return {
        row[0]: Known(int(row[1]), bool(row[2]), bool(row[3]), bool(row[4]))
        for row in await db.fetch(
            "SELECT p.content_hash, p.key, EXISTS (SELECT 1 FROM paper_collections AS m "
            "WHERE m.paper_key = p.key AND m.collection_id = $1), "
            "coalesce(p.title, '') <> '', coalesce(cardinality(p.authors), 0) > 0 "
            "FROM papers AS p WHERE p.content_hash = ANY($2::text[])",
            collection_id,
            list({paper.content_hash for paper in chunk}),
        )
    }


async def _new_keys(db: Db, count: int) -> Iterator[int]:
    """`count` keys from the papers' sequence, ascending (the ingest lock is held)."""
    keys = await db.fetch(
        "SELECT nextval(pg_get_serial_sequence('papers', 'key')) FROM generate_series(1, $1)",
        count,
    )
    return iter(sorted(int(row[0]) for row in keys))


async def _write_plan(db: Db, plan: FilePlan, collection_id: int) -> None:
    """One chunk's papers (keys taken from the sequence), memberships and acronym counts."""
    tx = _PostgresTx(db)
    await tx.insert_many(
        f"{shared.INSERT_PAPERS} ON CONFLICT (content_hash) DO NOTHING",
        [shared.paper_values(new, collection_id, list) for new in plan.papers],
    )
    written = await db.fetchval(
        "SELECT count(*) FROM papers WHERE key = ANY($1::bigint[])",
        [new.key for new in plan.papers],
    )
    if written != len(plan.papers):
        raise _Collided  # a paper with one of these hashes appeared meanwhile
    await shared.write_memberships(tx, plan, collection_id)


async def _bump_generation(db: Db) -> None:
    await _bump(_PostgresTx(db))


async def _bump(tx: Tx) -> None:
    """+1, and the notification every process LISTENs for: both commit with the transaction."""
    rows = await tx.rows(shared.BUMP_GENERATION)
    await tx.execute(
        "SELECT pg_notify(:channel, :generation)", channel=CHANNEL, generation=str(rows[0][0])
    )


def _index_rows(rows: Sequence[asyncpg.Record]) -> list[IndexRow]:
    return [
        IndexRow(key=row[0], paper_id=row[1], slugs=(row[2], *row[4]), terms=row[3]) for row in rows
    ]


def _paper(row: asyncpg.Record) -> Paper:
    return shared.paper_of(row, tuple)
