"""SIGKILL `paperbot ingest BIGFILE` at random moments; check nothing was lost or half-written.

    python -m tests.reliability.kill_ingest --trials 20 --papers 20000         # the long run
    python -m tests.reliability.kill_ingest --trials 3 --papers 1500 --seed 3  # what CI runs

Each trial restores the same database (BASE_PAPERS papers and reading lists), starts `paperbot
ingest` on a file of `--papers` new abstracts in a child process, kills it with SIGKILL after a
delay drawn across the whole ingest (a calibration run measures how long that takes), and then
checks, from outside and through a freshly opened engine. One more, aimed trial pauses the
child every few milliseconds until it is inside the file's write transaction and kills it there.

Every kill records its phase: the child is stopped (SIGSTOP) first, and while it cannot move, a
probe reads the committed paper count and tries `BEGIN IMMEDIATE` without waiting:

- `after`: the file's papers are committed;
- `inside`: not committed, the child holds the write lock, and it has printed the file's
  progress line (so the lock is the file's transaction, not the writability check at open);
- `before`: anything earlier.

The checks after each trial:

- `PRAGMA integrity_check` is ok and no foreign key dangles;
- the file is wholly in or wholly out: the paper count is `before` or `before + papers`, and the
  engine finds every new paper (their marker word) or none;
- the papers and reading lists that were there before are byte-for-byte the same;
- the engine opens and answers;
- the outcome matches the phase: killed before or inside the transaction leaves the file out,
  killed after it leaves the file in.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from retrieval.engine import Engine
from tests.reliability.conftest import READING_LISTS, open_base
from tests.reliability.helpers import (
    abstracts,
    cli_env,
    count_papers,
    integrity,
    make_settings,
    paperbot,
    query,
    reading_lists,
    write_list,
)

MARKER = "zebrafinch"


@dataclass
class Setup:
    workdir: Path
    pristine: Path
    big: Path
    papers: int
    before: int
    base_rows: list[tuple[object, ...]]
    lists: list[tuple[object, ...]]
    full_run_seconds: float = 0.0


PHASES = ("before", "inside", "committing", "after")


@dataclass
class Trial:
    delay: float
    killed: bool
    phase: str  # one of PHASES when killed; "finished" when the ingest ended first
    outcome: str  # "in" or "out"
    leftover_temp_files: int
    aimed: bool = False
    problems: list[str] = field(default_factory=list)


@dataclass
class Summary:
    trials: list[Trial]
    full_run_seconds: float

    @property
    def problems(self) -> list[str]:
        return [f"trial {n}: {p}" for n, t in enumerate(self.trials, 1) for p in t.problems]

    def phases(self) -> Counter[str]:
        """Kills per phase ("before", "inside", "committing", "after"); trials that finished are
        not kills."""
        return Counter(trial.phase for trial in self.trials if trial.killed)

    def describe(self) -> str:
        outcomes = Counter(trial.outcome for trial in self.trials)
        killed = sum(trial.killed for trial in self.trials)
        temps = sum(trial.leftover_temp_files for trial in self.trials)
        phases = self.phases()
        return (
            f"{len(self.trials)} trials ({killed} killed: "
            + ", ".join(f"{phases[phase]} {phase}" for phase in PHASES)
            + f" the write transaction), full ingest {self.full_run_seconds:.1f} s; file wholly "
            f"out {outcomes['out']}, wholly in {outcomes['in']}; problems {len(self.problems)}; "
            f"leftover index temp files {temps}"
        )


def _base_rows(db_path: Path) -> list[tuple[object, ...]]:
    return query(db_path, "SELECT * FROM papers ORDER BY rowid")


def _restore(setup: Setup, db_path: Path) -> None:
    for path in db_path.parent.glob(db_path.name + "*"):
        path.unlink()
    shutil.copyfile(setup.pristine, db_path)


def prepare(workdir: Path, papers: int) -> Setup:
    """A database with papers and reading lists (kept as a pristine copy) and a big new file."""
    (workdir / "base").mkdir(parents=True, exist_ok=True)
    base = asyncio.run(_open_and_close(workdir / "base"))
    pristine = workdir / "pristine.db"
    with closing(sqlite3.connect(base)) as source, closing(sqlite3.connect(pristine)) as copy:
        source.backup(copy)
    big = write_list(
        workdir / "big.txt",
        abstracts(papers, seed=99, marker=MARKER),
        header="Kill Test 2026 论文列表",
    )
    return Setup(
        workdir=workdir,
        pristine=pristine,
        big=big,
        papers=papers,
        before=count_papers(pristine),
        base_rows=_base_rows(pristine),
        lists=reading_lists(pristine),
    )


async def _open_and_close(workdir: Path) -> Path:
    base = await open_base(workdir)
    await base.engine.close()
    return base.db_path


def _start(setup: Setup, db_path: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            paperbot("ingest", str(setup.big)),
            cwd=setup.workdir,
            env=cli_env(db_path, setup.workdir),
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def calibrate(setup: Setup) -> float:
    """Seconds one uninterrupted `paperbot ingest` takes, start-up included."""
    db_path = setup.workdir / "calibrate" / "paperbot.db"
    db_path.parent.mkdir(exist_ok=True)
    _restore(setup, db_path)
    started = time.perf_counter()
    process = _start(setup, db_path, db_path.parent / "log.txt")
    code = process.wait(timeout=600)
    took = time.perf_counter() - started
    if code != 0:
        raise RuntimeError((db_path.parent / "log.txt").read_text())
    if count_papers(db_path) != setup.before + setup.papers:
        raise RuntimeError("the calibration ingest did not add every paper")
    return took


async def _engine_checks(setup: Setup, db_path: Path, outcome: str) -> list[str]:
    problems = []
    engine = await Engine.open(make_settings(db_path), ingest_seeds=False)
    try:
        found = (await engine.ask(MARKER)).total
        expected = setup.papers if outcome == "in" else 0
        if found != expected:
            problems.append(f"engine finds {found} papers of the file, expected {expected}")
        if not (await engine.ask("mixture experts routing")).hits:
            problems.append("engine does not answer")
        for user, saved in READING_LISTS.items():
            got = [paper.id for paper in await engine.saved_papers(user)]
            if got != saved:
                problems.append(f"reading list of {user} is {got}, expected {saved}")
    finally:
        await engine.close()
    return problems


def check(setup: Setup, db_path: Path) -> tuple[str, list[str]]:
    """('in' or 'out', problems) for a database after a kill."""
    problems = []
    verdict = integrity(db_path)
    if verdict != "ok":
        problems.append(f"integrity_check: {verdict}")
    papers = count_papers(db_path)
    if papers == setup.before:
        outcome = "out"
    elif papers == setup.before + setup.papers:
        outcome = "in"
    else:
        outcome = "partial"
        problems.append(f"{papers - setup.before} of {setup.papers} papers stored")
    files = int(query(db_path, "SELECT count(*) FROM ingested_files")[0][0])
    if files != (2 if outcome == "in" else 1):
        problems.append(f"{files} ingested_files rows for outcome {outcome}")
    if _base_rows(db_path)[: len(setup.base_rows)] != setup.base_rows:
        problems.append("papers stored before changed")
    if reading_lists(db_path) != setup.lists:
        problems.append("reading lists changed")
    problems += asyncio.run(_engine_checks(setup, db_path, outcome))
    return outcome, problems


def phase(setup: Setup, db_path: Path, log: Path) -> str:
    """Where a stopped `paperbot ingest` is: before, inside or after the file's transaction."""
    if not db_path.exists():
        return "before"
    with closing(sqlite3.connect(db_path, timeout=0, isolation_level=None)) as probe:
        try:
            papers = int(probe.execute("SELECT count(*) FROM papers").fetchone()[0])
        except sqlite3.OperationalError:
            # Even a read is locked out: the child was stopped holding the exclusive lock of a
            # commit (or of the schema's creation). Killed there, the file is wholly in or
            # wholly out, never in part.
            return "committing"
        if papers == setup.before + setup.papers:
            return "after"
        try:
            probe.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:  # "database is locked": the child holds the write lock
            locked = True
        else:
            probe.execute("ROLLBACK")
            locked = False
    started = str(setup.big) in log.read_text(encoding="utf-8", errors="replace")
    return "inside" if locked and started else "before"


def _stop_and_kill(process: subprocess.Popen[bytes], setup: Setup, db_path: Path) -> str | None:
    """SIGSTOP, record the phase, SIGKILL. None if the child had already exited."""
    if process.poll() is not None:
        return None
    process.send_signal(signal.SIGSTOP)
    try:
        where = phase(setup, db_path, db_path.parent / "log.txt")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    return where if process.returncode == -signal.SIGKILL else None


def _aim(
    process: subprocess.Popen[bytes], setup: Setup, db_path: Path, rng: random.Random
) -> str | None:
    """Pause the child every few milliseconds until it is inside the transaction; kill it there."""
    while process.poll() is None:
        time.sleep(rng.uniform(0.002, 0.02))
        if process.poll() is not None:
            break
        process.send_signal(signal.SIGSTOP)
        try:
            where = phase(setup, db_path, db_path.parent / "log.txt")
        except BaseException:
            process.send_signal(signal.SIGKILL)
            raise
        if where == "inside":
            process.send_signal(signal.SIGKILL)
            process.wait()
            return where
        process.send_signal(signal.SIGCONT)
        if where == "after":  # missed it: let the ingest finish
            break
    process.wait(timeout=600)
    return None


def trial(setup: Setup, delay: float, number: int, *, aim: random.Random | None = None) -> Trial:
    """One trial: kill after `delay` seconds, or (with `aim`) inside the write transaction."""
    folder = setup.workdir / f"trial-{number}"
    folder.mkdir(exist_ok=True)
    db_path = folder / "paperbot.db"
    _restore(setup, db_path)
    process = _start(setup, db_path, folder / "log.txt")
    if aim is not None:
        where = _aim(process, setup, db_path, aim)
    else:
        try:
            process.wait(timeout=delay)
            where = None
        except subprocess.TimeoutExpired:
            where = _stop_and_kill(process, setup, db_path)
            if where is None:
                process.wait()
    killed = where is not None
    problems = []
    if not killed and process.returncode != 0:
        problems.append(f"ingest exited {process.returncode}: {(folder / 'log.txt').read_text()}")
    temps = len(list(folder.glob("*.tmp")))
    outcome, found = check(setup, db_path)
    problems += found
    expected = "out" if where in ("before", "inside") else "in"
    if where == "committing" and outcome in ("in", "out"):
        expected = outcome
    if outcome != expected:
        problems.append(f"{where or 'finished'} the transaction but the file is {outcome}")
    return Trial(delay, killed, where or "finished", outcome, temps, aim is not None, problems)


def recover(setup: Setup, number: int) -> list[str]:
    """After a kill, running the same ingest again completes it."""
    db_path = setup.workdir / f"trial-{number}" / "paperbot.db"
    process = _start(setup, db_path, db_path.parent / "again.txt")
    if process.wait(timeout=600) != 0:
        return [f"re-ingest failed: {(db_path.parent / 'again.txt').read_text()}"]
    outcome, problems = check(setup, db_path)
    return problems + ([] if outcome == "in" else ["re-ingest left the file out"])


def run(workdir: Path, *, trials: int, papers: int, seed: int = 0) -> Summary:
    """Calibrate, then `trials` kills spread evenly (with jitter) over the whole ingest, then
    one aimed at the inside of the write transaction."""
    setup = prepare(workdir, papers)
    full = calibrate(setup)
    rng = random.Random(seed)
    results = []
    for number in range(trials + 1):
        if number < trials:
            # Stratified: trial n dies somewhere in the n-th slice of [0.1 s, 1.1 x the full run].
            low = 0.1 + (full * 1.1 - 0.1) * number / trials
            high = 0.1 + (full * 1.1 - 0.1) * (number + 1) / trials
            result = trial(setup, rng.uniform(low, high), number)
        else:
            result = trial(setup, 0.0, number, aim=rng)
        if result.killed and not result.problems:
            result.problems += recover(setup, number)
        results.append(result)
    return Summary(results, full)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--papers", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kill-ingest-") as scratch:
        workdir = args.keep or Path(scratch)
        workdir.mkdir(parents=True, exist_ok=True)
        summary = run(workdir, trials=args.trials, papers=args.papers, seed=args.seed)
    for number, result in enumerate(summary.trials, 1):
        when = "aimed at the transaction" if result.aimed else f"at {result.delay:5.2f} s"
        state = f"killed {result.phase}" if result.killed else "finished"
        print(f"trial {number:2d}: {when}, {state} -> file {result.outcome}")
    print(summary.describe())
    for problem in summary.problems:
        print(f"PROBLEM {problem}")
    return 1 if summary.problems else 0


if __name__ == "__main__":
    sys.exit(main())
