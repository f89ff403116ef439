"""Trending counters: per guild, per paper, per day; windows by day; no user ids or text."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import AsyncIterator, Callable

import pytest

from config.settings import Settings
from retrieval.engine import Engine
from retrieval.trending import Trending
from tests.conftest import SEEDS


@pytest.fixture
async def engine(make_settings: Callable[..., Settings]) -> AsyncIterator[Engine]:
    async with await Engine.open(make_settings(seeds_dir=SEEDS)) as opened:
        yield opened


class Clock:
    def __init__(self) -> None:
        self.day = dt.date(2026, 12, 1)

    def __call__(self) -> dt.date:
        return self.day


async def test_counts_rank_and_window(engine: Engine) -> None:
    clock = Clock()
    trending = Trending(engine.store, clock)
    await trending.record(1, "opens", ["icml2026-6"])
    clock.day = dt.date(2026, 12, 10)
    await trending.record(1, "opens", ["icml2026-13", "icml2026-13"])  # once per event
    await trending.record(1, "saves", ["icml2026-13"])
    await trending.record(1, "asks", ["icml2026-13", "icml2026-7"])
    await trending.record(2, "opens", ["icml2026-7"])
    week = await trending.top(1, 7)
    assert [(t.paper.id, t.opens, t.saves, t.asks) for t in week] == [
        ("icml2026-13", 1, 1, 1),
        ("icml2026-7", 0, 0, 1),
    ]
    month = await trending.top(1, 30)
    assert [t.paper.id for t in month] == ["icml2026-13", "icml2026-6", "icml2026-7"]
    assert [t.paper.id for t in await trending.top(2, 7)] == ["icml2026-7"]
    with pytest.raises(ValueError, match="unknown activity 'views'"):
        await trending.record(1, "views", ["icml2026-7"])


async def test_counter_table_holds_no_user_ids_or_text(engine: Engine) -> None:
    await engine.trending.record(1, "asks", ["icml2026-13"])
    with sqlite3.connect(engine.settings.db_path) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(paper_activity)")]
    assert columns == ["guild_id", "paper_id", "day", "opens", "saves", "asks"]
