"""The whole database as one type: every concern's Protocol together, plus closing.

Only the backends and the engine hold it; feature code takes the one concern it uses. It lives
apart from `protocol.py` because it names the features' own Protocols (watches, shortlist,
trending, privacy, nodes), which import the paper-side Protocols: kept there, the two would
import each other.
"""

from __future__ import annotations

from types import TracebackType
from typing import Protocol

from retrieval.nodes import ClusterStore
from retrieval.privacy import UserDataStore
from retrieval.shortlist import ShortlistStore
from retrieval.stores.protocol import ConversationStore, IngestStore, PaperStore, ReadingListStore
from retrieval.trending import ActivityStore
from retrieval.watches.service import WatchStore


class Store(
    PaperStore,
    IngestStore,
    ReadingListStore,
    ConversationStore,
    WatchStore,
    ShortlistStore,
    ActivityStore,
    UserDataStore,
    ClusterStore,
    Protocol,
):
    """The whole database, as each backend implements it and the engine holds it: every
    concern above, plus closing. Every write is one transaction: all of it, or none. Feature
    code takes the one concern it uses, never this."""

    async def close(self) -> None: ...

    async def __aenter__(self) -> Store: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...
