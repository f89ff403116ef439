"""The answer engine's façade: the one object the Discord bot and the command line talk to.

It owns a store (injected, or opened from settings) and the current corpus snapshot, and
delegates each job to its module: `corpus` (the in-memory snapshot), `ingest` (the pipeline),
`ranking` and `answering` (questions). CPU-bound work runs in worker threads so an event loop
using the engine never blocks; a new snapshot replaces the old one in a single assignment.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from retrieval.answering import Page, best_sentences, build_answer, query_weights
from retrieval.collection_names import require_collections
from retrieval.conversation.store_memory import StoredMemory
from retrieval.corpus import Corpus, LiveCorpus
from retrieval.errors import NothingLoaded, PaperNotFound
from retrieval.ids import paper_key
from retrieval.ingest import Progress, ingest_paths, ingest_upload, refresh_derived
from retrieval.ingest_runs import IngestRuns
from retrieval.models import (
    Answer,
    CollectionInfo,
    EngineStats,
    Excerpt,
    IngestReport,
    Paper,
    ParsedQuery,
)
from retrieval.paper_answers import aspects
from retrieval.parameters import Settings, bm25_params, list_limits, rank_options
from retrieval.questions import rank_free_text, rank_question, rank_similar
from retrieval.ranking import Ranking
from retrieval.services import community_services
from retrieval.stores.opening import open_store
from retrieval.stores.store import Store
from retrieval.suggestions import closest_ids, suggest_papers
from retrieval.telemetry import LatencyLog, engine_stats

log = logging.getLogger(__name__)

# Words most lists use, so the warm-up runs every kernel (ranking, excerpts, proximity).
WARM_UP_QUESTION = "learning models with data"
WARM_UP_ABSTRACT = "We propose a method for ranking. It improves accuracy by 3% on two benchmarks."


class Engine:
    """Answers questions over the stored papers. Build it with `await Engine.open(settings)`."""

    def __init__(self, settings: Settings, store: Store, live: LiveCorpus) -> None:
        self.settings = settings
        self.store = store
        self.live = live  # the current corpus; `live.follow()` picks up other processes' changes
        self.latencies = LatencyLog()
        self.options = rank_options(settings)
        self.memory = StoredMemory(store)
        s = community_services(store, settings, lambda: self.live.current, self.options)
        self.nodes, self.exports, self.privacy = s.nodes, s.exports, s.privacy
        self.watches, self.shortlist, self.trending = s.watches, s.shortlist, s.trending
        self._ingests = IngestRuns(live, self.watches)

    # -- lifecycle -----------------------------------------------------------------------------

    @classmethod
    async def open(
        cls,
        settings: Settings,
        *,
        store: Store | None = None,
        ingest_seeds: bool = True,
        warm: bool = True,
    ) -> Engine:
        """Open the store (or use the one given), bring derived data up to date, load the corpus,
        and ingest the seed lists into an empty database. `warm=False`: a one-shot command."""
        store = store if store is not None else await open_store(settings)
        live: LiveCorpus | None = None
        try:
            await refresh_derived(store)
            params, index_dir = bm25_params(settings), settings.index_location
            live = await LiveCorpus.load(store, params, index_dir, warm=warm)
            engine = cls(settings, store, live)
            if ingest_seeds and live.current.index.size == 0 and await store.generation() == 0:
                report = await engine.reload_seeds()
                for error in report.errors:
                    log.warning("seed file skipped: %s", error)
        except BaseException:
            # The corpus's background work reads the store: it stops before the store closes.
            try:
                if live is not None:
                    await live.close()
            finally:
                await store.close()
            raise
        return engine

    async def close(self) -> None:
        try:
            await self.live.close()
        finally:
            await self.store.close()

    async def __aenter__(self) -> Engine:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def corpus(self) -> Corpus:
        return self.live.current

    # -- questions -----------------------------------------------------------------------------

    async def ask(
        self,
        question: str,
        *,
        limit: int | None = None,
        offset: int = 0,
        collection: str | None = None,
    ) -> Answer:
        """Rank papers for a question; `hits` is the page [offset, offset + limit). A
        `collection` argument replaces any `in:` filter written in the question."""
        started = time.perf_counter()
        answer = await self._ranked(question, limit or 0, offset, collection, started)
        self.latencies.record(started)
        return answer

    async def warm_up(self) -> None:
        """Answer one question and compare one abstract, and forget them (no latency recorded):
        a serving process's first real question then finds the compiled kernels and models
        loaded (cold, a newcomer's first answer took 1-3 s on a busy 2-core machine)."""
        if self.corpus.index.size == 0:
            return
        await self._ranked(WARM_UP_QUESTION, 3, 0, None, time.perf_counter())
        # Sentence roles and the answer scorer, as a comparison reads them.
        await asyncio.to_thread(aspects, WARM_UP_ABSTRACT)

    async def _ranked(
        self, question: str, limit: int, offset: int, collection: str | None, started: float
    ) -> Answer:
        corpus, settings = self.corpus, self.settings
        parsed, ranking, notice = await asyncio.to_thread(
            rank_question, corpus, self.options, question, collection, settings.max_query_chars
        )
        page = Page(question, parsed, limit, offset, notice, started)
        return await self._answer(corpus, ranking, page)

    async def rank_text(self, text: str, *, depth: int = 100) -> list[tuple[str, float]]:
        """(paper id, score) for free text, best first, `depth` deep, no excerpts: evaluation."""
        return await asyncio.to_thread(
            rank_free_text, self.corpus, self.options, text, depth, self.settings.max_query_chars
        )

    async def external_ids(self, paper_ids: Sequence[str]) -> dict[str, str]:
        """paperbot id -> the id the source file gave (evaluation maps runs back to qrels)."""
        corpus = self.corpus
        docs = [doc for doc in map(corpus.papers.doc_of, paper_ids) if doc is not None]
        papers = await self.store.papers_by_key(corpus.keys_of(docs))
        return {paper.id: paper.external_id for paper in papers}

    async def similar(
        self,
        paper_id: str,
        *,
        limit: int | None = None,
        offset: int = 0,
        collection: str | None = None,
    ) -> Answer:
        """Papers like this one: its distinctive terms as the query, itself excluded; only in
        `collection` when given."""
        started = time.perf_counter()
        paper = await self.paper(paper_id)
        corpus = self.corpus
        doc = corpus.papers.doc_of(paper.id)
        if doc is None:
            raise PaperNotFound(paper_id)
        ranking = await asyncio.to_thread(rank_similar, corpus, self.options, doc, collection)
        question = f"papers like {paper.id} ({paper.label})"
        page = Page(question, ParsedQuery(text=""), limit or 0, offset, None, started)
        return await self._answer(corpus, ranking, page)

    async def _answer(self, corpus: Corpus, ranking: Ranking, page: Page) -> Answer:
        page = replace(
            page,
            question=page.question[: self.settings.max_query_chars],
            limit=page.limit or self.settings.answer_results,
        )
        return await build_answer(self.store, corpus, ranking, page, self.settings.excerpt_chars)

    # -- papers --------------------------------------------------------------------------------

    async def paper(self, paper_id: str) -> Paper:
        paper = await self.store.paper(paper_id)
        if paper is not None:
            return paper
        corpus = self.corpus
        close = await asyncio.to_thread(closest_ids, corpus, paper_id, 3)
        example = corpus.papers.paper_id(0) if corpus.index.size else "icml2026-7"
        raise PaperNotFound(
            paper_id[:100],
            close[0] if close else None,
            tuple(close),
            example=example,
            ids_range=await self._past_the_end(paper_id),
        )

    async def _past_the_end(self, paper_id: str) -> str | None:
        """'ICML 2026 has ids icml2026-1 to icml2026-38.' when `paper_id` numbers past the end
        of a loaded collection ("icml2026-999"), else None."""
        key = paper_key(paper_id)
        if key is None:
            return None
        slug, _, number = key.rpartition("-")
        for info in await self.store.collections():
            if info.slug == slug and int(number) > info.papers:
                return f"{info.name} has ids {slug}-1 to {slug}-{info.papers}."
        return None

    async def random_paper(self, collection: str | None = None) -> Paper:
        known = await self.store.collections() if collection else []
        # "iclr" with two ICLRs loaded: a random paper of one of them, chosen by size.
        named = require_collections(collection, known) if collection else []
        slug = (
            random.choices([c.slug for c in named], [max(c.papers, 1) for c in named])[0]
            if named
            else None
        )
        paper = await self.store.random_paper(slug)
        if paper is None:
            raise NothingLoaded()
        return paper

    async def collections(self) -> list[CollectionInfo]:
        return await self.store.collections()

    async def loaded_collections(self) -> list[CollectionInfo]:
        """The collections of the corpus in memory: no database round trip (chat uses it
        on every message)."""
        return self.corpus.collection_infos

    async def explain(self, paper_ids: Sequence[str], question: str) -> list[Excerpt | None]:
        """The best sentence of each paper for `question` (None where nothing matches)."""
        papers = [await self.paper(paper_id) for paper_id in paper_ids]
        weights = query_weights(self.corpus, question, self.options)
        return best_sentences(papers, weights, self.settings.excerpt_chars, self.corpus)

    async def suggest_papers(self, text: str, limit: int = 25) -> list[tuple[str, str]]:
        """Autocomplete: ids and label words by prefix first, then full-text matches."""
        options = replace(self.options, max_results=limit, proximity_weight=0.0)
        return await asyncio.to_thread(suggest_papers, self.corpus, text[:100], limit, options)

    async def stats(self) -> EngineStats:
        return await engine_stats(self.store, self.corpus, self.latencies)

    # -- ingest --------------------------------------------------------------------------------

    async def ingest(
        self,
        paths: Sequence[Path],
        *,
        collection: str | None = None,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Ingest files and folders, each file atomically; then refresh the corpus once."""
        limits = list_limits(self.settings)
        return await self._ingests.run(
            ingest_paths(self.store, paths, collection=collection, progress=progress, limits=limits)
        )

    async def ingest_bytes(
        self, name: str, data: bytes, *, collection: str | None = None
    ) -> IngestReport:
        """Ingest an uploaded list; raises ListFormatError (with file and line) if it is bad."""
        limits = list_limits(self.settings)
        return await self._ingests.run(
            ingest_upload(self.store, name, data, collection=collection, limits=limits)
        )

    async def reload_seeds(self) -> IngestReport:
        seeds = self.settings.seeds_dir
        if not seeds.is_dir():
            missing = f"{seeds}: seeds folder not found; set PAPERBOT_SEEDS_DIR"
            return IngestReport(errors=(missing,))
        return await self.ingest([seeds])

    # -- reading lists and deployment state ----------------------------------------------------

    async def save_paper(self, user_id: int, paper_id: str) -> tuple[Paper, bool]:
        paper = await self.paper(paper_id)
        return paper, await self.store.save(user_id, paper.id)

    async def unsave_paper(self, user_id: int, paper_id: str) -> bool:
        paper = await self.store.paper(paper_id)
        return paper is not None and await self.store.unsave(user_id, paper.id)

    async def saved_papers(self, user_id: int) -> list[Paper]:
        return await self.store.saved(user_id)

    async def command_sync_hash(self, scope: str) -> str | None:
        return await self.store.command_sync_hash(scope)

    async def record_command_sync(self, scope: str, payload_hash: str) -> None:
        await self.store.record_command_sync(scope, payload_hash)
