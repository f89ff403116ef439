"""PostgreSQL tables about people and servers: watches, their digests, guild shortlists, activity
counters, and all the store holds about one user (for /privacy and /forget-me). Mixed into
`PostgresStore`; follows `sqlite_community.py` statement by statement, so both backends return
identical values (timestamps are TEXT in SQLite's format, see `NOW_TEXT`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import asyncpg

from retrieval import ids
from retrieval.errors import PaperNotFound
from retrieval.models import Paper
from retrieval.privacy import UserData
from retrieval.shortlist import ShortlistRow
from retrieval.stores.postgres_connect import rowcount
from retrieval.stores.postgres_migrations import NOW_TEXT
from retrieval.stores.sqlite_community import ANONYMISED, USER_TABLES
from retrieval.trending import ACTIVITY_KINDS, ActivityRow
from retrieval.watches import DigestRow, WatchRow

if TYPE_CHECKING:
    from retrieval.stores.postgres_connect import Db

_T = TypeVar("_T")
_WATCH_COLUMNS = (
    "id, user_id, guild_id, channel_id, query, created_at, last_fired_at, paused_reason"
)
_DIGEST_COLUMNS = "id, watch_id, user_id, guild_id, channel_id, body"


class PostgresCommunity:
    """Watches, digests and per-user data over the store's transaction and read helpers."""

    if TYPE_CHECKING:

        async def _transaction(
            self, work: Callable[[Db], Awaitable[_T]], *, seconds: float = ...
        ) -> _T: ...

        async def _fetch(
            self, sql: str, *params: Any, seconds: float = ...
        ) -> list[asyncpg.Record]: ...

        async def _fetchval(self, sql: str, *params: Any) -> Any: ...

        async def papers_by_key(self, keys: Sequence[int]) -> list[Paper]: ...

    # -- watches ----------------------------------------------------------------------------

    async def add_watch(
        self, user_id: int, guild_id: int | None, channel_id: int | None, query: str
    ) -> WatchRow:
        async def work(db: Db) -> asyncpg.Record | None:
            return await db.fetchrow(
                "INSERT INTO watches (user_id, guild_id, channel_id, query) "
                f"VALUES ($1, $2, $3, $4) RETURNING {_WATCH_COLUMNS}",
                user_id,
                guild_id,
                channel_id,
                query,
            )

        row = await self._transaction(work)
        assert row is not None  # INSERT ... RETURNING returns the row it inserted
        return _watch(row)

    async def watch_counts(self, user_id: int, guild_id: int | None) -> tuple[int, int]:
        mine = int(await self._fetchval("SELECT count(*) FROM watches WHERE user_id = $1", user_id))
        if guild_id is None:
            return mine, 0
        theirs = await self._fetchval("SELECT count(*) FROM watches WHERE guild_id = $1", guild_id)
        return mine, int(theirs)

    async def watches_of(self, user_id: int) -> list[WatchRow]:
        rows = await self._fetch(
            f"SELECT {_WATCH_COLUMNS} FROM watches WHERE user_id = $1 ORDER BY id", user_id
        )
        return [_watch(row) for row in rows]

    async def active_watches(self) -> list[WatchRow]:
        rows = await self._fetch(
            f"SELECT {_WATCH_COLUMNS} FROM watches WHERE paused_reason IS NULL ORDER BY id"
        )
        return [_watch(row) for row in rows]

    async def remove_watch(self, user_id: int, watch_id: int) -> bool:
        async def work(db: Db) -> bool:
            owned = await db.fetchval(
                "SELECT 1 FROM watches WHERE id = $1 AND user_id = $2", watch_id, user_id
            )
            if not owned:
                return False
            await _delete_watches(db, "id = $1", watch_id)
            return True

        return await self._transaction(work)

    async def record_digest(
        self, watch: WatchRow, paper_ids: Sequence[str], body: Callable[[Sequence[str]], str]
    ) -> DigestRow | None:
        async def work(db: Db) -> DigestRow | None:
            fresh = []
            for paper_id in dict.fromkeys(paper_ids):
                status = await db.execute(
                    "INSERT INTO watch_deliveries (watch_id, paper_id) VALUES ($1, $2) "
                    "ON CONFLICT DO NOTHING",
                    watch.id,
                    paper_id,
                )
                if rowcount(status) > 0:
                    fresh.append(paper_id)
            if not fresh:
                return None
            text = body(fresh)
            digest_id = await db.fetchval(
                "INSERT INTO watch_digests (watch_id, user_id, guild_id, channel_id, body) "
                "VALUES ($1, $2, $3, $4, $5) RETURNING id",
                watch.id,
                watch.user_id,
                watch.guild_id,
                watch.channel_id,
                text,
            )
            return DigestRow(
                int(digest_id), watch.id, watch.user_id, watch.guild_id, watch.channel_id, text
            )

        return await self._transaction(work)

    async def pending_digests(self) -> list[DigestRow]:
        rows = await self._fetch(
            f"SELECT {_DIGEST_COLUMNS} FROM watch_digests WHERE claimed_by IS NULL ORDER BY id"
        )
        return [DigestRow(*row) for row in rows]

    async def claim_digest(self, digest_id: int, claimer: str) -> bool:
        async def work(db: Db) -> bool:
            # Under READ COMMITTED a second claimer waits for the first to commit, then finds
            # `claimed_by` set and updates nothing.
            status = await db.execute(
                f"UPDATE watch_digests SET claimed_by = $1, claimed_at = {NOW_TEXT} "
                "WHERE id = $2 AND claimed_by IS NULL",
                claimer,
                digest_id,
            )
            return rowcount(status) == 1

        return await self._transaction(work)

    async def finish_digest(self, digest_id: int, failure: str | None) -> None:
        async def work(db: Db) -> None:
            await db.execute(
                f"UPDATE watch_digests SET finished_at = {NOW_TEXT}, failure = $1 WHERE id = $2",
                failure,
                digest_id,
            )
            if failure is None:
                await db.execute(
                    f"UPDATE watches SET last_fired_at = {NOW_TEXT} WHERE id = "
                    "(SELECT watch_id FROM watch_digests WHERE id = $1)",
                    digest_id,
                )
            else:
                await db.execute(
                    "UPDATE watches SET paused_reason = $1 WHERE id = "
                    "(SELECT watch_id FROM watch_digests WHERE id = $2)",
                    failure,
                    digest_id,
                )

        await self._transaction(work)

    # -- what the store holds about a user ---------------------------------------------------

    async def user_data(self, user_id: int) -> UserData:
        counts = {}
        for table, column, field in USER_TABLES + ANONYMISED:
            # Table and column names come from constants, never from input.
            counts[field] = int(
                await self._fetchval(f"SELECT count(*) FROM {table} WHERE {column} = $1", user_id)
            )
        return UserData(**counts)

    async def forget_user(self, user_id: int) -> UserData:
        async def work(db: Db) -> UserData:
            counts = {}
            for table, column, field in USER_TABLES:
                counts[field] = int(
                    await db.fetchval(f"SELECT count(*) FROM {table} WHERE {column} = $1", user_id)
                )
            # Digests for the user's watches first (a channel watch's digests name the owner).
            await _delete_watches(db, "user_id = $1", user_id)
            for table, column, _ in USER_TABLES:
                await db.execute(f"DELETE FROM {table} WHERE {column} = $1", user_id)
            status = await db.execute(
                "UPDATE shortlist SET added_by = 0 WHERE added_by = $1", user_id
            )
            counts["shortlist_entries"] = rowcount(status)
            return UserData(**counts)

        return await self._transaction(work)

    # -- trending (counters only) ----------------------------------------------------------

    async def count_activity(
        self, guild_id: int, day: str, kind: str, paper_ids: Sequence[str]
    ) -> None:
        if kind not in ACTIVITY_KINDS:
            raise ValueError(f"unknown activity {kind!r}")

        async def work(db: Db) -> None:
            # `kind` is one of the fixed column names checked above.
            await db.executemany(
                f"INSERT INTO paper_activity (guild_id, paper_id, day, {kind}) "
                "VALUES ($1, $2, $3, 1) ON CONFLICT (guild_id, paper_id, day) "
                f"DO UPDATE SET {kind} = paper_activity.{kind} + 1",
                [(guild_id, paper_id, day) for paper_id in dict.fromkeys(paper_ids)],
            )

        await self._transaction(work)

    async def activity(self, guild_id: int, since_day: str, limit: int) -> list[ActivityRow]:
        # COLLATE "C": ties ordered by code point, as SQLite orders them.
        rows = await self._fetch(
            "SELECT paper_id, sum(opens), sum(saves), sum(asks) FROM paper_activity "
            "WHERE guild_id = $1 AND day >= $2 GROUP BY paper_id "
            'ORDER BY sum(opens) + sum(saves) + sum(asks) DESC, paper_id COLLATE "C" LIMIT $3',
            guild_id,
            since_day,
            limit,
        )
        return [ActivityRow(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in rows]

    # -- a guild's shared reading list -----------------------------------------------------

    async def shortlist_add(
        self, guild_id: int, paper_id: str, user_id: int, note: str | None
    ) -> bool:
        key = ids.lookup_key(paper_id)

        async def work(db: Db) -> bool:
            status = await db.execute(
                "INSERT INTO shortlist (guild_id, paper_id, added_by, note) "
                "SELECT $1, id, $2, $3 FROM papers WHERE id = $4 ON CONFLICT DO NOTHING",
                guild_id,
                user_id,
                note,
                key,
            )
            if rowcount(status) > 0:
                return True
            if not await db.fetchval("SELECT count(*) FROM papers WHERE id = $1", key):
                raise PaperNotFound(paper_id)
            return False

        return await self._transaction(work)

    async def shortlist_remove(self, guild_id: int, paper_id: str) -> bool:
        async def work(db: Db) -> bool:
            status = await db.execute(
                "DELETE FROM shortlist WHERE guild_id = $1 AND paper_id = $2",
                guild_id,
                ids.lookup_key(paper_id),
            )
            return rowcount(status) > 0

        return await self._transaction(work)

    async def shortlist(self, guild_id: int) -> list[ShortlistRow]:
        rows = await self._fetch(
            "SELECT p.key, s.added_by, s.added_at, s.note FROM shortlist AS s "
            "JOIN papers AS p ON p.id = s.paper_id WHERE s.guild_id = $1 "
            'ORDER BY s.added_at COLLATE "C", s.paper_id COLLATE "C"',
            guild_id,
        )
        papers = await self.papers_by_key([int(row[0]) for row in rows])
        return [
            ShortlistRow(paper, int(row[1]), str(row[2]), row[3])
            for paper, row in zip(papers, rows, strict=True)
        ]


async def _delete_watches(db: Db, where: str, *params: Any) -> None:
    """Watches matching `where`, with their deliveries and digests (explicitly, as SQLite does)."""
    chosen = f"SELECT id FROM watches WHERE {where}"
    await db.execute(f"DELETE FROM watch_deliveries WHERE watch_id IN ({chosen})", *params)
    await db.execute(f"DELETE FROM watch_digests WHERE watch_id IN ({chosen})", *params)
    await db.execute(f"DELETE FROM watches WHERE {where}", *params)


def _watch(row: asyncpg.Record) -> WatchRow:
    return WatchRow(*row)
