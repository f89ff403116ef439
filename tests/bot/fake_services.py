"""In-memory stand-ins for the engine's community services (watches, shortlist, trending,
privacy, exports, nodes), so `FakeEngine` satisfies `EngineAPI` whole. Cog tests that exercise
these features use the real engine; these keep the fake honest about the shape of the API."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from retrieval.models import Paper
from retrieval.nodes import ClusterStats, NodeRow, NodeStatus
from retrieval.privacy import PrivacyReport, UserData
from retrieval.shortlist import ShortlistRow
from retrieval.trending import TrendingPaper
from retrieval.watches.service import Digest, WatchRow

NOW = "2026-12-01T00:00:00.000Z"


class FakeWatches:
    def __init__(self) -> None:
        self.rows: list[WatchRow] = []
        self.digests: list[Digest] = []
        self.claimed: set[int] = set()
        self.outcomes: dict[int, str | None] = {}

    async def add(
        self,
        user_id: int,
        query: str,
        *,
        guild_id: int | None = None,
        channel_id: int | None = None,
    ) -> WatchRow:
        row = WatchRow(len(self.rows) + 1, user_id, guild_id, channel_id, query, NOW)
        self.rows.append(row)
        return row

    async def of(self, user_id: int) -> list[WatchRow]:
        return [row for row in self.rows if row.user_id == user_id]

    async def remove(self, user_id: int, watch_id: int) -> bool:
        before = len(self.rows)
        self.rows = [r for r in self.rows if not (r.user_id == user_id and r.id == watch_id)]
        return len(self.rows) < before

    async def pending(self) -> list[Digest]:
        return [d for d in self.digests if d.id not in self.outcomes]

    async def claim(self, digest: Digest, claimer: str) -> bool:
        if digest.id in self.claimed:
            return False
        self.claimed.add(digest.id)
        return True

    async def delivered(self, digest: Digest) -> None:
        self.outcomes[digest.id] = None

    async def failed(self, digest: Digest, reason: str) -> None:
        self.outcomes[digest.id] = reason


class FakeShortlist:
    def __init__(self, find: Callable[[str], Paper | None]) -> None:
        self._find = find
        self.rows: dict[int, list[ShortlistRow]] = {}

    async def add(
        self, guild_id: int, paper_id: str, user_id: int, note: str | None = None
    ) -> tuple[ShortlistRow, bool]:
        paper = self._find(paper_id)
        if paper is None:
            raise KeyError(paper_id)
        rows = self.rows.setdefault(guild_id, [])
        for row in rows:
            if row.paper.id == paper.id:
                return row, False
        row = ShortlistRow(paper, user_id, NOW, note)
        rows.append(row)
        return row, True

    async def remove(self, guild_id: int, paper_id: str) -> bool:
        rows = self.rows.get(guild_id, [])
        kept = [row for row in rows if row.paper.id != paper_id]
        self.rows[guild_id] = kept
        return len(kept) < len(rows)

    async def entries(self, guild_id: int) -> list[ShortlistRow]:
        return list(self.rows.get(guild_id, []))

    async def export(
        self, guild_id: int, fmt: str, *, names: dict[int, str] | None = None
    ) -> tuple[str, bytes, int]:
        lines = [row.paper.id for row in self.rows.get(guild_id, [])]
        return f"shortlist.{fmt}", "\n".join(lines).encode(), len(lines)


class FakeNodes:
    """Heartbeats kept in a list, one row per beat, as `paperbot status` would read them."""

    def __init__(self) -> None:
        self.rows: list[NodeRow] = []
        self.generation = 0  # the store's, as /stats compares each process's with it
        self.stale_ids: set[str] = set()

    async def beat(self, shard_ids: str, generation: int, guilds: int = 0) -> None:
        self.rows = [NodeRow("host:1:0", "host", 1, shard_ids, generation, 0.0, 0.0, guilds)]

    async def leave(self) -> None:
        self.rows = [row for row in self.rows if row.node_id != "host:1:0"]

    async def list(self) -> list[NodeRow]:
        return list(self.rows)

    async def cluster(self) -> ClusterStats:
        """This process (the first row) and any others the test put in `rows`."""
        nodes = tuple(
            NodeStatus(row, row.node_id in self.stale_ids, index == 0)
            for index, row in enumerate(self.rows)
        )
        return ClusterStats(nodes, self.generation)


class FakeTrending:
    def __init__(self) -> None:
        self.recorded: list[tuple[int, str, tuple[str, ...]]] = []

    async def record(self, guild_id: int, kind: str, paper_ids: Sequence[str]) -> None:
        self.recorded.append((guild_id, kind, tuple(paper_ids)))

    async def top(self, guild_id: int, days: int = 7, limit: int = 10) -> list[TrendingPaper]:
        return []


class FakePrivacy:
    def __init__(self, saved: Callable[[int], list[str]]) -> None:
        self._saved = saved

    async def report(self, user_id: int) -> PrivacyReport:
        ids = tuple(self._saved(user_id))
        return PrivacyReport(UserData(saved_papers=len(ids)), ids, ())

    async def forget(self, user_id: int) -> UserData:
        return UserData(saved_papers=len(self._saved(user_id)))


class FakeExports:
    def __init__(self, saved: Callable[[int], list[str]]) -> None:
        self._saved = saved

    async def saved(self, user_id: int, fmt: str) -> tuple[str, bytes, int]:
        ids = self._saved(user_id)
        return f"saved.{fmt}", "\n".join(ids).encode(), len(ids)

    async def papers(self, collection: str | None, fmt: str) -> tuple[str, bytes, int]:
        return f"papers.{fmt}", b"", 0
