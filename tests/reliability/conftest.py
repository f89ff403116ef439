"""Fixtures: an engine on a temporary database that already holds papers and reading lists."""

from __future__ import annotations

import asyncio
import random
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


async def open_base(workdir: Path, **overrides: object) -> Base:
    """A database holding BASE_PAPERS synthetic papers and READING_LISTS."""
    db_path = workdir / "db" / "paperbot.db"
    engine = await Engine.open(make_settings(db_path, **overrides), ingest_seeds=False)
    report = await engine.ingest([write_list(workdir / "base.txt", abstracts(BASE_PAPERS, seed=1))])
    assert report.papers_added == BASE_PAPERS, report
    for user, papers in READING_LISTS.items():
        for paper in papers:
            await engine.save_paper(user, paper)
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
