"""Conversation memory kept in the store, so it survives restarts and is shared by processes."""

from __future__ import annotations

from retrieval.conversation.memory import ConversationState
from retrieval.conversation.persist import state_from_json, state_to_json
from retrieval.stores.protocol import ConversationRow, ConversationStore


class StoredMemory:
    """Per conversation (scope), and per sent answer message (for replies to it)."""

    def __init__(self, store: ConversationStore) -> None:
        self._store = store

    async def load(self, scope: str, *, message_id: int | None = None) -> ConversationState | None:
        row = (
            await self._store.answer_message(message_id)
            if message_id is not None
            else await self._store.conversation(scope)
        )
        return state_from_json(row.state) if row is not None else None

    async def save(
        self,
        scope: str,
        user_id: int,
        state: ConversationState,
        *,
        message_id: int | None = None,
    ) -> None:
        row = ConversationRow(scope, user_id, state_to_json(state), state.updated_at)
        if message_id is None:
            await self._store.remember_conversation(row)
        else:
            await self._store.remember_answer_message(message_id, row)

    async def expire(self, *, before: float) -> int:
        """Forget conversations and answer messages not touched since `before`."""
        return await self._store.forget_conversations(before=before)
