"""Watches, digests, guild shortlists, activity counters and per-user data, written once for
both backends over `SqlStore`'s `_rows`/`_write` (see `retrieval.stores.shared`).

Timestamps are TEXT in SQLite's `strftime('%Y-%m-%dT%H:%M:%fZ')` shape on both (`{now}`), and
orderings on text compare code points on both (`{binary}`), so the backends answer alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from retrieval import ids
from retrieval.errors import PaperNotFound
from retrieval.privacy import UserData
from retrieval.shortlist import ShortlistRow
from retrieval.stores.shared import SqlStore, Tx
from retrieval.trending import ACTIVITY_KINDS, ActivityRow
from retrieval.watches.service import DigestRow, WatchRow

if TYPE_CHECKING:
    from retrieval.models import Paper

_WATCH_COLUMNS = (
    "id, user_id, guild_id, channel_id, query, created_at, last_fired_at, paused_reason"
)
_DIGEST_COLUMNS = "id, watch_id, user_id, guild_id, channel_id, body"

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


class CommunitySql(SqlStore):
    """The community half of both stores (mixed into SqliteStore and PostgresStore)."""

    if TYPE_CHECKING:

        async def papers_by_key(self, keys: Sequence[int]) -> list[Paper]: ...

    # -- watches ----------------------------------------------------------------------------

    async def add_watch(
        self, user_id: int, guild_id: int | None, channel_id: int | None, query: str
    ) -> WatchRow:
        async def work(tx: Tx) -> list[Any]:
            return await tx.rows(
                "INSERT INTO watches (user_id, guild_id, channel_id, query) "
                f"VALUES (:user_id, :guild_id, :channel_id, :query) RETURNING {_WATCH_COLUMNS}",
                user_id=user_id,
                guild_id=guild_id,
                channel_id=channel_id,
                query=query,
            )

        rows = await self._write(work)
        return WatchRow(*rows[0])  # INSERT ... RETURNING returns the row it inserted

    async def watch_counts(self, user_id: int, guild_id: int | None) -> tuple[int, int]:
        mine = await self._rows("SELECT count(*) FROM watches WHERE user_id = :id", id=user_id)
        if guild_id is None:
            return int(mine[0][0]), 0
        theirs = await self._rows("SELECT count(*) FROM watches WHERE guild_id = :id", id=guild_id)
        return int(mine[0][0]), int(theirs[0][0])

    async def watches_of(self, user_id: int) -> list[WatchRow]:
        rows = await self._rows(
            f"SELECT {_WATCH_COLUMNS} FROM watches WHERE user_id = :user_id ORDER BY id",
            user_id=user_id,
        )
        return [WatchRow(*row) for row in rows]

    async def active_watches(self) -> list[WatchRow]:
        rows = await self._rows(
            f"SELECT {_WATCH_COLUMNS} FROM watches WHERE paused_reason IS NULL ORDER BY id"
        )
        return [WatchRow(*row) for row in rows]

    async def remove_watch(self, user_id: int, watch_id: int) -> bool:
        async def work(tx: Tx) -> bool:
            owned = await tx.rows(
                "SELECT 1 FROM watches WHERE id = :id AND user_id = :user_id",
                id=watch_id,
                user_id=user_id,
            )
            if not owned:
                return False
            await _delete_watches(tx, "id = :id", id=watch_id)
            return True

        return await self._write(work)

    async def record_digest(
        self, watch: WatchRow, paper_ids: Sequence[str], body: Callable[[Sequence[str]], str]
    ) -> DigestRow | None:
        async def work(tx: Tx) -> DigestRow | None:
            fresh = []
            for paper_id in dict.fromkeys(paper_ids):
                delivered = await tx.execute(
                    "INSERT INTO watch_deliveries (watch_id, paper_id) "
                    "VALUES (:watch_id, :paper_id) ON CONFLICT DO NOTHING",
                    watch_id=watch.id,
                    paper_id=paper_id,
                )
                if delivered > 0:
                    fresh.append(paper_id)
            if not fresh:
                return None
            text = body(fresh)
            rows = await tx.rows(
                "INSERT INTO watch_digests (watch_id, user_id, guild_id, channel_id, body) "
                "VALUES (:watch_id, :user_id, :guild_id, :channel_id, :body) RETURNING id",
                watch_id=watch.id,
                user_id=watch.user_id,
                guild_id=watch.guild_id,
                channel_id=watch.channel_id,
                body=text,
            )
            return DigestRow(
                int(rows[0][0]), watch.id, watch.user_id, watch.guild_id, watch.channel_id, text
            )

        return await self._write(work)

    async def pending_digests(self) -> list[DigestRow]:
        rows = await self._rows(
            f"SELECT {_DIGEST_COLUMNS} FROM watch_digests WHERE claimed_by IS NULL ORDER BY id"
        )
        return [DigestRow(*row) for row in rows]

    async def claim_digest(self, digest_id: int, claimer: str) -> bool:
        async def work(tx: Tx) -> bool:
            # SQLite: one writer at a time. PostgreSQL (READ COMMITTED): a second claimer waits
            # for the first to commit, then finds `claimed_by` set and updates nothing.
            claimed = await tx.execute(
                "UPDATE watch_digests SET claimed_by = :claimer, claimed_at = {now} "
                "WHERE id = :id AND claimed_by IS NULL",
                claimer=claimer,
                id=digest_id,
            )
            return claimed == 1

        return await self._write(work)

    async def finish_digest(self, digest_id: int, failure: str | None) -> None:
        async def work(tx: Tx) -> None:
            await tx.execute(
                "UPDATE watch_digests SET finished_at = {now}, failure = :failure WHERE id = :id",
                failure=failure,
                id=digest_id,
            )
            if failure is None:
                await tx.execute(
                    "UPDATE watches SET last_fired_at = {now} WHERE id = "
                    "(SELECT watch_id FROM watch_digests WHERE id = :id)",
                    id=digest_id,
                )
            else:
                await tx.execute(
                    "UPDATE watches SET paused_reason = :failure WHERE id = "
                    "(SELECT watch_id FROM watch_digests WHERE id = :id)",
                    failure=failure,
                    id=digest_id,
                )

        await self._write(work)

    # -- what the store holds about a user ---------------------------------------------------

    async def user_data(self, user_id: int) -> UserData:
        counts = {}
        for table, column, field in USER_TABLES + ANONYMISED:
            # Table and column names come from the constants above, never from input.
            sql = f"SELECT count(*) FROM {table} WHERE {column} = :user_id"
            counts[field] = int((await self._rows(sql, user_id=user_id))[0][0])
        return UserData(**counts)

    async def forget_user(self, user_id: int) -> UserData:
        async def work(tx: Tx) -> UserData:
            counts = {}
            for table, column, field in USER_TABLES:
                sql = f"SELECT count(*) FROM {table} WHERE {column} = :user_id"
                counts[field] = int((await tx.rows(sql, user_id=user_id))[0][0])
            # Digests for the user's watches first (a channel watch's digests name the owner).
            await _delete_watches(tx, "user_id = :user_id", user_id=user_id)
            for table, column, _ in USER_TABLES:
                await tx.execute(f"DELETE FROM {table} WHERE {column} = :user_id", user_id=user_id)
            counts["shortlist_entries"] = await tx.execute(
                "UPDATE shortlist SET added_by = 0 WHERE added_by = :user_id", user_id=user_id
            )
            return UserData(**counts)

        return await self._write(work)

    # -- trending (counters only) ----------------------------------------------------------

    async def count_activity(
        self, guild_id: int, day: str, kind: str, paper_ids: Sequence[str]
    ) -> None:
        if kind not in ACTIVITY_KINDS:
            raise ValueError(f"unknown activity {kind!r}")

        async def work(tx: Tx) -> None:
            # `kind` is one of the fixed column names checked above.
            await tx.executemany(
                f"INSERT INTO paper_activity (guild_id, paper_id, day, {kind}) "
                "VALUES (:guild_id, :paper_id, :day, 1) ON CONFLICT (guild_id, paper_id, day) "
                f"DO UPDATE SET {kind} = paper_activity.{kind} + 1",
                [
                    {"guild_id": guild_id, "paper_id": paper_id, "day": day}
                    for paper_id in dict.fromkeys(paper_ids)
                ],
            )

        await self._write(work)

    async def activity(self, guild_id: int, since_day: str, limit: int) -> list[ActivityRow]:
        rows = await self._rows(
            "SELECT paper_id, sum(opens), sum(saves), sum(asks) FROM paper_activity "
            "WHERE guild_id = :guild_id AND day >= :since GROUP BY paper_id "
            "ORDER BY sum(opens) + sum(saves) + sum(asks) DESC, paper_id{binary} LIMIT :limit",
            guild_id=guild_id,
            since=since_day,
            limit=limit,
        )
        return [ActivityRow(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in rows]

    # -- a guild's shared reading list -----------------------------------------------------

    async def shortlist_add(
        self, guild_id: int, paper_id: str, user_id: int, note: str | None
    ) -> bool:
        key = ids.lookup_key(paper_id)

        async def work(tx: Tx) -> bool:
            added = await tx.execute(
                "INSERT INTO shortlist (guild_id, paper_id, added_by, note) "
                "SELECT :guild_id, id, :user_id, :note FROM papers WHERE id = :key "
                "ON CONFLICT DO NOTHING",
                guild_id=guild_id,
                user_id=user_id,
                note=note,
                key=key,
            )
            if added > 0:
                return True
            if not await tx.rows("SELECT 1 FROM papers WHERE id = :key", key=key):
                raise PaperNotFound(paper_id)
            return False

        return await self._write(work)

    async def shortlist_remove(self, guild_id: int, paper_id: str) -> bool:
        async def work(tx: Tx) -> bool:
            removed = await tx.execute(
                "DELETE FROM shortlist WHERE guild_id = :guild_id AND paper_id = :key",
                guild_id=guild_id,
                key=ids.lookup_key(paper_id),
            )
            return removed > 0

        return await self._write(work)

    async def shortlist(self, guild_id: int) -> list[ShortlistRow]:
        rows = await self._rows(
            "SELECT p.{key}, s.added_by, s.added_at, s.note FROM shortlist AS s "
            "JOIN papers AS p ON p.id = s.paper_id WHERE s.guild_id = :guild_id "
            "ORDER BY s.added_at{binary}, s.paper_id{binary}",
            guild_id=guild_id,
        )
        papers = await self.papers_by_key([int(row[0]) for row in rows])
        return [
            ShortlistRow(paper, int(row[1]), str(row[2]), row[3])
            for paper, row in zip(papers, rows, strict=True)
        ]


async def _delete_watches(tx: Tx, where: str, **values: Any) -> None:
    """Watches matching `where`, with their deliveries and digests (explicitly, not relying on
    foreign-key cascades, which a SQLite connection may have switched off)."""
    chosen = f"SELECT id FROM watches WHERE {where}"
    await tx.execute(f"DELETE FROM watch_deliveries WHERE watch_id IN ({chosen})", **values)
    await tx.execute(f"DELETE FROM watch_digests WHERE watch_id IN ({chosen})", **values)
    await tx.execute(f"DELETE FROM watches WHERE {where}", **values)
