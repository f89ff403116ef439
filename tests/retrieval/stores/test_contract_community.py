"""The Store Protocol's community half, checked on every backend (SQLite, then PostgreSQL):
watches and their digests, forgetting a user, guild shortlists and activity counters.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence

import pytest

from retrieval.errors import PaperNotFound
from retrieval.privacy import UserData
from retrieval.stores.protocol import ConversationRow, Store
from tests.retrieval.stores.conftest import Backend
from tests.retrieval.stores.papers import add, papers

# SQLite's strftime('%Y-%m-%dT%H:%M:%fZ'): both backends must return exactly this shape.
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
BIG = 2**62  # Discord snowflakes exceed 32 bits


def _body(paper_ids: Sequence[str]) -> str:
    return ",".join(paper_ids)


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
        return _body(paper_ids)

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
    third = await store.record_digest(other, ["a-1"], _body)
    assert third is not None
    assert (third.user_id, third.guild_id, third.channel_id) == (2, None, None)
    assert await store.pending_digests() == [first, second, third]


async def test_a_digest_is_claimed_exactly_once_across_two_stores(backend: Backend) -> None:
    async with await backend.open() as one, await backend.open() as two:
        watch = await one.add_watch(1, None, None, "q")
        digests = []
        for n in range(5):
            digest = await one.record_digest(watch, [f"p-{n}"], _body)
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
    good = await store.record_digest(sent, ["p-1"], _body)
    bad = await store.record_digest(failed, ["p-1"], _body)
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
    assert await store.record_digest(watch, ["p-1"], _body) is not None
    assert (await store.user_data(1)).watch_digests == 1
    assert await store.remove_watch(1, watch.id)
    assert await store.pending_digests() == []
    assert await store.user_data(1) == UserData()
    again = await store.add_watch(1, None, None, "q")
    # A new watch has no delivery history: the same paper is news to it.
    assert await store.record_digest(again, ["p-1"], _body) is not None


# -- forgetting a user ------------------------------------------------------------------------


async def _leave_traces(store: Store, user_id: int, n: int) -> None:
    await store.save(user_id, f"icml2026-{n}")
    watch = await store.add_watch(user_id, 10, 20, f"watch {n}")
    assert await store.record_digest(watch, [f"icml2026-{n}"], _body) is not None
    await store.remember_conversation(ConversationRow(f"scope-{user_id}", user_id, "{}", 1.0))
    await store.remember_answer_message(
        user_id + 5, ConversationRow(f"scope-{user_id}", user_id, "{}", 1.0)
    )
    assert await store.shortlist_add(10, f"icml2026-{n}", user_id, f"note {n}")


async def test_forget_user_removes_everything_of_one_user_and_nothing_of_others(
    store: Store,
) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2))
    gone, kept = BIG + 1, BIG + 2
    await _leave_traces(store, gone, 1)
    await _leave_traces(store, kept, 2)
    everything = UserData(
        saved_papers=1,
        watches=1,
        conversations=1,
        answer_messages=1,
        watch_digests=1,
        shortlist_entries=1,
    )
    assert await store.user_data(gone) == everything
    assert await store.user_data(kept) == everything

    assert await store.forget_user(gone) == everything
    assert await store.user_data(gone) == UserData()
    assert await store.saved(gone) == []
    assert await store.watches_of(gone) == []
    assert await store.conversation(f"scope-{gone}") is None
    assert await store.answer_message(gone + 5) is None
    assert [d.user_id for d in await store.pending_digests()] == [kept]

    assert await store.user_data(kept) == everything
    assert [p.id for p in await store.saved(kept)] == ["icml2026-2"]
    assert [w.query for w in await store.watches_of(kept)] == ["watch 2"]
    assert await store.conversation(f"scope-{kept}") is not None
    assert await store.answer_message(kept + 5) is not None
    # The guild's list keeps the entry; only the curator's name goes.
    listed = [(row.paper.id, row.added_by, row.note) for row in await store.shortlist(10)]
    assert listed == [("icml2026-1", 0, "note 1"), ("icml2026-2", kept, "note 2")]
    assert await store.forget_user(gone) == UserData()


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
