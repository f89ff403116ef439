"""The registry of running bot processes: each records itself with a heartbeat, and
`paperbot status` lists them, flagging those that stopped reporting."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable

from retrieval.stores.protocol import NodeRow, Store

# A process is stale after this many missed heartbeats: one late beat is not a dead process.
STALE_AFTER_BEATS = 3


def is_stale(row: NodeRow, now: float, interval: float) -> bool:
    """True when `row` has not reported for more than STALE_AFTER_BEATS heartbeat intervals."""
    return now - row.heartbeat_at > STALE_AFTER_BEATS * interval


def shard_text(shard_ids: list[int]) -> str:
    """How a process's shards are stored: "0,1", or "all" when it runs every shard."""
    return ",".join(str(shard) for shard in sorted(shard_ids)) if shard_ids else "all"


class NodeRegistry:
    """This process's entry in the store's `nodes` table, and everyone's for reading."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._clock = clock
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.started_at = clock()
        self.node_id = f"{self.host}:{self.pid}:{self.started_at:.0f}"

    async def beat(self, shard_ids: str, generation: int) -> None:
        """Record that this process is alive, with its shards and corpus generation now."""
        row = NodeRow(
            self.node_id,
            self.host,
            self.pid,
            shard_ids,
            generation,
            self.started_at,
            self._clock(),
        )
        await self._store.heartbeat(row)

    async def list(self) -> list[NodeRow]:
        """Every process that has reported, oldest first."""
        return await self._store.nodes()
