"""`paperbot migrate-store`: SQLite copied into PostgreSQL, everything users hold kept."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from bot.terminal.cli import main
from retrieval.errors import StoreError
from retrieval.nodes import NodeRow
from retrieval.stores.migrate import _COPIED, copy_sqlite_to_postgres
from retrieval.stores.postgres import PostgresStore
from retrieval.stores.postgres_migrations import TABLES
from retrieval.stores.protocol import ConversationRow
from retrieval.stores.sqlite import SqliteStore
from retrieval.stores.store import Store
from tests.retrieval.stores.papers import add, new_paper, papers


async def fill(store: Store) -> None:
    """A bit of everything: memberships, acronyms, renames, lists, memory, meta."""
    moe = ("MoE", "Mixture of Experts")
    await add(store, "a", "icml2026", [new_paper(1, acronyms=(moe,), title="T"), new_paper(2)])
    await add(store, "b", "NeurIPS 2025", [new_paper(2), new_paper(3, urls=("https://x.y",))])
    await add(store, "c", "ICML 2026", papers(4, 5))
    await store.rename_collection("icml2026", "ICML 2026")
    await store.save(1_200_000_000_000_000_001, "icml2026-4")
    await store.save(1_200_000_000_000_000_001, "neurips2025-1")
    await store.save(1_200_000_000_000_000_001, "icml2026-1")
    await store.save(7, "icml2026-2")
    await store.remember_conversation(ConversationRow("dm:7", 7, '{"q": "moe"}', 1.5))
    await store.remember_answer_message(99, ConversationRow("g:1", 8, "{}", 2.5))
    await store.record_command_sync("global", "hash-1")
    await store.heartbeat(NodeRow("h:5000000000:9", "h", 5_000_000_000, "0,1", 3, 9.5, 10.25))
    rows = await store.index_rows()
    await store.replace_derived("analyzer", "A9", terms=[(rows[0].key, "rederived terms")])
    await store.replace_derived("labeler", "L3", labels=[(rows[1].key, "Relabelled")])
    # Community tables: watches (one paused), deliveries, digests, a shortlist, counters.
    watch = await store.add_watch(7, 1_100_000_000_000_000_010, 1_100_000_000_000_000_020, "moe")
    paused = await store.add_watch(8, None, None, "graphs")
    await store.record_digest(watch, ["icml2026-1", "icml2026-2"], ",".join)
    failed = await store.record_digest(paused, ["icml2026-3"], ",".join)
    assert failed is not None
    await store.claim_digest(failed.id, "proc-1")
    await store.finish_digest(failed.id, "DMs closed")
    await store.shortlist_add(1_100_000_000_000_000_010, "icml2026-2", 7, "read first")
    await store.count_activity(1_100_000_000_000_000_010, "2026-11-30", "opens", ["icml2026-2"])


async def everything(store: Store) -> list[object]:
    """All a store shows through the Protocol."""
    rows = await store.index_rows()
    keys = [row.key for row in rows]
    return [
        rows,
        await store.papers_by_key(keys),
        await store.paper_labels(),
        await store.collections(),
        await store.acronym_table(),
        await store.counts(),
        await store.generation(),
        await store.saved(1_200_000_000_000_000_001),
        await store.saved(7),
        await store.conversation("dm:7"),
        await store.answer_message(99),
        await store.command_sync_hash("global"),
        await store.nodes(),
        await store.watches_of(7),
        await store.watches_of(8),
        await store.active_watches(),
        await store.pending_digests(),
        await store.shortlist(1_100_000_000_000_000_010),
        await store.activity(1_100_000_000_000_000_010, "2026-01-01", 10),
        await store.user_data(7),
        await store.user_data(8),
        await store.derived_version("analyzer"),
        await store.derived_version("labeler"),
        await store.stored_texts(),
        await store.file_ingested("b"),
    ]


def test_every_sqlite_table_is_copied() -> None:
    assert [table.name for table in _COPIED] == list(TABLES)


async def test_a_copy_shows_exactly_what_the_sqlite_store_showed(
    tmp_path: Path, pg_url: str
) -> None:
    source = tmp_path / "paperbot.db"
    async with await SqliteStore.open(source) as sqlite:
        await fill(sqlite)
        expected = await everything(sqlite)
    counts = await copy_sqlite_to_postgres(source, pg_url)
    assert [(c.table, c.source == c.copied) for c in counts] == [(t, True) for t in TABLES]
    by_table = {c.table: c.copied for c in counts}
    assert (by_table["papers"], by_table["collections"], by_table["reading_list"]) == (5, 2, 4)
    async with await PostgresStore.open(pg_url) as postgres:
        assert await everything(postgres) == expected
        # Numbering, keys and list order go on from where SQLite left them.
        result = await add(postgres, "d", "ICML 2026", papers(6))
        assert result.added == 1
        rows = await postgres.index_rows()
        assert rows[-1].paper_id == "icml2026-5"
        assert rows[-1].key > rows[-2].key
        await postgres.save(7, "icml2026-1")
        # Watch and digest ids go on after the copied ones; deliveries are remembered.
        (watch,) = await postgres.watches_of(7)
        assert (await postgres.add_watch(7, None, None, "new")).id > watch.id
        assert await postgres.record_digest(watch, ["icml2026-1"], ",".join) is None
        fresh = await postgres.record_digest(watch, ["icml2026-5"], ",".join)
        assert fresh is not None
        assert fresh.id == 3  # SQLite's digests 1 and 2 were copied with their ids
        assert [p.id for p in await postgres.saved(7)] == ["icml2026-2", "icml2026-1"]


async def test_a_target_holding_paperbot_data_is_refused_and_left_alone(
    tmp_path: Path, pg_url: str
) -> None:
    source = tmp_path / "paperbot.db"
    async with await SqliteStore.open(source) as sqlite:
        await fill(sqlite)
    async with await PostgresStore.open(pg_url) as postgres:
        await add(postgres, "z", "Other", papers(9))
    with pytest.raises(StoreError, match="already holds paperbot data") as caught:
        await copy_sqlite_to_postgres(source, pg_url)
    assert "empty database" in str(caught.value)
    async with await PostgresStore.open(pg_url) as postgres:
        assert await postgres.counts() == (1, 1)


async def test_a_missing_source_is_one_line_and_creates_nothing(
    tmp_path: Path, pg_url: str
) -> None:
    with pytest.raises(StoreError, match="No SQLite database at") as caught:
        await copy_sqlite_to_postgres(tmp_path / "nowhere.db", pg_url)
    assert "--from" in str(caught.value)
    assert not (tmp_path / "nowhere.db").exists()


def _with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    netloc = f"{parts.username or 'postgres'}:{password}@{parts.hostname}:{parts.port or 5432}"
    return urlunsplit(parts._replace(netloc=netloc))


def test_the_cli_copies_prints_counts_and_refuses_a_second_copy(
    tmp_path: Path,
    pg_url_sync: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env from the working copy
    source = tmp_path / "paperbot.db"

    async def prepare() -> None:
        async with await SqliteStore.open(source) as sqlite:
            await fill(sqlite)

    asyncio.run(prepare())
    # Trust authentication ignores the password; it is there to be kept out of the output.
    url = _with_password(pg_url_sync, "pw-canary-31")
    assert main(["migrate-store", "--from", str(source), "--to", url]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].startswith(f"copied {source} -> postgresql://")
    assert any(line.split()[:4] == ["papers", "5", "of", "5"] for line in lines)
    assert len(lines) == 2 + len(TABLES)
    assert "pw-canary-31" not in out + err

    assert main(["migrate-store", "--from", str(source), "--to", url]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert "already holds paperbot data" in err
    assert "pw-canary-31" not in err


def test_the_cli_without_a_target_says_how_to_name_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PAPERBOT_DATABASE_URL", raising=False)
    monkeypatch.setenv("PAPERBOT_DB_PATH", str(tmp_path / "never.db"))
    assert main(["migrate-store"]) == 1
    assert "needs --to postgresql://" in capsys.readouterr().err
    assert not (tmp_path / "never.db").exists()


async def test_a_source_at_a_newer_schema_is_refused(tmp_path: Path, pg_url: str) -> None:
    source = tmp_path / "paperbot.db"
    async with await SqliteStore.open(source):
        pass
    with sqlite3.connect(source) as connection:
        connection.execute("PRAGMA user_version = 999")
    with pytest.raises(StoreError, match="newer paperbot"):
        await copy_sqlite_to_postgres(source, pg_url)
    connection = await asyncpg.connect(pg_url)
    try:
        assert await connection.fetchval("SELECT to_regclass('papers')") is None
    finally:
        await connection.close()


@pytest.mark.parametrize(
    "target",
    [
        "postgresql://bot:pw-canary-8@db:port/paperbot",
        "postgresql://bot:pw-canary-8@[::1/paperbot",
        "mysql://bot:pw-canary-8@db/paperbot",
    ],
)
def test_a_malformed_target_is_one_line_without_the_password(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    target: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "paperbot.db"

    async def prepare() -> None:
        async with await SqliteStore.open(source):
            pass

    asyncio.run(prepare())
    assert main(["migrate-store", "--from", str(source), "--to", target]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("paperbot: PAPERBOT_DATABASE_URL: ")
    assert err.count("\n") == 1
    assert "pw-canary-8" not in err
