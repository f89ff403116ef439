"""The one translation from Settings to the engine's parameter objects (no competing defaults).

The only module of `retrieval/` that reads `config.settings` (besides `retrieval.stores`
opening the database it names); the engine's entry points take `Settings` from here."""

from __future__ import annotations

from config.settings import Settings
from retrieval.ingest import ListLimits
from retrieval.nodes import NodeTiming
from retrieval.ranking import RankOptions
from retrieval.snapshot.matrix import BM25Params
from retrieval.watches.service import WatchLimits

__all__ = [
    "Settings",
    "bm25_params",
    "list_limits",
    "node_timing",
    "rank_options",
    "watch_limits",
]


def bm25_params(settings: Settings) -> BM25Params:
    return BM25Params(k1=settings.bm25_k1, b=settings.bm25_b, epsilon=settings.bm25_epsilon)


def rank_options(settings: Settings) -> RankOptions:
    return RankOptions(
        mode=settings.ranking,
        max_terms=settings.max_query_terms,
        max_results=settings.max_results,
        expansion_weight=settings.acronym_weight,
        proximity_weight=settings.proximity_weight,
        every_word_weight=settings.every_word_weight,
    )


def list_limits(settings: Settings) -> ListLimits:
    return ListLimits(
        max_file_bytes=settings.max_list_file_bytes, max_papers=settings.max_list_papers
    )


def watch_limits(settings: Settings) -> WatchLimits:
    return WatchLimits(
        max_per_user=settings.watch_max_per_user,
        max_per_guild=settings.watch_max_per_guild,
        matcher=settings.watch_matcher,
        min_probability=settings.watch_min_probability,
        top_k=settings.watch_top_k,
        min_score=settings.watch_min_score,
        excerpt_chars=settings.excerpt_chars,
    )


def node_timing(settings: Settings) -> NodeTiming:
    return NodeTiming(
        heartbeat_seconds=settings.heartbeat_seconds,
        retention_seconds=settings.node_retention_hours * 3600,
    )
