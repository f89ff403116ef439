"""`EngineAPI`: what the shells (Discord bot, command line) may call on the engine.

The shells type against this Protocol, never against `Engine` itself, so a test double that
satisfies it under mypy is a faithful stand-in, and nothing reaches past the façade.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from retrieval.conversation.memory import ConversationState
from retrieval.models import Answer, CollectionInfo, EngineStats, Excerpt, IngestReport, Paper


class ConversationMemory(Protocol):
    """Where chat keeps what each conversation last saw (`StoredMemory` over the store)."""

    async def load(
        self, scope: str, *, message_id: int | None = None
    ) -> ConversationState | None: ...

    async def save(
        self,
        scope: str,
        user_id: int,
        state: ConversationState,
        *,
        message_id: int | None = None,
    ) -> None: ...


class CorpusFollower(Protocol):
    """The engine's current corpus, as a running bot sees it (`LiveCorpus`)."""

    async def follow(self, interval: float) -> None:
        """Run until cancelled, picking up other processes' corpus changes."""
        ...


class EngineAPI(Protocol):
    @property
    def memory(self) -> ConversationMemory: ...

    @property
    def live(self) -> CorpusFollower: ...

    async def ask(
        self,
        question: str,
        *,
        limit: int | None = None,
        offset: int = 0,
        collection: str | None = None,
    ) -> Answer: ...

    async def similar(
        self, paper_id: str, *, limit: int | None = None, offset: int = 0
    ) -> Answer: ...

    async def paper(self, paper_id: str) -> Paper: ...

    async def random_paper(self, collection: str | None = None) -> Paper: ...

    async def collections(self) -> list[CollectionInfo]: ...

    async def suggest_papers(self, text: str, limit: int = 25) -> list[tuple[str, str]]: ...

    async def stats(self) -> EngineStats: ...

    async def ingest(
        self,
        paths: Sequence[Path],
        *,
        collection: str | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> IngestReport: ...

    async def ingest_bytes(
        self, name: str, data: bytes, *, collection: str | None = None
    ) -> IngestReport: ...

    async def reload_seeds(self) -> IngestReport: ...

    async def save_paper(self, user_id: int, paper_id: str) -> tuple[Paper, bool]: ...

    async def unsave_paper(self, user_id: int, paper_id: str) -> bool: ...

    async def saved_papers(self, user_id: int) -> list[Paper]: ...

    async def command_sync_hash(self, scope: str) -> str | None: ...

    async def record_command_sync(self, scope: str, payload_hash: str) -> None: ...

    async def loaded_collections(self) -> list[CollectionInfo]: ...

    async def explain(self, paper_ids: Sequence[str], question: str) -> list[Excerpt | None]: ...

    async def close(self) -> None: ...
