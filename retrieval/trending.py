"""`engine.trending`: what a server has been opening, saving and asking about, from per-guild,
per-paper, per-day counters (no user ids, no question text)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from retrieval.models import Paper

MAX_DAYS = 90
ACTIVITY_KINDS = ("opens", "saves", "asks")


@dataclass(frozen=True, slots=True)
class ActivityRow:
    """A paper's summed counters in one guild over some days (no user ids, no question text)."""

    paper_id: str
    opens: int
    saves: int
    asks: int

    @property
    def total(self) -> int:
        return self.opens + self.saves + self.asks


@dataclass(frozen=True, slots=True)
class TrendingPaper:
    paper: Paper
    opens: int
    saves: int
    asks: int


def _today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


class Trending:
    def __init__(self, store: ActivityStore, today: Callable[[], dt.date] = _today) -> None:
        self._store = store
        self._today = today

    async def record(self, guild_id: int, kind: str, paper_ids: Sequence[str]) -> None:
        """Count one `kind` ('opens', 'saves' or 'asks') for each paper, today (UTC)."""
        if kind not in ACTIVITY_KINDS:
            raise ValueError(f"unknown activity {kind!r}; use one of {ACTIVITY_KINDS}")
        if paper_ids:
            await self._store.count_activity(guild_id, self._today().isoformat(), kind, paper_ids)

    async def top(self, guild_id: int, days: int = 7, limit: int = 10) -> list[TrendingPaper]:
        """The most active papers of the last `days` days (today included), with counts."""
        days = min(max(days, 1), MAX_DAYS)
        since = (self._today() - dt.timedelta(days=days - 1)).isoformat()
        rows = await self._store.activity(guild_id, since, limit)
        found = []
        for row in rows:
            paper = await self._store.paper(row.paper_id)
            if paper is not None:
                found.append(TrendingPaper(paper, row.opens, row.saves, row.asks))
        return found


class ActivityStore(Protocol):
    """A guild's per-paper, per-day counters (papers looked up to show them)."""

    async def count_activity(
        self, guild_id: int, day: str, kind: str, paper_ids: Sequence[str]
    ) -> None:
        """Add 1 to `kind` (one of ACTIVITY_KINDS) for each paper on `day` (YYYY-MM-DD, UTC)."""
        ...

    async def activity(self, guild_id: int, since_day: str, limit: int) -> list[ActivityRow]:
        """Counters summed over days >= `since_day`, most active first (ties by paper id)."""
        ...

    async def paper(self, paper_id: str) -> Paper | None:
        """By paperbot id (`ids.lookup_key` folding) or, failing that, by external id."""
        ...
