"""SQLite tables about people and servers: watches, their digests, guild shortlists, and all the
store holds about one user (for /privacy and /forget-me). Mixed into `SqliteStore`; the SQL is
kept portable (no SQLite-only syntax) so the PostgreSQL store can follow it statement by statement.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

import aiosqlite

from retrieval import ids
from retrieval.errors import PaperNotFound
from retrieval.models import Paper
from retrieval.privacy import UserData
from retrieval.shortlist import ShortlistRow
from retrieval.trending import ACTIVITY_KINDS, ActivityRow
from retrieval.watches import DigestRow, WatchRow

_WATCH_COLUMNS = (
    "id, user_id, guild_id, channel_id, query, created_at, last_fired_at, paused_reason"
)
_DIGEST_COLUMNS = "id, watch_id, user_id, guild_id, channel_id, body"
_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

# Every table with a user id column, the column, and the UserData field that counts it.
USER_TABLES: tuple[tuple[str, str, str], ...] = (
    ("reading_list", "user_id", "saved_papers"),
    ("watches", "user_id", "watches"),
    ("conversations", "user_id", "conversations"),
    ("answer_messages", "user_id", "answer_messages"),
    ("watch_digests", "user_id", "watch_digests"),
)
# Kept when a curator is forgotten (the guild's list is the guild's): only the name goes.
ANONYMISED: tuple[tuple[str, str, str], ...] = (("shortlist", "added_by", "shortlist_entries"),)


class SqliteCommunity:
    """Watches, digests and per-user data over the store's transaction and read helpers."""

    if TYPE_CHECKING:

        def _transaction(self) -> AbstractAsyncContextManager[aiosqlite.Connection]: ...

        async def papers_by_key(self, keys: Sequence[int]) -> list[Paper]: ...

        async def _read(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]: ...

    # -- watches ----------------------------------------------------------------------------

    async def add_watch(
        self, user_id: int, guild_id: int | None, channel_id: int | None, query: str
    ) -> WatchRow:
        async with self._transaction() as db:
            cursor = await db.execute(
                "INSERT INTO watches (user_id, guild_id, channel_id, query) VALUES (?, ?, ?, ?)",
                (user_id, guild_id, channel_id, query),
            )
            rows = list(
                await db.execute_fetchall(
                    f"SELECT {_WATCH_COLUMNS} FROM watches WHERE id = ?", (cursor.lastrowid,)
                )
            )
        return _watch(rows[0])

    async def watch_counts(self, user_id: int, guild_id: int | None) -> tuple[int, int]:
        mine = await self._read("SELECT count(*) FROM watches WHERE user_id = ?", (user_id,))
        if guild_id is None:
            return int(mine[0][0]), 0
        theirs = await self._read("SELECT count(*) FROM watches WHERE guild_id = ?", (guild_id,))
        return int(mine[0][0]), int(theirs[0][0])

    async def watches_of(self, user_id: int) -> list[WatchRow]:
        rows = await self._read(
            f"SELECT {_WATCH_COLUMNS} FROM watches WHERE user_id = ? ORDER BY id", (user_id,)
        )
        return [_watch(row) for row in rows]

    async def active_watches(self) -> list[WatchRow]:
        rows = await self._read(
            f"SELECT {_WATCH_COLUMNS} FROM watches WHERE paused_reason IS NULL ORDER BY id"
        )
        return [_watch(row) for row in rows]

    async def remove_watch(self, user_id: int, watch_id: int) -> bool:
        async with self._transaction() as db:
            owned = list(
                await db.execute_fetchall(
                    "SELECT 1 FROM watches WHERE id = ? AND user_id = ?", (watch_id, user_id)
                )
            )
            if not owned:
                return False
            await _delete_watches(db, "id = ?", (watch_id,))
            return True

    async def record_digest(
        self, watch: WatchRow, paper_ids: Sequence[str], body: Callable[[Sequence[str]], str]
    ) -> DigestRow | None:
        async with self._transaction() as db:
            fresh = []
            for paper_id in dict.fromkeys(paper_ids):
                cursor = await db.execute(
                    "INSERT INTO watch_deliveries (watch_id, paper_id) VALUES (?, ?) "
                    "ON CONFLICT DO NOTHING",
                    (watch.id, paper_id),
                )
                if cursor.rowcount > 0:
                    fresh.append(paper_id)
            if not fresh:
                return None
            text = body(fresh)
            cursor = await db.execute(
                "INSERT INTO watch_digests (watch_id, user_id, guild_id, channel_id, body) "
                "VALUES (?, ?, ?, ?, ?)",
                (watch.id, watch.user_id, watch.guild_id, watch.channel_id, text),
            )
            digest_id = cursor.lastrowid
        assert digest_id is not None
        return DigestRow(digest_id, watch.id, watch.user_id, watch.guild_id, watch.channel_id, text)

    async def pending_digests(self) -> list[DigestRow]:
        rows = await self._read(
            f"SELECT {_DIGEST_COLUMNS} FROM watch_digests WHERE claimed_by IS NULL ORDER BY id"
        )
        return [DigestRow(*row) for row in rows]

    async def claim_digest(self, digest_id: int, claimer: str) -> bool:
        async with self._transaction() as db:
            cursor = await db.execute(
                f"UPDATE watch_digests SET claimed_by = ?, claimed_at = {_NOW} "
                "WHERE id = ? AND claimed_by IS NULL",
                (claimer, digest_id),
            )
            return cursor.rowcount == 1

    async def finish_digest(self, digest_id: int, failure: str | None) -> None:
        async with self._transaction() as db:
            await db.execute(
                f"UPDATE watch_digests SET finished_at = {_NOW}, failure = ? WHERE id = ?",
                (failure, digest_id),
            )
            if failure is None:
                await db.execute(
                    f"UPDATE watches SET last_fired_at = {_NOW} WHERE id = "
                    "(SELECT watch_id FROM watch_digests WHERE id = ?)",
                    (digest_id,),
                )
            else:
                await db.execute(
                    "UPDATE watches SET paused_reason = ? WHERE id = "
                    "(SELECT watch_id FROM watch_digests WHERE id = ?)",
                    (failure, digest_id),
                )

    # -- what the store holds about a user ---------------------------------------------------

    async def user_data(self, user_id: int) -> UserData:
        counts = {}
        for table, column, field in USER_TABLES + ANONYMISED:
            # Table and column names come from the constants above, never from input.
            rows = await self._read(f"SELECT count(*) FROM {table} WHERE {column} = ?", (user_id,))
            counts[field] = int(rows[0][0])
        return UserData(**counts)

    async def forget_user(self, user_id: int) -> UserData:
        async with self._transaction() as db:
            counts = {}
            for table, column, field in USER_TABLES:
                rows = list(
                    await db.execute_fetchall(
                        f"SELECT count(*) FROM {table} WHERE {column} = ?", (user_id,)
                    )
                )
                counts[field] = int(rows[0][0])
            # Digests for the user's watches first (a channel watch's digests name the owner).
            await _delete_watches(db, "user_id = ?", (user_id,))
            for table, column, _ in USER_TABLES:
                await db.execute(f"DELETE FROM {table} WHERE {column} = ?", (user_id,))
            cursor = await db.execute(
                "UPDATE shortlist SET added_by = 0 WHERE added_by = ?", (user_id,)
            )
            counts["shortlist_entries"] = max(cursor.rowcount, 0)
        return UserData(**counts)

    # -- trending (counters only) ----------------------------------------------------------

    async def count_activity(
        self, guild_id: int, day: str, kind: str, paper_ids: Sequence[str]
    ) -> None:
        if kind not in ACTIVITY_KINDS:
            raise ValueError(f"unknown activity {kind!r}")
        async with self._transaction() as db:
            # `kind` is one of the fixed column names checked above.
            await db.executemany(
                f"INSERT INTO paper_activity (guild_id, paper_id, day, {kind}) VALUES (?, ?, ?, 1) "
                f"ON CONFLICT (guild_id, paper_id, day) "
                f"DO UPDATE SET {kind} = paper_activity.{kind} + 1",
                [(guild_id, paper_id, day) for paper_id in dict.fromkeys(paper_ids)],
            )

    async def activity(self, guild_id: int, since_day: str, limit: int) -> list[ActivityRow]:
        rows = await self._read(
            "SELECT paper_id, sum(opens), sum(saves), sum(asks) FROM paper_activity "
            "WHERE guild_id = ? AND day >= ? GROUP BY paper_id "
            "ORDER BY sum(opens) + sum(saves) + sum(asks) DESC, paper_id LIMIT ?",
            (guild_id, since_day, limit),
        )
        return [ActivityRow(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in rows]

    # -- a guild's shared reading list -----------------------------------------------------

    async def shortlist_add(
        self, guild_id: int, paper_id: str, user_id: int, note: str | None
    ) -> bool:
        key = ids.lookup_key(paper_id)
        async with self._transaction() as db:
            cursor = await db.execute(
                "INSERT INTO shortlist (guild_id, paper_id, added_by, note) "
                "SELECT ?, id, ?, ? FROM papers WHERE id = ? ON CONFLICT DO NOTHING",
                (guild_id, user_id, note, key),
            )
            if cursor.rowcount > 0:
                return True
            found = list(await db.execute_fetchall("SELECT 1 FROM papers WHERE id = ?", (key,)))
            if not found:
                raise PaperNotFound(paper_id)
        return False

    async def shortlist_remove(self, guild_id: int, paper_id: str) -> bool:
        async with self._transaction() as db:
            cursor = await db.execute(
                "DELETE FROM shortlist WHERE guild_id = ? AND paper_id = ?",
                (guild_id, ids.lookup_key(paper_id)),
            )
            return cursor.rowcount > 0

    async def shortlist(self, guild_id: int) -> list[ShortlistRow]:
        rows = await self._read(
            "SELECT p.rowid, s.added_by, s.added_at, s.note FROM shortlist AS s "
            "JOIN papers AS p ON p.id = s.paper_id WHERE s.guild_id = ? "
            "ORDER BY s.added_at, s.paper_id",
            (guild_id,),
        )
        papers = await self.papers_by_key([int(row[0]) for row in rows])
        return [
            ShortlistRow(paper, int(row[1]), str(row[2]), row[3])
            for paper, row in zip(papers, rows, strict=True)
        ]


async def _delete_watches(db: aiosqlite.Connection, where: str, params: tuple[Any, ...]) -> None:
    """Watches matching `where`, with their deliveries and digests (explicitly, not relying on
    foreign-key cascades, which a connection may have switched off)."""
    chosen = f"SELECT id FROM watches WHERE {where}"
    await db.execute(f"DELETE FROM watch_deliveries WHERE watch_id IN ({chosen})", params)
    await db.execute(f"DELETE FROM watch_digests WHERE watch_id IN ({chosen})", params)
    await db.execute(f"DELETE FROM watches WHERE {where}", params)


def _watch(row: sqlite3.Row) -> WatchRow:
    return WatchRow(*row)
