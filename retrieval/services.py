"""The engine's feature objects for people and servers (exports, privacy, watches, shortlist,
trending), built in one place so the façade stays a façade."""

from __future__ import annotations

from collections.abc import Callable

from config.settings import Settings
from retrieval.corpus import Corpus
from retrieval.export_service import ExportService
from retrieval.privacy import Privacy
from retrieval.ranking import RankOptions
from retrieval.shortlist import Shortlist
from retrieval.stores.protocol import Store
from retrieval.trending import Trending
from retrieval.watches import Watches


def community_services(
    store: Store, settings: Settings, corpus: Callable[[], Corpus], options: RankOptions
) -> tuple[ExportService, Privacy, Watches, Shortlist, Trending]:
    return (
        ExportService(store, corpus),
        Privacy(store),
        Watches(store, settings, corpus, options),
        Shortlist(store),
        Trending(store),
    )
