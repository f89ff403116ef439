"""The registry of running bot processes: each records itself with a heartbeat, forgets
processes silent longer than the retention, and reads the cluster back for `paperbot status`
and /stats."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

# A process is stale after this many missed heartbeats: one late beat is not a dead process.
STALE_AFTER_BEATS = 3


@dataclass(frozen=True, slots=True)
class NodeTiming:
    """How often a process reports, and how long a silent one is kept (seconds)."""

    heartbeat_seconds: float
    retention_seconds: float


@dataclass(frozen=True, slots=True)
class NodeRow:
    """One `paperbot run` process as it last reported itself. `node_id` is host:pid:start;
    `shard_ids` is text ("0,1" or "all"); times are Unix seconds; `guilds` is how many guilds
    its shards hold (0 until its gateway is ready)."""

    node_id: str
    host: str
    pid: int
    shard_ids: str
    generation: int
    started_at: float
    heartbeat_at: float
    guilds: int = 0


def is_stale(row: NodeRow, now: float, interval: float) -> bool:
    """True when `row` has not reported for more than STALE_AFTER_BEATS heartbeat intervals."""
    return now - row.heartbeat_at > STALE_AFTER_BEATS * interval


def shard_text(shard_ids: list[int]) -> str:
    """How a process's shards are stored: "0,1", or "all" when it runs every shard."""
    return ",".join(str(shard) for shard in sorted(shard_ids)) if shard_ids else "all"


@dataclass(frozen=True, slots=True)
class NodeStatus:
    """One process as /stats shows it: its row, whether it went silent, whether it is us."""

    row: NodeRow
    stale: bool
    this: bool


@dataclass(frozen=True, slots=True)
class ClusterStats:
    """Every process that reported, and the store's corpus generation to compare them with."""

    nodes: tuple[NodeStatus, ...]
    generation: int

    @property
    def live(self) -> tuple[NodeStatus, ...]:
        return tuple(node for node in self.nodes if not node.stale)

    @property
    def stale(self) -> int:
        return len(self.nodes) - len(self.live)

    @property
    def shards(self) -> str:
        """The shards live processes cover: "0,1", "all", or "none" when no process is live."""
        texts = [node.row.shard_ids for node in self.live]
        if "all" in texts:
            return "all"
        covered = {int(part) for text in texts for part in text.split(",") if part.isdigit()}
        return shard_text(sorted(covered)) if covered else "none"

    @property
    def guilds(self) -> int:
        """Guilds held by live processes, as each last reported (up to one beat old)."""
        return sum(node.row.guilds for node in self.live)

    @property
    def behind(self) -> tuple[NodeStatus, ...]:
        """Live processes whose corpus is older than the store's (catching up, or stuck)."""
        return tuple(node for node in self.live if node.row.generation < self.generation)


class NodeRegistry:
    """This process's entry in the store's `nodes` table, and everyone's for reading."""

    def __init__(
        self, store: ClusterStore, timing: NodeTiming, clock: Callable[[], float] = time.time
    ) -> None:
        self._store = store
        self._clock = clock
        self.interval = timing.heartbeat_seconds
        self.retention = timing.retention_seconds
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.started_at = clock()
        self.node_id = f"{self.host}:{self.pid}:{self.started_at:.0f}"

    async def beat(self, shard_ids: str, generation: int, guilds: int = 0) -> None:
        """Record that this process is alive, with its shards, corpus generation and guild
        count now; rows silent for longer than the retention are deleted at the same time."""
        now = self._clock()
        row = NodeRow(
            self.node_id,
            self.host,
            self.pid,
            shard_ids,
            generation,
            self.started_at,
            now,
            guilds,
        )
        await self._store.heartbeat(row, forget_before=now - self.retention)

    async def leave(self) -> None:
        """Remove this process's row: a process that stops cleanly is gone, not stale."""
        await self._store.forget_node(self.node_id)

    async def list(self) -> list[NodeRow]:
        """Every process that has reported, oldest first."""
        return await self._store.nodes()

    async def cluster(self) -> ClusterStats:
        """Every process with its staleness, and the store's current corpus generation."""
        rows = await self._store.nodes()
        generation = await self._store.generation()
        now = self._clock()
        nodes = tuple(
            NodeStatus(row, is_stale(row, now, self.interval), row.node_id == self.node_id)
            for row in rows
        )
        return ClusterStats(nodes, generation)


class ClusterStore(Protocol):
    """Deployment state: command-sync hashes, process heartbeats, and the corpus
    generation each process is compared with."""

    async def command_sync_hash(self, scope: str) -> str | None:
        """The hash of the slash-command payload last synced to Discord for `scope`."""
        ...

    async def record_command_sync(self, scope: str, payload_hash: str) -> None: ...

    async def heartbeat(self, node: NodeRow, *, forget_before: float | None = None) -> None:
        """Record `node` as it is now: insert it, or replace the row with its `node_id`. In the
        same transaction, delete other rows whose heartbeat is older than `forget_before`
        (stopped processes; None keeps them all)."""
        ...

    async def forget_node(self, node_id: str) -> None:
        """Delete the row of `node_id` (a process stopping cleanly); no row is no error."""
        ...

    async def nodes(self) -> list[NodeRow]:
        """Every process that has reported, oldest `started_at` first."""
        ...

    async def generation(self) -> int:
        """Bumped by every write that changes what the index holds."""
        ...
