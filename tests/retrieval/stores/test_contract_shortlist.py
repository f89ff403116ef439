"""ShortlistStore and ActivityStore, checked on every backend (SQLite, then PostgreSQL): a
guild's shared reading list and its activity counters.
"""

from __future__ import annotations

import asyncio

import pytest

from retrieval.errors import PaperNotFound
from retrieval.stores.store import Store
from tests.retrieval.stores.papers import TIMESTAMP, add, papers

# -- a guild's shortlist -----------------------------------------------------------------------


async def test_shortlists_keep_insertion_order_per_guild(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2, 3))
    for n in (3, 1, 2):
        assert await store.shortlist_add(10, f"ICML2026-0{n}", 7, None if n == 1 else f"n{n}")
        await asyncio.sleep(0.01)  # added_at has millisecond resolution
    assert not await store.shortlist_add(10, "icml2026-3", 8, "changed")
    assert await store.shortlist_add(11, "icml2026-1", 9, None)

    rows = await store.shortlist(10)
    assert [(r.paper.id, r.added_by, r.note) for r in rows] == [
        ("icml2026-3", 7, "n3"),
        ("icml2026-1", 7, None),
        ("icml2026-2", 7, "n2"),
    ]
    assert all(TIMESTAMP.fullmatch(r.added_at) for r in rows)
    assert rows[0].added_at < rows[1].added_at < rows[2].added_at

    assert await store.shortlist_remove(10, "ICML2026-1")
    assert not await store.shortlist_remove(10, "icml2026-1")
    assert [r.paper.id for r in await store.shortlist(10)] == ["icml2026-3", "icml2026-2"]
    assert [r.paper.id for r in await store.shortlist(11)] == ["icml2026-1"]
    assert await store.shortlist(12) == []


async def test_shortlisting_an_unknown_paper_raises_paper_not_found(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1))
    with pytest.raises(PaperNotFound):
        await store.shortlist_add(10, "icml2026-9", 7, None)
    assert await store.shortlist(10) == []


# -- activity counters -------------------------------------------------------------------------


async def test_activity_sums_days_since_orders_by_total_then_id(store: Store) -> None:
    await store.count_activity(10, "2026-11-01", "opens", ["b", "a", "b"])  # b once per call
    await store.count_activity(10, "2026-11-02", "saves", ["a", "c"])
    await store.count_activity(10, "2026-11-03", "asks", ["c", "B"])
    await store.count_activity(10, "2026-11-03", "opens", ["c"])
    await store.count_activity(11, "2026-11-03", "asks", ["z", "z"])

    rows = await store.activity(10, "2026-11-01", 10)
    assert [(r.paper_id, r.opens, r.saves, r.asks) for r in rows] == [
        ("c", 1, 1, 1),
        ("a", 1, 1, 0),
        ("B", 0, 0, 1),  # ties by code point: upper case first, as SQLite orders
        ("b", 1, 0, 0),
    ]
    assert [r.paper_id for r in await store.activity(10, "2026-11-02", 2)] == ["c", "B"]
    assert [r.paper_id for r in await store.activity(10, "2026-11-04", 10)] == []
    assert [(r.paper_id, r.asks) for r in await store.activity(11, "2026-01-01", 10)] == [("z", 1)]


async def test_an_unknown_activity_kind_is_refused(store: Store) -> None:
    with pytest.raises(ValueError, match="unknown activity"):
        await store.count_activity(10, "2026-11-01", "opens; DROP TABLE papers", ["a"])
    assert await store.activity(10, "2026-01-01", 10) == []
