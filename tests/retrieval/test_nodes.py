"""The node registry: staleness, how shards are written, and beats recorded over a real store."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from retrieval.nodes import NodeRegistry, is_stale, shard_text
from retrieval.stores.protocol import NodeRow
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
        registry = NodeRegistry(store, clock=lambda: next(times))
        await registry.beat("0,1", 3)
        await registry.beat("0,1", 4)
        [only] = await registry.list()
    assert only.node_id == f"{registry.host}:{registry.pid}:1000"
    assert (only.started_at, only.heartbeat_at, only.generation) == (1000.0, 1030.0, 4)
    assert (only.host, only.pid, only.shard_ids) == (registry.host, registry.pid, "0,1")
