"""UserDataStore, checked on every backend (SQLite, then PostgreSQL): counting and forgetting
all that is held about one user.
"""

from __future__ import annotations

from retrieval.privacy import UserData
from retrieval.stores.protocol import ConversationRow
from retrieval.stores.store import Store
from tests.retrieval.stores.papers import BIG, add, digest_body, papers

# -- forgetting a user ------------------------------------------------------------------------


async def _leave_traces(store: Store, user_id: int, n: int) -> None:
    await store.save(user_id, f"icml2026-{n}")
    watch = await store.add_watch(user_id, 10, 20, f"watch {n}")
    assert await store.record_digest(watch, [f"icml2026-{n}"], digest_body) is not None
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
