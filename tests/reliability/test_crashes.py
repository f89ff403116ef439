"""Issue 5 §2: SIGKILL during ingest, and a disk that fills up or turns read-only under a running
engine: a clear error, nothing half-written, and answers from what is already stored."""

from __future__ import annotations

import errno
import logging
from pathlib import Path
from typing import Any

import pytest

from retrieval.errors import PaperbotError, StoreError
from retrieval.snapshot.matrix import BM25Index
from retrieval.stores.sqlite import SqliteStore as Store
from tests.reliability import kill_ingest
from tests.reliability.conftest import READING_LISTS, Base, open_base
from tests.reliability.helpers import (
    abstracts,
    count_papers,
    dump,
    integrity,
    record,
    run_cli,
    scale,
    write_list,
)
from tests.unprivileged import reachable_folder


@pytest.mark.slow
def test_sigkill_during_ingest(tmp_path: Path) -> None:
    trials = scale(3, 20)
    summary = kill_ingest.run(tmp_path, trials=trials, papers=scale(1500, 20_000), seed=3)
    assert summary.problems == []
    assert len(summary.trials) == trials + 1  # the last one aimed at the write transaction
    phases = summary.phases()
    assert sum(phases.values()) >= 1, f"nothing was killed: {summary.describe()}"
    assert phases["inside"] >= 1, f"no kill landed inside the transaction: {summary.describe()}"
    lost = sum(bool(trial.problems) for trial in summary.trials)
    record(
        "crashes",
        f"SIGKILL during `paperbot ingest`: {summary.describe()}",
        cases=trials,
        lost=lost,
    )


async def _limit_pages(base: Base, extra: int = 0) -> None:
    """Let the database grow by `extra` pages at most: SQLite then fails as on a full disk."""
    writer = base.engine.store._writer
    rows = list(await writer.execute_fetchall("PRAGMA page_count"))
    await writer.execute(f"PRAGMA max_page_count = {int(rows[0][0]) + extra}")


async def _ingest_error(base: Base, paths: list[Path]) -> tuple[str, int]:
    """(the one error, papers added) of an ingest expected to fail, raised or reported."""
    try:
        report = await base.engine.ingest(paths)
    except PaperbotError as error:
        return str(error), 0
    assert len(report.errors) == 1, report
    return report.errors[0], report.papers_added


async def _still_serving(base: Base, answers: int) -> None:
    assert (await base.engine.ask("mixture experts routing")).total == answers
    for user, saved in READING_LISTS.items():
        assert [paper.id for paper in await base.engine.saved_papers(user)] == saved
    assert (await base.engine.paper("synthetic2026-2")).id == "synthetic2026-2"


async def test_full_disk_during_ingest(base: Base) -> None:
    new = write_list(base.workdir / "new.txt", abstracts(300, seed=5))
    answers = (await base.engine.ask("mixture experts routing")).total
    before = dump(base.db_path)
    await _limit_pages(base)
    error, added = await _ingest_error(base, [new])
    assert "full" in error and str(base.db_path) in error and added == 0
    assert dump(base.db_path) == before
    await _still_serving(base, answers)
    # Space again: the same file goes in whole.
    await base.engine.store._writer.execute("PRAGMA max_page_count = 1073741823")
    report = await base.engine.ingest([new])
    assert report.papers_added == 300 and report.errors == ()
    assert integrity(base.db_path) == "ok"
    record("crashes", "disk full during ingest (SQLITE_FULL), then space again", cases=2)


async def test_disk_fills_between_two_files(base: Base, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first file is stored; the second hits a full disk. What was stored is searchable at
    once, not only after a restart, and the report says which file failed."""
    first = write_list(base.workdir / "a.txt", abstracts(50, seed=6, marker="firstfile"))
    second = write_list(base.workdir / "b.txt", abstracts(300, seed=7, marker="secondfile"))
    real_add = Store.add_file
    calls = []

    async def fill_before_second(self: Store, **kwargs: Any) -> Any:
        calls.append(kwargs["origin"])
        if len(calls) == 2:
            await _limit_pages(base)
        return await real_add(self, **kwargs)

    monkeypatch.setattr(Store, "add_file", fill_before_second)
    error, added = await _ingest_error(base, [first, second])
    assert "full" in error
    assert added == 50
    assert (await base.engine.ask("firstfile")).total == 50
    assert (await base.engine.ask("secondfile")).total == 0
    assert integrity(base.db_path) == "ok"
    record("crashes", "disk fills between two files of one ingest")


async def test_read_only_database_under_a_running_engine(base: Base) -> None:
    new = write_list(base.workdir / "new.txt", abstracts(30, seed=8))
    answers = (await base.engine.ask("mixture experts routing")).total
    before = dump(base.db_path)
    # What a read-only remount or a chmod looks like to SQLite: every write fails READONLY.
    await base.engine.store._writer.execute("PRAGMA query_only = ON")
    error, added = await _ingest_error(base, [new])
    assert "read-only" in error and added == 0
    with pytest.raises(StoreError, match="read-only"):
        await base.engine.ingest_bytes("up.txt", new.read_bytes())
    with pytest.raises(StoreError, match="read-only"):
        await base.engine.save_paper(7, "synthetic2026-9")
    with pytest.raises(StoreError, match="read-only"):
        await base.engine.unsave_paper(101, "synthetic2026-3")
    assert dump(base.db_path) == before
    await _still_serving(base, answers)
    record("crashes", "read-only database under a running engine", cases=4)


async def test_index_file_cannot_be_written(
    base: Base, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def no_space(self: BM25Index, path: Path, stamp: dict[str, Any]) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(BM25Index, "save", no_space)
    new = write_list(base.workdir / "new.txt", abstracts(40, seed=9, marker="unsaved"))
    with caplog.at_level(logging.WARNING):
        report = await base.engine.ingest([new])
    assert report.papers_added == 40 and report.errors == ()
    assert "could not save the index" in caplog.text
    assert (await base.engine.ask("unsaved")).total == 40
    record("crashes", "index file cannot be written (ENOSPC)")


@pytest.mark.slow
async def test_read_only_database_at_start_is_refused_clearly() -> None:
    """A database the process cannot write is refused at start with one line saying so (the
    store checks, rather than failing at the first save); nothing is changed. File and folder
    are made read-only and the CLI runs as a non-root user (nobody when the suite runs as root,
    as in CI), since root ignores file modes."""
    with reachable_folder() as workdir:
        base = await open_base(workdir)
        await base.engine.close()
        new = write_list(base.workdir / "new.txt", abstracts(10, seed=10))
        before = dump(base.db_path)
        folder = base.db_path.parent
        for path in folder.iterdir():
            path.chmod(0o444)
        folder.chmod(0o555)
        for args in (("stats",), ("ingest", str(new)), ("ask", "mixture experts")):
            result = run_cli(base.workdir, base.db_path, *args, unprivileged=True)
            assert result.returncode == 1, result
            # SQLite reports READONLY, or CANTOPEN when the -wal/-shm files cannot be created.
            assert result.stderr.strip() in (
                f"paperbot: The database {base.db_path} is read-only; make it and its folder "
                "writable, or set another database path.",
                f"paperbot: Cannot open the database {base.db_path}; check that the path is a "
                "file in a folder you can write to.",
            ), result.stderr
        assert dump(base.db_path) == before
        assert count_papers(base.db_path) == 30
    record("crashes", "read-only database file and folder at start (CLI)", cases=3)
