"""WatchStore, checked on every backend (SQLite, then PostgreSQL): watches, their digests
and deliveries.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from retrieval.privacy import UserData
from retrieval.stores.store import Store
from tests.retrieval.stores.conftest import Backend
from tests.retrieval.stores.papers import BIG, TIMESTAMP, digest_body

# -- watches ----------------------------------------------------------------------------------


async def test_watches_are_listed_oldest_first_counted_and_removed_by_owner(store: Store) -> None:
    first = await store.add_watch(BIG + 1, BIG + 10, BIG + 20, "sparse routing")
    dm = await store.add_watch(BIG + 1, None, None, "graph nets")
    other = await store.add_watch(BIG + 2, BIG + 10, None, "diffusion")
    await store.add_watch(BIG + 3, 7, None, "elsewhere")

    assert (first.user_id, first.guild_id, first.channel_id, first.query) == (
        BIG + 1,
        BIG + 10,
        BIG + 20,
        "sparse routing",
    )
    assert TIMESTAMP.fullmatch(first.created_at)
    assert (first.last_fired_at, first.paused_reason) == (None, None)
    assert first.id < dm.id < other.id
    assert await store.watches_of(BIG + 1) == [first, dm]
    assert await store.watch_counts(BIG + 1, BIG + 10) == (2, 2)
    assert await store.watch_counts(BIG + 1, None) == (2, 0)
    assert await store.watch_counts(99, BIG + 10) == (0, 2)
    assert [w.query for w in await store.active_watches()] == [
        "sparse routing",
        "graph nets",
        "diffusion",
        "elsewhere",
    ]

    assert not await store.remove_watch(BIG + 2, first.id)  # not theirs
    assert await store.watches_of(BIG + 1) == [first, dm]
    assert await store.remove_watch(BIG + 1, first.id)
    assert not await store.remove_watch(BIG + 1, first.id)
    assert await store.watches_of(BIG + 1) == [dm]
    assert await store.watch_counts(BIG + 1, BIG + 10) == (1, 1)


async def test_a_digest_holds_only_papers_the_watch_never_announced(store: Store) -> None:
    watch = await store.add_watch(1, 10, 20, "q")
    other = await store.add_watch(2, None, None, "q")
    calls: list[list[str]] = []

    def body(paper_ids: Sequence[str]) -> str:
        calls.append(list(paper_ids))
        return digest_body(paper_ids)

    first = await store.record_digest(watch, ["a-1", "a-2", "a-1"], body)
    assert first is not None
    assert (first.watch_id, first.user_id, first.guild_id, first.channel_id, first.body) == (
        watch.id,
        1,
        10,
        20,
        "a-1,a-2",
    )
    second = await store.record_digest(watch, ["a-2", "a-3"], body)
    assert second is not None
    assert second.body == "a-3"
    assert await store.record_digest(watch, ["a-1", "a-3"], body) is None
    assert calls == [["a-1", "a-2"], ["a-3"]]  # not called when nothing is new
    # Deliveries are per watch: another watch announces the same paper once of its own.
    third = await store.record_digest(other, ["a-1"], digest_body)
    assert third is not None
    assert (third.user_id, third.guild_id, third.channel_id) == (2, None, None)
    assert await store.pending_digests() == [first, second, third]


async def test_a_digest_is_claimed_exactly_once_across_two_stores(backend: Backend) -> None:
    async with await backend.open() as one, await backend.open() as two:
        watch = await one.add_watch(1, None, None, "q")
        digests = []
        for n in range(5):
            digest = await one.record_digest(watch, [f"p-{n}"], digest_body)
            assert digest is not None
            digests.append(digest)
        assert await two.pending_digests() == digests
        for digest in digests:
            won = await asyncio.gather(
                one.claim_digest(digest.id, "one"), two.claim_digest(digest.id, "two")
            )
            assert sorted(won) == [False, True]
            assert not await one.claim_digest(digest.id, "one")
        assert await one.pending_digests() == []
        assert await two.pending_digests() == []


async def test_finishing_a_digest_sets_last_fired_or_pauses_the_watch(store: Store) -> None:
    sent = await store.add_watch(1, None, None, "sent")
    failed = await store.add_watch(1, None, None, "failed")
    good = await store.record_digest(sent, ["p-1"], digest_body)
    bad = await store.record_digest(failed, ["p-1"], digest_body)
    assert good is not None and bad is not None
    assert await store.claim_digest(good.id, "me")
    assert await store.claim_digest(bad.id, "me")

    await store.finish_digest(good.id, None)
    await store.finish_digest(bad.id, "DMs closed")

    mine = {w.query: w for w in await store.watches_of(1)}
    assert mine["sent"].last_fired_at is not None
    assert TIMESTAMP.fullmatch(mine["sent"].last_fired_at)
    assert mine["sent"].paused_reason is None
    assert mine["failed"].paused_reason == "DMs closed"
    assert mine["failed"].last_fired_at is None
    assert [w.query for w in await store.active_watches()] == ["sent"]
    assert await store.pending_digests() == []  # a failed digest is not retried


async def test_removing_a_watch_removes_its_digests_and_deliveries(store: Store) -> None:
    watch = await store.add_watch(1, None, None, "q")
    assert await store.record_digest(watch, ["p-1"], digest_body) is not None
    assert (await store.user_data(1)).watch_digests == 1
    assert await store.remove_watch(1, watch.id)
    assert await store.pending_digests() == []
    assert await store.user_data(1) == UserData()
    again = await store.add_watch(1, None, None, "q")
    # A new watch has no delivery history: the same paper is news to it.
    assert await store.record_digest(again, ["p-1"], digest_body) is not None
