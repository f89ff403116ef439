"""forget_user: after it, no row in any table names the user; other users keep theirs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from retrieval.privacy import UserData
from retrieval.stores.protocol import NewPaper
from retrieval.stores.sqlite import SqliteStore

ALICE, BOB = 11, 22
# Columns that hold a Discord user id, wherever they appear.
USER_COLUMNS = {"user_id", "added_by"}


def new_paper(n: int) -> NewPaper:
    return NewPaper(
        abstract=f"Abstract number {n} about routing.",
        external_id=f"f.txt:{n}",
        label=f"Paper {n}",
        content_hash=f"hash{n}",
        terms="rout",
    )


async def fill(store: SqliteStore, user: int) -> None:
    await store.save(user, "icml2026-1")
    await store.save(user, "icml2026-2")
    watch = await store.add_watch(user, 5, None, "moe routing")
    await store.add_watch(user, None, None, "diffusion")
    await store.record_digest(watch, ["icml2026-1"], lambda ids: ",".join(ids))
    await store.shortlist_add(5 + user, "icml2026-1", user, "read this")
    from retrieval.stores.protocol import ConversationRow

    await store.remember_conversation(ConversationRow(f"dm:{user}", user, "{}", 1.0))
    await store.remember_answer_message(user * 100, ConversationRow(f"dm:{user}", user, "{}", 1.0))


def rows_naming(path: Path, user: int) -> dict[str, int]:
    """Every table with a user-id column, and how many of its rows hold `user`."""
    found: dict[str, int] = {}
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            columns = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
            for column in columns & USER_COLUMNS:
                count = db.execute(
                    f"SELECT count(*) FROM {table} WHERE {column} = ?", (user,)
                ).fetchone()[0]
                found[f"{table}.{column}"] = count
    return found


async def test_forget_user_leaves_nothing_and_spares_others(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    async with await SqliteStore.open(path) as store:
        await store.add_file(
            origin="f.txt", sha256="s", collection="ICML 2026", papers=[new_paper(1), new_paper(2)]
        )
        await fill(store, ALICE)
        await fill(store, BOB)
        expected = UserData(
            saved_papers=2,
            watches=2,
            conversations=1,
            answer_messages=1,
            watch_digests=1,
            shortlist_entries=1,
        )
        assert await store.user_data(ALICE) == expected
        assert await store.forget_user(ALICE) == expected
        assert await store.user_data(ALICE) == UserData()
        assert await store.user_data(BOB) == expected
        assert len(await store.watches_of(BOB)) == 2
        # The guild keeps its list; the entry no longer names the curator.
        [entry] = await store.shortlist(5 + ALICE)
        assert entry.added_by == 0 and entry.note == "read this"
    before_tables = rows_naming(path, ALICE)
    assert before_tables, "no user-id columns found: the check would prove nothing"
    assert all(count == 0 for count in before_tables.values()), before_tables
    assert all(count > 0 for count in rows_naming(path, BOB).values())
    with sqlite3.connect(path) as db:
        # Deliveries hold no user id but belong to the user's watches: gone with them.
        assert db.execute("SELECT count(*) FROM watch_deliveries").fetchone()[0] == 1


async def test_forget_a_stranger_deletes_nothing(tmp_path: Path) -> None:
    async with await SqliteStore.open(tmp_path / "db.sqlite") as store:
        assert await store.forget_user(999) == UserData()


def test_held_data_is_counted_in_words() -> None:
    from retrieval.privacy import UserData, describe

    lines = describe(UserData(saved_papers=2, watches=1, shortlist_entries=1))
    assert lines[0].startswith("2 saved papers in your reading list")
    assert lines[1] == "1 watch on new papers"
    assert lines[2].startswith("1 server reading list entry you added")
