"""What only the PostgreSQL store has: several processes on one database, a server that goes
away and comes back, LISTEN/NOTIFY of corpus generations, and errors about the URL at open.

"Processes" are separate stores (separate pools and connections); a TCP proxy (proxy.py) stands
in for a server that stops or stops answering, so the shared server is never touched.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from retrieval.errors import StoreError, StoreUnavailable
from retrieval.stores.postgres import PostgresStore
from retrieval.stores.postgres_connect import QUICK_SECONDS, describe, explain_open_error
from retrieval.stores.postgres_listen import CHANNEL
from retrieval.stores.postgres_migrations import MIGRATIONS
from retrieval.stores.protocol import ConversationRow
from tests.conftest import write_list
from tests.retrieval.stores.conftest import run_apart
from tests.retrieval.stores.papers import add, new_paper, papers
from tests.retrieval.stores.proxy import Proxy
from tests.waits import HANG_SECONDS, until

# -- several processes ------------------------------------------------------------------------


async def test_processes_opening_a_new_database_together_migrate_it_once(pg_url: str) -> None:
    stores = await asyncio.gather(*(PostgresStore.open(pg_url) for _ in range(6)))
    try:
        connection = await asyncpg.connect(pg_url)
        try:
            assert await connection.fetchval("SELECT version FROM paperbot_schema") == len(
                MIGRATIONS
            )
            assert await connection.fetchval("SELECT count(*) FROM paperbot_schema") == 1
        finally:
            await connection.close()
        await add(stores[0], "a", "ICML 2026", papers(1))
        assert [await s.counts() for s in stores] == [(1, 1)] * 6
    finally:
        await asyncio.gather(*(s.close() for s in stores))


async def test_two_processes_ingesting_one_collection_at_once_never_collide(pg_url: str) -> None:
    first, second = await PostgresStore.open(pg_url), await PostgresStore.open(pg_url)
    try:
        # 2 x 12 files of 40 papers; file k of each process shares 5 abstracts with the other's.
        async def ingest(store: PostgresStore, offset: int) -> list[int]:
            added = []
            for k in range(12):
                base = 10_000 * k
                items = papers(*range(base + offset, base + offset + 35), *range(base, base + 5))
                result = await add(store, f"{offset}-{k}", "ICML 2026", items)
                added.append(result.added)
            return added

        added_first, added_second = await asyncio.gather(ingest(first, 100), ingest(second, 200))
        total = sum(added_first) + sum(added_second)
        assert total == 12 * (35 + 35 + 5)  # each shared abstract stored once
        assert await first.counts() == (total, 1)
        assert await second.counts() == (total, 1)
        rows = await first.index_rows(with_terms=False)
        numbers = sorted(int(row.paper_id.rsplit("-", 1)[1]) for row in rows)
        assert numbers == list(range(1, total + 1))  # dense, no id used twice
        keys = [row.key for row in rows]
        assert len(set(keys)) == total
        # Keys ascend with ids within each file: the order papers were inserted in.
        by_key = sorted(rows, key=lambda row: row.key)
        positions = [int(row.paper_id.rsplit("-", 1)[1]) for row in by_key]
        assert positions == sorted(positions)
        infos = await second.collections()
        assert [(info.papers, info.files) for info in infos] == [(total, 24)]
        assert await first.generation() == 24
    finally:
        await first.close()
        await second.close()


async def test_the_same_file_from_two_processes_at_once_is_stored_once(pg_url: str) -> None:
    first, second = await PostgresStore.open(pg_url), await PostgresStore.open(pg_url)
    try:
        items = papers(*range(1, 200))
        results = await asyncio.gather(
            add(first, "same", "ICML 2026", items), add(second, "same", "ICML 2026", items)
        )
        assert sorted(r.already_ingested for r in results) == [False, True]
        assert await first.counts() == (199, 1)
        assert await first.generation() == 1
    finally:
        await first.close()
        await second.close()


async def test_saves_from_two_processes_keep_every_entry_once(pg_url: str) -> None:
    first, second = await PostgresStore.open(pg_url), await PostgresStore.open(pg_url)
    try:
        await add(first, "a", "ICML 2026", papers(*range(1, 21)))
        calls = [store.save(5, f"icml2026-{n}") for n in range(1, 21) for store in (first, second)]
        results = await asyncio.gather(*calls)
        assert sum(results) == 20  # one True per paper, whichever process won
        saved = [paper.id for paper in await second.saved(5)]
        assert sorted(saved) == sorted(f"icml2026-{n}" for n in range(1, 21))
    finally:
        await first.close()
        await second.close()


# -- collisions are retried inside the store --------------------------------------------------


async def test_serialization_failures_and_deadlocks_are_retried(pg_url: str) -> None:
    async with await PostgresStore.open(pg_url) as store:
        failures = [asyncpg.SerializationError, asyncpg.DeadlockDetectedError]
        attempts = 0

        async def work(db: object) -> str:
            nonlocal attempts
            attempts += 1
            if failures:
                raise failures.pop(0)("collided")
            return "done"

        assert await store._transaction(work) == "done"
        assert attempts == 3


async def test_endless_collisions_end_as_store_unavailable(pg_url: str) -> None:
    async with await PostgresStore.open(pg_url) as store:
        attempts = 0

        async def work(db: object) -> None:
            nonlocal attempts
            attempts += 1
            raise asyncpg.SerializationError("collided")

        with pytest.raises(StoreUnavailable) as caught:
            await store._transaction(work)
        assert attempts == 5
        assert str(caught.value) == "The database is unavailable; try again in a moment."


async def test_a_real_deadlock_between_two_processes_reaches_no_caller(pg_url: str) -> None:
    """Two writers lock the same two rows in opposite orders; PostgreSQL kills one, the store
    runs it again, and both calls succeed."""
    first, second = await PostgresStore.open(pg_url), await PostgresStore.open(pg_url)
    try:
        await first.record_command_sync("a", "0")
        await first.record_command_sync("b", "0")
        both_hold_one = asyncio.Barrier(2)
        rounds = {"first": 0, "second": 0}

        def writer(name: str, order: tuple[str, str]):  # type: ignore[no-untyped-def]
            async def work(db: asyncpg.Connection) -> None:
                rounds[name] += 1
                await db.execute(
                    "UPDATE meta SET value = $1 WHERE key = $2", name, f"command_sync:{order[0]}"
                )
                if rounds[name] == 1:
                    await both_hold_one.wait()
                await db.execute(
                    "UPDATE meta SET value = $1 WHERE key = $2", name, f"command_sync:{order[1]}"
                )

            return work

        await asyncio.gather(
            first._transaction(writer("first", ("a", "b"))),
            second._transaction(writer("second", ("b", "a"))),
        )
        assert sorted(rounds.values()) == [1, 2]  # exactly one ran twice
        values = {await first.command_sync_hash("a"), await first.command_sync_hash("b")}
        assert len(values) == 1  # the transaction that committed last wrote both rows
    finally:
        await first.close()
        await second.close()


# -- the server goes away ---------------------------------------------------------------------


def _through(url: str, port: int) -> str:
    parts = urlsplit(url)
    netloc = f"{parts.username}@127.0.0.1:{port}" if parts.username else f"127.0.0.1:{port}"
    return urlunsplit(parts._replace(netloc=netloc))


@pytest.fixture
async def proxy(pg_url: str) -> AsyncIterator[Proxy]:
    parts = urlsplit(pg_url)
    running = Proxy(parts.hostname or "127.0.0.1", parts.port or 5432)
    await running.start()
    try:
        yield running
    finally:
        await running.close()


async def _timed_failure(call: object) -> float:
    """Seconds until `call` failed as StoreUnavailable. Only a hang fails the wait: how fast a
    busy machine gets there is not what these tests check."""
    started = time.perf_counter()
    with pytest.raises(StoreUnavailable) as caught:
        await asyncio.wait_for(call, HANG_SECONDS)  # type: ignore[arg-type]
    assert str(caught.value) == "The database is unavailable; try again in a moment."
    return time.perf_counter() - started


async def test_a_stopped_server_is_store_unavailable_and_the_pool_recovers(
    pg_url: str, proxy: Proxy
) -> None:
    async with await PostgresStore.open(_through(pg_url, proxy.port)) as store:
        await add(store, "a", "ICML 2026", papers(1, 2))
        await proxy.cut()
        for call in (store.paper("icml2026-1"), store.save(1, "icml2026-1"), store.counts()):
            await _timed_failure(call)
        proxy.restore()
        paper = await store.paper("icml2026-1")  # no reopen: the pool reconnected
        assert paper is not None
        assert await store.save(1, "icml2026-1")
        assert await store.counts() == (2, 1)


@pytest.mark.slow
async def test_a_server_that_stops_answering_is_unavailable_within_the_deadline(
    pg_url: str, proxy: Proxy
) -> None:
    async with await PostgresStore.open(_through(pg_url, proxy.port)) as store:
        await add(store, "a", "ICML 2026", papers(1))
        proxy.silence()
        # It waited for the deadline (a silent server sends no error); load only adds to that.
        assert await _timed_failure(store.paper("icml2026-1")) > QUICK_SECONDS - 0.2
        row = ConversationRow("dm:1", 1, "{}", 1.0)
        assert await _timed_failure(store.remember_conversation(row)) > QUICK_SECONDS - 0.2
        proxy.restore()
        assert await store.counts() == (1, 1)


# -- LISTEN / NOTIFY --------------------------------------------------------------------------


async def _next(generations: AsyncIterator[int]) -> int:
    """The next generation announced; the wait only turns a hang into a failure."""
    return await asyncio.wait_for(anext(generations), HANG_SECONDS)


async def test_every_committed_change_is_notified_with_its_generation(pg_url: str) -> None:
    listener, writer = await PostgresStore.open(pg_url), await PostgresStore.open(pg_url)
    generations = listener.corpus_generations(poll_seconds=60)
    try:
        assert await _next(generations) == 0  # the generation now, at start
        await add(writer, "a", "ICML 2026", papers(1))
        assert await _next(generations) == 1
        await add(writer, "b", "ICML 2026", papers(2))
        await add(writer, "c", "ICML 2026", papers(3))
        assert [await _next(generations), await _next(generations)] == [2, 3]
    finally:
        await generations.aclose()  # type: ignore[attr-defined]
        await listener.close()
        await writer.close()


async def test_a_failed_or_repeated_ingest_notifies_nothing(pg_url: str) -> None:
    async with await PostgresStore.open(pg_url) as store:
        await add(store, "a", "ICML 2026", papers(1))
        received: list[str] = []
        connection = await asyncpg.connect(pg_url)
        try:
            await connection.add_listener(CHANNEL, lambda *args: received.append(args[3]))
            await add(store, "a", "ICML 2026", papers(1))  # already ingested
            with pytest.raises(asyncpg.NotNullViolationError):
                await store.add_file(origin=None, sha256="b", collection="X", papers=papers(2))  # type: ignore[arg-type]
            await add(store, "c", "ICML 2026", papers(3))
            # Notifications arrive in commit order: any from the two calls above came first.
            await until(lambda: "2" in received)
        finally:
            await connection.close()
        assert received == ["2"]


async def test_listening_resumes_after_the_server_comes_back(pg_url: str, proxy: Proxy) -> None:
    writer = await PostgresStore.open(pg_url)
    listener = await PostgresStore.open(_through(pg_url, proxy.port))
    generations = listener.corpus_generations(poll_seconds=60)
    try:
        assert await _next(generations) == 0
        await proxy.cut()
        # Committed while the listener is cut off: its notification is lost for good.
        await add(writer, "a", "ICML 2026", papers(1))
        await asyncio.sleep(0.5)
        proxy.restore()
        # Reconnecting reads the generation it missed.
        assert await _next(generations) == 1
        await add(writer, "b", "ICML 2026", papers(2))
        assert await _next(generations) == 2
    finally:
        await generations.aclose()  # type: ignore[attr-defined]
        await listener.close()
        await writer.close()


async def test_a_silently_dead_listen_connection_is_noticed_by_the_poll(
    pg_url: str, proxy: Proxy
) -> None:
    writer = await PostgresStore.open(pg_url)
    listener = await PostgresStore.open(_through(pg_url, proxy.port))
    generations = listener.corpus_generations(poll_seconds=0.5)
    try:
        assert await _next(generations) == 0
        proxy.silence()
        await add(writer, "a", "ICML 2026", papers(1))
        await asyncio.sleep(1.0)
        proxy.restore()
        assert await _next(generations) == 1
    finally:
        await generations.aclose()  # type: ignore[attr-defined]
        await listener.close()
        await writer.close()


# -- opening: one line naming the setting, never the password ---------------------------------

_PASSWORD = "pw-Secret-9431"


def _variant(url: str, *, user: str | None = None, port: int | None = None, db: str | None = None):  # type: ignore[no-untyped-def]
    parts = urlsplit(url)
    name = user or parts.username or "postgres"
    netloc = f"{name}:{_PASSWORD}@{parts.hostname}:{port or parts.port or 5432}"
    return urlunsplit(parts._replace(netloc=netloc, path=f"/{db}" if db else parts.path))


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param({"db": "paperbot_no_such_db"}, "no such database", id="database"),
        pytest.param({"user": "paperbot_no_such_role"}, "refused the user", id="user"),
        pytest.param({"port": 1}, "cannot reach PostgreSQL", id="port"),
    ],
)
async def test_a_bad_url_is_one_line_naming_the_setting_without_the_password(
    pg_url: str, change: dict[str, object], expected: str
) -> None:
    url = _variant(pg_url, **change)
    with pytest.raises(StoreError) as caught:
        await asyncio.wait_for(PostgresStore.open(url), HANG_SECONDS)
    message = str(caught.value)
    assert message.startswith("PAPERBOT_DATABASE_URL: ")
    assert expected in message
    assert describe(url) in message
    assert _PASSWORD not in message
    assert "\n" not in message
    assert caught.value.__cause__ is None  # nothing chained that a traceback could print


def test_a_rejected_password_is_named_without_the_password() -> None:
    url = f"postgresql://bot:{_PASSWORD}@db.example:5433/paperbot"
    message = explain_open_error(
        asyncpg.InvalidPasswordError("password authentication failed"), url
    )
    assert message == (
        "PAPERBOT_DATABASE_URL: PostgreSQL at postgresql://bot@db.example:5433/paperbot "
        "rejected the password; fix the password in the URL."
    )


def test_describe_drops_passwords_in_the_userinfo_and_the_query() -> None:
    assert describe(f"postgresql://bot:{_PASSWORD}@h:1/db") == "postgresql://bot@h:1/db"
    assert (
        describe(f"postgres:///db?host=/run/postgresql&user=bot&password={_PASSWORD}")
        == "postgresql://bot@/run/postgresql:5432/db"
    )


async def test_a_database_holding_another_programs_tables_is_refused_untouched(
    pg_url: str,
) -> None:
    connection = await asyncpg.connect(pg_url)
    try:
        await connection.execute("CREATE TABLE notes (body TEXT)")
        with pytest.raises(StoreError, match="another program's tables") as caught:
            await PostgresStore.open(pg_url)
        assert "PAPERBOT_DATABASE_URL" in str(caught.value)
        tables = await connection.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        )
        assert [row[0] for row in tables] == ["notes"]
    finally:
        await connection.close()


async def test_a_new_paper_after_reopening_continues_keys_and_numbers(pg_url: str) -> None:
    async with await PostgresStore.open(pg_url) as store:
        await add(store, "a", "ICML 2026", papers(1, 2))
        keys = [row.key for row in await store.index_rows()]
    async with await PostgresStore.open(pg_url) as store:
        await add(store, "b", "ICML 2026", [new_paper(3)])
        rows = await store.index_rows()
        assert rows[-1].paper_id == "icml2026-3"
        assert rows[-1].key > max(keys)


@pytest.mark.slow
def test_two_paperbot_ingest_processes_on_one_database_add_up(
    pg_url_sync: str, tmp_path: Path
) -> None:
    """Real processes (`python -m bot ingest`), each with two files of one collection."""
    folders = []
    for process in range(2):
        folder = tmp_path / f"lists-{process}"
        folder.mkdir()
        for k in range(2):
            abstracts = [
                f"Process {process} file {k} abstract {n} studies sparse routing in experts."
                for n in range(40)
            ]
            write_list(folder / f"part{k}.txt", abstracts, header="Fixture 2026")
        folders.append(folder)
    environment = {
        **os.environ,
        "PAPERBOT_DATABASE_URL": pg_url_sync,
        "PAPERBOT_SEEDS_DIR": str(tmp_path / "no-seeds"),
    }
    children = [
        subprocess.Popen(
            [sys.executable, "-m", "bot", "ingest", str(folder)],
            cwd=tmp_path,
            env={**environment, "PAPERBOT_INDEX_DIR": str(tmp_path / f"index-{n}")},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n, folder in enumerate(folders)
    ]
    outputs = [child.communicate(timeout=120) for child in children]
    assert [child.returncode for child in children] == [0, 0], outputs
    assert all("80 papers added" in out for out, _ in outputs), outputs

    async def check() -> None:
        async with await PostgresStore.open(pg_url_sync) as store:
            rows = await store.index_rows(with_terms=False)
            numbers = sorted(int(row.paper_id.rsplit("-", 1)[1]) for row in rows)
            assert numbers == list(range(1, 161))
            assert {row.paper_id.rsplit("-", 1)[0] for row in rows} == {"fixture2026"}
            assert await store.generation() == 4

    run_apart(check())
