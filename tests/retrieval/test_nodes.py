"""The node registry: staleness, how shards are written, and beats recorded over a real store."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from config.settings import Settings
from retrieval.nodes import (
    ClusterStats,
    NodeRegistry,
    NodeRow,
    NodeStatus,
    NodeTiming,
    is_stale,
    shard_text,
)
from retrieval.parameters import node_timing
from retrieval.stores.sqlite import SqliteStore


def row(heartbeat_at: float) -> NodeRow:
    return NodeRow("h:1:0", "h", 1, "all", 1, 0.0, heartbeat_at)


def test_stale_only_past_three_intervals() -> None:
    assert not is_stale(row(100.0), now=145.0, interval=15.0)  # exactly 3 beats missed
    assert is_stale(row(100.0), now=145.5, interval=15.0)
    assert not is_stale(row(100.0), now=101.0, interval=15.0)


@given(
    st.floats(min_value=0, max_value=1e9),
    st.floats(min_value=0, max_value=1e6),
    st.floats(min_value=0.01, max_value=3600),
)
def test_within_three_intervals_is_live_and_well_past_is_stale(
    beat: float, silence: float, interval: float
) -> None:
    # Margins keep float rounding of `beat + silence` away from the boundary.
    if silence <= 3 * interval * 0.999:
        assert not is_stale(row(beat), beat + silence, interval)
    elif silence >= 3 * interval * 1.001 + 1.0:
        assert is_stale(row(beat), beat + silence, interval)


def test_shard_text() -> None:
    assert shard_text([]) == "all"
    assert shard_text([3, 0, 1]) == "0,1,3"


async def test_beats_update_one_row_and_keep_the_start(tmp_path: Path) -> None:
    times = iter([1000.0, 1015.0, 1030.0])
    async with await SqliteStore.open(tmp_path / "nodes.db") as store:
        registry = NodeRegistry(store, timing(), clock=lambda: next(times))
        await registry.beat("0,1", 3)
        await registry.beat("0,1", 4)
        [only] = await registry.list()
    assert only.node_id == f"{registry.host}:{registry.pid}:1000"
    assert (only.started_at, only.heartbeat_at, only.generation) == (1000.0, 1030.0, 4)
    assert (only.host, only.pid, only.shard_ids) == (registry.host, registry.pid, "0,1")


def timing(**values: float) -> NodeTiming:
    return node_timing(Settings(_env_file=None, **values))  # type: ignore[call-arg]


async def test_a_beat_forgets_processes_silent_past_the_retention(tmp_path: Path) -> None:
    now = [100_000.0]
    async with await SqliteStore.open(tmp_path / "nodes.db") as store:
        await store.heartbeat(NodeRow("old:1:0", "old", 1, "1", 1, 0.0, 100_000.0 - 3_601))
        await store.heartbeat(NodeRow("recent:2:0", "recent", 2, "1", 1, 0.0, 100_000.0 - 3_599))
        registry = NodeRegistry(store, timing(node_retention_hours=1), clock=lambda: now[0])
        await registry.beat("0", 1, guilds=5)
        assert [row.host for row in await registry.list()] == ["recent", registry.host]


async def test_cluster_counts_live_and_stale_shards_guilds_and_generations(tmp_path: Path) -> None:
    now = [1_000.0]
    async with await SqliteStore.open(tmp_path / "nodes.db") as store:
        registry = NodeRegistry(store, timing(heartbeat_seconds=10), clock=lambda: now[0])
        await store.heartbeat(NodeRow("a:1:0", "a", 1, "1", 0, 1.0, 1_000.0, 40))
        await store.heartbeat(NodeRow("dead:9:0", "dead", 9, "2,3", 0, 2.0, 900.0, 70))
        await registry.beat("0", 0, guilds=2)
        cluster = await registry.cluster()
    assert [(n.row.host, n.stale, n.this) for n in cluster.nodes] == [
        ("a", False, False),
        ("dead", True, False),
        (registry.host, False, True),
    ]
    assert (len(cluster.live), cluster.stale) == (2, 1)
    assert cluster.shards == "0,1"  # the stale process's 2,3 are not covered
    assert cluster.guilds == 42
    assert cluster.generation == 0 and cluster.behind == ()


def node(shards: str, generation: int, stale: bool = False) -> NodeStatus:
    return NodeStatus(NodeRow(shards, "h", 1, shards, generation, 0.0, 0.0, 1), stale, False)


def test_cluster_shards_all_none_and_who_is_behind() -> None:
    assert ClusterStats((node("0", 3), node("all", 3)), 3).shards == "all"
    assert ClusterStats((node("0", 3, stale=True),), 3).shards == "none"
    cluster = ClusterStats((node("0", 2), node("1", 3), node("2", 1, stale=True)), 3)
    assert [n.row.shard_ids for n in cluster.behind] == ["0"]  # stale ones are not "behind"
