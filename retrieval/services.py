"""The engine's feature objects for people and servers (exports, privacy, watches, shortlist,
trending) and the node registry, built in one place so the façade stays a façade."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from retrieval.corpus import Corpus
from retrieval.exports.service import ExportService
from retrieval.nodes import NodeRegistry
from retrieval.parameters import Settings, node_timing, watch_limits
from retrieval.privacy import Privacy
from retrieval.ranking import RankOptions
from retrieval.shortlist import Shortlist
from retrieval.stores.store import Store
from retrieval.trending import Trending
from retrieval.watches.service import Watches


@dataclass(frozen=True, slots=True)
class CommunityServices:
    nodes: NodeRegistry
    exports: ExportService
    privacy: Privacy
    watches: Watches
    shortlist: Shortlist
    trending: Trending


def community_services(
    store: Store, settings: Settings, corpus: Callable[[], Corpus], options: RankOptions
) -> CommunityServices:
    return CommunityServices(
        nodes=NodeRegistry(store, node_timing(settings)),
        exports=ExportService(store, corpus),
        privacy=Privacy(store),
        watches=Watches(store, watch_limits(settings), corpus, options),
        shortlist=Shortlist(store),
        trending=Trending(store),
    )
