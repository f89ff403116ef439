"""ClusterStore, checked on every backend (SQLite, then PostgreSQL): command-sync hashes and
process heartbeats.
"""

from __future__ import annotations

from retrieval.nodes import ClusterStore, NodeRow

# -- deployment state -------------------------------------------------------------------------


async def test_command_sync_hashes_are_kept_per_scope_and_replaced(store: ClusterStore) -> None:
    assert await store.command_sync_hash("global") is None
    await store.record_command_sync("global", "abc")
    await store.record_command_sync("global", "def")
    await store.record_command_sync("123", "xyz")
    assert await store.command_sync_hash("global") == "def"
    assert await store.command_sync_hash("123") == "xyz"


async def test_heartbeats_upsert_by_node_id_and_list_by_start(store: ClusterStore) -> None:
    assert await store.nodes() == []
    late = NodeRow("b:2:200", "b", 2, "1", 4, 200.5, 201.25)
    # A pid past 32 bits and fractional seconds must come back exactly.
    early = NodeRow("a:1:100", "a", 5_000_000_000, "0", 3, 100.0, 101.0)
    await store.heartbeat(late)
    await store.heartbeat(early)
    assert await store.nodes() == [early, late]
    beat_again = NodeRow("a:1:100", "a", 5_000_000_000, "0,1", 5, 100.0, 160.75)
    await store.heartbeat(beat_again)
    assert await store.nodes() == [beat_again, late]  # replaced, not added


async def test_heartbeats_record_guilds_and_forget_silent_processes(store: ClusterStore) -> None:
    gone = NodeRow("gone:1:0", "gone", 1, "0", 1, 0.0, 99.5, 7)
    kept = NodeRow("kept:2:0", "kept", 2, "1", 1, 0.0, 100.0, 9)
    await store.heartbeat(gone)
    await store.heartbeat(kept)
    assert [row.guilds for row in await store.nodes()] == [7, 9]
    # Retention boundary: older than `forget_before` goes, exactly at it stays.
    me = NodeRow("me:3:50", "me", 3, "0,1", 2, 50.0, 200.0, 12)
    await store.heartbeat(me, forget_before=100.0)
    assert await store.nodes() == [kept, me]
    # A process never forgets itself, however old its own previous beat was.
    again = NodeRow("me:3:50", "me", 3, "0,1", 3, 50.0, 500.0, 11)
    await store.heartbeat(again, forget_before=1_000.0)
    assert await store.nodes() == [again]
    # Without a retention nothing else is deleted.
    await store.heartbeat(kept)
    await store.heartbeat(again)
    assert await store.nodes() == [kept, again]  # ordered by started_at


async def test_a_node_that_leaves_is_removed_and_only_it(store: ClusterStore) -> None:
    leaving = NodeRow("a:1:100", "a", 1, "0", 3, 100.0, 101.0)
    staying = NodeRow("b:2:200", "b", 2, "1", 3, 200.0, 201.0)
    await store.heartbeat(leaving)
    await store.heartbeat(staying)
    await store.forget_node(leaving.node_id)
    assert await store.nodes() == [staying]
    await store.forget_node(leaving.node_id)  # already gone: no error
    assert await store.nodes() == [staying]
