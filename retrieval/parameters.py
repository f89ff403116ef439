"""The one translation from Settings to the engine's parameter objects (no competing defaults)."""

from __future__ import annotations

from config.settings import Settings
from retrieval.ingest import ListLimits
from retrieval.ranking import RankOptions
from retrieval.snapshot.matrix import BM25Params


def bm25_params(settings: Settings) -> BM25Params:
    return BM25Params(k1=settings.bm25_k1, b=settings.bm25_b, epsilon=settings.bm25_epsilon)


def rank_options(settings: Settings) -> RankOptions:
    return RankOptions(
        mode=settings.ranking,
        max_terms=settings.max_query_terms,
        max_results=settings.max_results,
        expansion_weight=settings.acronym_weight,
        proximity_weight=settings.proximity_weight,
    )


def list_limits(settings: Settings) -> ListLimits:
    return ListLimits(
        max_file_bytes=settings.max_list_file_bytes, max_papers=settings.max_list_papers
    )
