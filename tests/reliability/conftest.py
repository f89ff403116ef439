"""Fixtures: an engine on a temporary database that already holds papers and reading lists."""

from __future__ import annotations

import asyncio
import atexit
import random
import shutil
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from retrieval.engine import Engine
from tests.reliability.helpers import abstracts, make_settings, scale, write_list

BASE_PAPERS = 30
# user id -> papers saved, in order.
READING_LISTS = {101: ["synthetic2026-3", "synthetic2026-7"], 202: ["synthetic2026-1"]}


@dataclass
class Base:
    engine: Engine
    db_path: Path
    workdir: Path


async def _build_base(workdir: Path) -> None:
    """BASE_PAPERS synthetic papers (from `workdir`/base.txt) and READING_LISTS, in
    `workdir`/db, closed."""
    engine = await Engine.open(make_settings(workdir / "db" / "paperbot.db"), ingest_seeds=False)
    try:
        report = await engine.ingest(
            [write_list(workdir / "base.txt", abstracts(BASE_PAPERS, seed=1))]
        )
        assert report.papers_added == BASE_PAPERS, report
        for user, papers in READING_LISTS.items():
            for paper in papers:
                await engine.save_paper(user, paper)
    finally:
        await engine.close()


_built: list[Path] = []


async def _template() -> Path:
    """The base, built once per process in a folder of its own (removed at exit)."""
    if not _built:
        folder = Path(tempfile.mkdtemp(prefix="paperbot-base-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        await _build_base(folder)
        _built.append(folder)
    return _built[0]


def _copy_base(template: Path, workdir: Path) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(template / "db", workdir / "db")
    shutil.copyfile(template / "base.txt", workdir / "base.txt")
    return workdir / "db" / "paperbot.db"


async def open_base(workdir: Path, **overrides: object) -> Base:
    """A database holding BASE_PAPERS synthetic papers and READING_LISTS, open. A copy of one
    built once per process (its database, index and base.txt): building it costs an ingest,
    about 0.1 s of CPU and 0.2 s of waiting, which some sixty tests paid each."""
    db_path = _copy_base(await _template(), workdir)
    engine = await Engine.open(make_settings(db_path, **overrides), ingest_seeds=False)
    return Base(engine, db_path, workdir)


@pytest.fixture
async def base(tmp_path: Path) -> AsyncIterator[Base]:
    opened = await open_base(tmp_path)
    try:
        yield opened
    finally:
        await opened.engine.close()


def s_word(rng: random.Random) -> str:
    """A made-up word starting with "s"."""
    return "s" + "".join(rng.choice("aeioubcdfglmnprt") for _ in range(rng.randint(5, 9)))


async def _build_questions_db(folder: Path) -> Path:
    db_path = folder / "questions.db"
    engine = await Engine.open(make_settings(db_path), ingest_seeds=False)
    try:
        papers = abstracts(scale(3000, 20_000), seed=2)
        # Tens of thousands of terms starting with "s" (did-you-mean's biggest pool), and a
        # phrase that thousands of papers share (phrase checks' worst case).
        rng = random.Random(11)
        papers += [
            " ".join(s_word(rng) for _ in range(25)) + " on mixture of experts routing."
            for _ in range(2000)
        ]
        report = await engine.ingest([write_list(folder / "q.txt", papers)])
        assert report.errors == ()
    finally:
        await engine.close()
    return db_path


@pytest.fixture(scope="session")
def questions_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of synthetic papers for the question tests (built once per run)."""
    return asyncio.run(_build_questions_db(tmp_path_factory.mktemp("questions")))
