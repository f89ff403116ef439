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
from retrieval.nodes import ClusterStats, NodeRow
from retrieval.privacy import PrivacyReport, UserData
from retrieval.shortlist import ShortlistRow
from retrieval.trending import TrendingPaper
from retrieval.watches.service import Digest, WatchRow


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


class Exports(Protocol):
    """`ExportService`: reading lists and collections as files (`retrieval.exports.formats`)."""

    async def saved(self, user_id: int, fmt: str) -> tuple[str, bytes, int]: ...

    async def papers(self, collection: str | None, fmt: str) -> tuple[str, bytes, int]: ...


class PrivacyAPI(Protocol):
    """`retrieval.privacy.Privacy`: what is stored about a user; deleting it."""

    async def report(self, user_id: int) -> PrivacyReport: ...

    async def forget(self, user_id: int) -> UserData: ...


class WatchesAPI(Protocol):
    """`retrieval.watches.Watches`: saved queries and the digests announcing new papers."""

    async def add(
        self,
        user_id: int,
        query: str,
        *,
        guild_id: int | None = None,
        channel_id: int | None = None,
    ) -> WatchRow: ...

    async def of(self, user_id: int) -> list[WatchRow]: ...

    async def remove(self, user_id: int, watch_id: int) -> bool: ...

    async def pending(self) -> list[Digest]: ...

    async def claim(self, digest: Digest, claimer: str) -> bool: ...

    async def delivered(self, digest: Digest) -> None: ...

    async def failed(self, digest: Digest, reason: str) -> None: ...


class ShortlistAPI(Protocol):
    """`retrieval.shortlist.Shortlist`: a guild's shared reading list."""

    async def add(
        self, guild_id: int, paper_id: str, user_id: int, note: str | None = None
    ) -> tuple[ShortlistRow, bool]: ...

    async def remove(self, guild_id: int, paper_id: str) -> bool: ...

    async def entries(self, guild_id: int) -> list[ShortlistRow]: ...

    async def export(
        self, guild_id: int, fmt: str, *, names: dict[int, str] | None = None
    ) -> tuple[str, bytes, int]: ...


class TrendingAPI(Protocol):
    """`retrieval.trending.Trending`: per-guild activity counters."""

    async def record(self, guild_id: int, kind: str, paper_ids: Sequence[str]) -> None: ...

    async def top(self, guild_id: int, days: int = 7, limit: int = 10) -> list[TrendingPaper]: ...


class NodesAPI(Protocol):
    """The registry of running bot processes (`retrieval.nodes.NodeRegistry`)."""

    async def beat(self, shard_ids: str, generation: int, guilds: int = 0) -> None: ...

    async def leave(self) -> None: ...

    async def list(self) -> list[NodeRow]: ...

    async def cluster(self) -> ClusterStats: ...


class CorpusFollower(Protocol):
    """The engine's current corpus, as a running bot sees it (`LiveCorpus`)."""

    async def follow(self, interval: float) -> None:
        """Run until cancelled, picking up other processes' corpus changes."""
        ...


class ChatEngine(Protocol):
    """What the chat service needs of the engine: answers, papers and their sentences."""

    async def ask(
        self,
        question: str,
        *,
        limit: int | None = None,
        offset: int = 0,
        collection: str | None = None,
    ) -> Answer: ...

    async def similar(
        self,
        paper_id: str,
        *,
        limit: int | None = None,
        offset: int = 0,
        collection: str | None = None,
    ) -> Answer: ...

    async def paper(self, paper_id: str) -> Paper: ...

    async def loaded_collections(self) -> list[CollectionInfo]: ...

    async def explain(self, paper_ids: Sequence[str], question: str) -> list[Excerpt | None]: ...


class EngineAPI(ChatEngine, Protocol):
    @property
    def memory(self) -> ConversationMemory: ...

    @property
    def live(self) -> CorpusFollower: ...

    @property
    def nodes(self) -> NodesAPI: ...

    @property
    def exports(self) -> Exports: ...

    @property
    def privacy(self) -> PrivacyAPI: ...

    @property
    def watches(self) -> WatchesAPI: ...

    @property
    def shortlist(self) -> ShortlistAPI: ...

    @property
    def trending(self) -> TrendingAPI: ...

    async def random_paper(self, collection: str | None = None) -> Paper: ...

    async def collections(self) -> list[CollectionInfo]: ...

    async def suggest_papers(self, text: str, limit: int = 25) -> list[tuple[str, str]]: ...

    async def stats(self) -> EngineStats: ...

    async def warm_up(self) -> None: ...

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

    async def close(self) -> None: ...
