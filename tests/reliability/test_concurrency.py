"""Issue 5 §3: questions during an ingest, the atomic corpus swap, and two engines or two
processes on one database file."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import pytest

from retrieval.engine import Engine
from retrieval.errors import PaperNotFound
from tests.reliability.conftest import BASE_PAPERS, READING_LISTS, Base, open_base
from tests.reliability.helpers import (
    abstracts,
    cli_env,
    count_papers,
    integrity,
    make_settings,
    paperbot,
    query,
    reading_lists,
    record,
    scale,
    write_list,
)
from tests.waits import HANG_SECONDS

QUESTION = "mixture experts routing"


async def test_questions_answered_while_an_ingest_runs(base: Base) -> None:
    """Askers, savers and lookups run flat out while a big file goes in. Nothing fails (no
    "database is locked"), and every answer counts the old corpus or the new one, never a mix."""
    papers = scale(1500, 20_000)
    big = write_list(base.workdir / "big.txt", abstracts(papers, seed=21, marker="newcorpus"))
    engine = base.engine
    old_total = (await engine.ask(QUESTION)).total
    totals: set[int] = set()
    marker_totals: set[int] = set()
    latencies: list[float] = []
    during = 0
    done = asyncio.Event()
    failures: list[BaseException] = []

    async def asker(number: int) -> None:
        nonlocal during
        after = 3  # questions once the ingest is over, to see the new corpus too
        while after:
            after -= done.is_set()
            started = time.perf_counter()
            answer = await engine.ask(QUESTION, limit=5, offset=number)
            marker = await engine.ask("newcorpus")
            latencies.append(time.perf_counter() - started)
            totals.add(answer.total)
            marker_totals.add(marker.total)
            assert len(answer.hits) <= 5
            during += not done.is_set()

    async def saver() -> None:
        user = 900
        while not done.is_set():
            await engine.save_paper(user, "synthetic2026-11")
            assert [p.id for p in await engine.saved_papers(user)] == ["synthetic2026-11"]
            assert await engine.unsave_paper(user, "synthetic2026-11")
            await asyncio.sleep(0)

    async def browser() -> None:
        while not done.is_set():
            await engine.stats()
            await engine.collections()
            await engine.paper("synthetic2026-4")
            await engine.suggest_papers("synth")
            await engine.similar("synthetic2026-4", limit=3)

    async def guarded(work: asyncio.Task[None]) -> None:
        try:
            await work
        except BaseException as error:  # collected, so one failure does not hide others
            failures.append(error)

    async def ingester() -> None:
        try:
            report = await engine.ingest([big])
            assert report.papers_added == papers and report.errors == ()
        finally:
            done.set()

    workers = [asker(n) for n in range(3)] + [saver(), browser(), ingester()]
    await asyncio.gather(*(guarded(asyncio.ensure_future(work)) for work in workers))
    assert failures == []
    new_total = (await engine.ask(QUESTION)).total
    assert new_total > old_total
    assert totals == {old_total, new_total}, totals
    assert marker_totals == {0, papers}, marker_totals
    assert during > 0  # questions were answered while the ingest ran, not queued behind it
    for user, saved in READING_LISTS.items():
        assert [paper.id for paper in await engine.saved_papers(user)] == saved
    assert integrity(base.db_path) == "ok"
    record(
        "concurrency",
        f"questions during a {papers:,}-paper ingest: {len(latencies)} answers "
        f"({during} while it ran), slowest {max(latencies):.2f} s, totals {sorted(totals)}",
        cases=len(latencies),
    )


async def test_back_to_back_ingests_swap_whole_corpora(base: Base) -> None:
    """Several uploads and file ingests at once on one engine: each lands whole, in turn, and
    an asker only ever sees a corpus that some prefix of them produced."""
    engine = base.engine
    files = 5
    sizes = [40 * (n + 1) for n in range(files)]
    uploads = [
        write_list(base.workdir / f"u{n}.txt", abstracts(size, seed=30 + n, marker="swapmark"))
        for n, size in enumerate(sizes)
    ]
    seen: set[int] = set()
    stop = asyncio.Event()

    async def asker() -> None:
        while not stop.is_set():
            seen.add((await engine.ask("swapmark")).total)
            await asyncio.sleep(0)

    async def feed() -> None:
        try:
            await asyncio.gather(
                *(
                    engine.ingest_bytes(path.name, path.read_bytes())
                    if n % 2
                    else engine.ingest([path])
                    for n, path in enumerate(uploads)
                )
            )
        finally:
            stop.set()

    await asyncio.gather(asker(), asker(), feed())
    assert (await engine.ask("swapmark")).total == sum(sizes)
    # Totals are sums of whole files; which files came first is up to the scheduler.
    possible = {sum(size for n, size in enumerate(sizes) if mask >> n & 1) for mask in range(32)}
    assert seen <= possible, seen - possible
    record("concurrency", f"5 concurrent ingests, {len(seen)} distinct corpora seen", cases=5)


async def test_two_engines_on_one_database_file(base: Base) -> None:
    """Two bot processes started by mistake, in miniature: two engines (their own connections)
    ingest different files and save papers at the same time."""
    rounds = scale(2, 6)
    other = await Engine.open(make_settings(base.db_path), ingest_seeds=False)
    try:
        added = 0
        for round_ in range(rounds):
            a = write_list(base.workdir / f"a{round_}.txt", abstracts(300, seed=100 + round_))
            b = write_list(base.workdir / f"b{round_}.txt", abstracts(300, seed=200 + round_))
            shared = write_list(base.workdir / f"s{round_}.txt", abstracts(100, seed=300 + round_))

            async def reader(engine: Engine) -> int:
                answered = 0
                for _ in range(20):
                    await engine.ask(QUESTION)
                    answered += 1
                return answered

            results = await asyncio.gather(
                base.engine.ingest([a, shared]),
                other.ingest([b, shared]),
                base.engine.save_paper(500 + round_, "synthetic2026-1"),
                other.save_paper(600 + round_, "synthetic2026-2"),
                reader(base.engine),
                reader(other),
                return_exceptions=True,
            )
            errors = [r for r in results if isinstance(r, BaseException)]
            assert errors == [], errors
            added += 700
            assert count_papers(base.db_path) == BASE_PAPERS + added
            # The shared file is recorded once, whichever engine got there first.
            assert query(base.db_path, "SELECT count(*) FROM ingested_files")[0][0] == 1 + 3 * (
                round_ + 1
            )
        assert integrity(base.db_path) == "ok"
        # The other engine sees everything after it reloads (it cannot know what we stored).
        reopened = await Engine.open(make_settings(base.db_path), ingest_seeds=False)
        try:
            assert (await reopened.stats()).papers == BASE_PAPERS + added
        finally:
            await reopened.close()
    finally:
        await other.close()
    record("concurrency", f"two engines on one file, {rounds} rounds", cases=rounds)


async def _closed_base(folder: Path) -> Path:
    opened = await open_base(folder)
    await opened.engine.close()
    return opened.db_path


@pytest.fixture
def base_db(tmp_path: Path) -> Path:
    """A closed base database, for tests that only run subprocesses."""
    return asyncio.run(_closed_base(tmp_path))


@pytest.mark.slow
def test_two_processes_on_one_database_file(tmp_path: Path, base_db: Path) -> None:
    """Real processes: two `paperbot ingest` at once (one file each, and one file shared), and
    `paperbot search` runs meanwhile. No error, no "locked", integrity ok, counts add up."""
    rounds = scale(1, 4)
    env = cli_env(base_db, tmp_path)
    expected = count_papers(base_db)
    lists = reading_lists(base_db)
    searches = 0
    for round_ in range(rounds):
        a = write_list(tmp_path / f"pa{round_}.txt", abstracts(800, seed=400 + round_))
        b = write_list(tmp_path / f"pb{round_}.txt", abstracts(800, seed=500 + round_))
        shared = write_list(tmp_path / f"ps{round_}.txt", abstracts(200, seed=600 + round_))
        ingests = [
            subprocess.Popen(
                paperbot("ingest", str(one), str(shared)),
                cwd=tmp_path,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for one in (a, b)
        ]
        while any(process.poll() is None for process in ingests):
            search = subprocess.run(
                paperbot("search", QUESTION, "--json"),
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert search.returncode == 0 and "locked" not in search.stderr, search.stderr
            searches += 1
        for process in ingests:
            _, err = process.communicate(timeout=300)
            assert process.returncode == 0, err
            assert "locked" not in err and "Traceback" not in err, err
        expected += 1800
        assert count_papers(base_db) == expected
    assert integrity(base_db) == "ok"
    assert reading_lists(base_db) == lists
    record(
        "concurrency",
        f"two `paperbot ingest` processes + {searches} searches, {rounds} rounds",
        cases=rounds * 2 + searches,
    )


async def test_a_question_never_waits_for_the_write_lock(base: Base) -> None:
    """A long write transaction (held here on purpose) does not delay questions or reading
    list reads: they use the read connection, which WAL never blocks."""
    engine = base.engine
    async with engine.store._transaction() as db:
        await db.execute("UPDATE meta SET value = value WHERE key = 'generation'")
        answer = await asyncio.wait_for(engine.ask(QUESTION), timeout=HANG_SECONDS)
        saved = await asyncio.wait_for(engine.saved_papers(101), timeout=HANG_SECONDS)
        with pytest.raises(PaperNotFound):
            await asyncio.wait_for(engine.paper("nosuch-1"), timeout=HANG_SECONDS)
    assert answer.total > 0 and [p.id for p in saved] == READING_LISTS[101]
    record("concurrency", "questions while the write lock is held")
