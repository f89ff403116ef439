"""ConversationStore, checked on every backend (SQLite, then PostgreSQL): chat memory per
conversation and per answer message.
"""

from __future__ import annotations

from retrieval.stores.protocol import ConversationRow, ConversationStore
from tests.retrieval.stores.conftest import Backend

# -- conversation memory ----------------------------------------------------------------------


async def test_conversation_memory_is_replaced_per_scope_and_expires(
    store: ConversationStore,
) -> None:
    assert await store.conversation("1:2") is None
    await store.remember_conversation(ConversationRow("1:2", 1, '{"a": 1}', 100.0))
    await store.remember_conversation(ConversationRow("1:2", 1, '{"a": 2}', 200.0))
    await store.remember_conversation(ConversationRow("dm:3", 3, '{"b": 1}', 50.0))
    assert await store.conversation("1:2") == ConversationRow("1:2", 1, '{"a": 2}', 200.0)
    await store.remember_answer_message(99, ConversationRow("1:2", 1, '{"m": 1}', 150.0))
    assert await store.answer_message(99) == ConversationRow("1:2", 1, '{"m": 1}', 150.0)
    assert await store.answer_message(98) is None
    assert await store.forget_conversations(before=160.0) == 2  # dm:3 and message 99
    assert await store.conversation("dm:3") is None
    assert await store.answer_message(99) is None
    assert await store.conversation("1:2") == ConversationRow("1:2", 1, '{"a": 2}', 200.0)
    assert await store.forget_conversations(before=160.0) == 0


async def test_an_answer_message_keeps_its_scope_when_updated(store: ConversationStore) -> None:
    message = 1_300_000_000_000_000_001  # a snowflake
    await store.remember_answer_message(message, ConversationRow("g:7", 7, "{}", 1.0))
    await store.remember_answer_message(message, ConversationRow("other", 8, '{"x": 1}', 2.5))
    assert await store.answer_message(message) == ConversationRow("g:7", 7, '{"x": 1}', 2.5)


async def test_conversation_memory_survives_reopening(backend: Backend) -> None:
    row = ConversationRow("dm:5", 5, '{"topic": "moe"}', 1_700_000_000.25)
    async with await backend.open() as store:
        await store.remember_conversation(row)
        await store.remember_answer_message(11, row)
    async with await backend.open() as store:
        assert await store.conversation("dm:5") == row
        assert await store.answer_message(11) == row
