"""The answer engine's façade: the one object the Discord bot and the command line talk to.

It owns a store (injected, or opened from settings) and the current corpus snapshot, and
delegates each job to its module: `corpus` (the in-memory snapshot), `ingest` (the pipeline),
`ranking` and `answering` (questions). CPU-bound work runs in worker threads so an event loop
using the engine never blocks; a new snapshot replaces the old one in a single assignment.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from config.settings import Settings
from retrieval import text as analysis
from retrieval.answering import Page, build_answer
from retrieval.collection_names import resolve_collection
from retrieval.corpus import Corpus, load_corpus
from retrieval.errors import CollectionNotFound, NothingLoaded, PaperNotFound, QueryError
from retrieval.index import BoolArray
from retrieval.ingest import Progress, ingest_paths, ingest_upload, refresh_derived
from retrieval.models import Answer, CollectionInfo, EngineStats, IngestReport, Paper, ParsedQuery
from retrieval.parameters import bm25_params, rank_options
from retrieval.query import parse_query
from retrieval.ranking import Ranking, distinctive_terms, rank
from retrieval.stores import open_store
from retrieval.stores.protocol import Store
from retrieval.suggestions import suggest_papers

log = logging.getLogger(__name__)


class Engine:
    """Answers questions over the stored papers. Build it with `await Engine.open(settings)`."""

    def __init__(self, settings: Settings, store: Store, corpus: Corpus) -> None:
        self.settings = settings
        self.store = store
        self._corpus = corpus
        self._background: set[asyncio.Task[object]] = set()
        self._warm(corpus)
        self._ingest_lock = asyncio.Lock()
        self._latencies: deque[float] = deque(maxlen=2000)
        self.questions_answered = 0
        self.options = rank_options(settings)

    # -- lifecycle -----------------------------------------------------------------------------

    @classmethod
    async def open(
        cls, settings: Settings, *, store: Store | None = None, ingest_seeds: bool = True
    ) -> Engine:
        """Open the store (or use the one given), bring derived data up to date, load the corpus,
        and ingest the seed lists into an empty database."""
        store = store if store is not None else await open_store(settings)
        try:
            await refresh_derived(store)
            corpus = await load_corpus(store, bm25_params(settings), settings.index_location)
            engine = cls(settings, store, corpus)
            if ingest_seeds and corpus.index.size == 0 and await store.generation() == 0:
                report = await engine.reload_seeds()
                for error in report.errors:
                    log.warning("seed file skipped: %s", error)
        except BaseException:
            await store.close()
            raise
        return engine

    async def close(self) -> None:
        # Let a background build finish so no thread outlives the engine it belongs to.
        await asyncio.gather(*self._background, return_exceptions=True)
        await self.store.close()

    async def __aenter__(self) -> Engine:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def corpus(self) -> Corpus:
        return self._corpus

    async def _refresh(self) -> None:
        corpus = await load_corpus(
            self.store, bm25_params(self.settings), self.settings.index_location
        )
        self._corpus = corpus
        self._warm(corpus)

    def _warm(self, corpus: Corpus) -> None:
        """Build the corpus's autocomplete index in a worker thread, off the answer path."""
        task: asyncio.Task[object] = asyncio.ensure_future(asyncio.to_thread(lambda: corpus.labels))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- questions -----------------------------------------------------------------------------

    def _shorten(self, question: str) -> tuple[str, str | None]:
        limit = self.settings.max_query_chars
        if len(question) <= limit:
            return question, None
        cut = question[:limit].rsplit(" ", 1)[0] or question[:limit]
        return cut, f"Your question was shortened to its first {len(cut):,} characters."

    def _collection_mask(self, corpus: Corpus, names: Sequence[str]) -> BoolArray | None:
        if not names:
            return None
        known = corpus.collection_infos
        mask = np.zeros(corpus.index.size, dtype=np.bool_)
        for name in names:
            found = resolve_collection(name, known)
            if found is None:
                raise CollectionNotFound(name, [info.name for info in known])
            mask |= corpus.collections[found.slug][1]
        return mask

    async def ask(
        self,
        question: str,
        *,
        limit: int | None = None,
        offset: int = 0,
        collection: str | None = None,
    ) -> Answer:
        """Rank papers for a question; `hits` is the page [offset, offset + limit).

        A `collection` argument replaces any `in:` filter written in the question.
        """
        started = time.perf_counter()
        text, notice = self._shorten(question)
        parsed = parse_query(text)
        if collection:
            parsed = replace(parsed, collections=(collection,))
        if not (parsed.text or parsed.phrases):
            raise QueryError("There is nothing to search for in that question.")
        corpus = self._corpus
        allowed = self._collection_mask(corpus, parsed.collections)
        ranking = await asyncio.to_thread(
            rank, corpus, parsed, self.options, analysis.analyze, allowed=allowed
        )
        answer = await self._answer(
            corpus, ranking, Page(question, parsed, limit or 0, offset, notice, started)
        )
        self._record(started)
        return answer

    async def rank_text(self, text: str, *, depth: int = 100) -> list[tuple[str, float]]:
        """(paper id, score) for free text, best first, `depth` deep: for evaluation.

        Unlike `ask`, no query operators are parsed (a claim's "-" or quotes are plain words)
        and no excerpts are made. The places `ask` would fill (its first `max_results`) hold
        the same papers in the same order.
        """
        text, _ = self._shorten(text)
        corpus = self._corpus
        options = replace(
            self.options,
            max_results=max(depth, self.options.max_results),
            rerank_depth=min(self.options.rerank_depth, self.options.max_results),
        )
        ranking = await asyncio.to_thread(
            rank, corpus, ParsedQuery(text=text), options, analysis.analyze
        )
        return [
            (corpus.paper_of_doc[doc], score)
            for doc, score in zip(ranking.docs[:depth], ranking.scores[:depth], strict=True)
        ]

    async def external_ids(self, paper_ids: Sequence[str]) -> dict[str, str]:
        """paperbot id -> the id the source file gave (evaluation maps runs back to qrels)."""
        corpus = self._corpus
        docs = [corpus.doc_of_paper[pid] for pid in paper_ids if pid in corpus.doc_of_paper]
        papers = await self.store.papers_by_key(corpus.keys_of(docs))
        return {paper.id: paper.external_id for paper in papers}

    async def similar(self, paper_id: str, *, limit: int | None = None, offset: int = 0) -> Answer:
        """Papers like this one: its distinctive terms as the query, itself excluded."""
        started = time.perf_counter()
        paper = await self.paper(paper_id)
        corpus = self._corpus
        doc = corpus.doc_of_paper.get(paper.id)
        if doc is None:
            raise PaperNotFound(paper_id)
        terms = distinctive_terms(corpus, doc)
        allowed = np.ones(corpus.index.size, dtype=np.bool_)
        allowed[doc] = False
        parsed = ParsedQuery(text="")
        exact = replace(self.options, mode="exact")
        ranking = await asyncio.to_thread(
            rank, corpus, parsed, exact, analysis.analyze, allowed=allowed, extra_terms=terms
        )
        question = f"papers like {paper.id} ({paper.label})"
        return await self._answer(
            corpus, ranking, Page(question, parsed, limit or 0, offset, None, started)
        )

    async def _answer(self, corpus: Corpus, ranking: Ranking, page: Page) -> Answer:
        page = replace(
            page,
            question=page.question[: self.settings.max_query_chars],
            limit=page.limit or self.settings.answer_results,
        )
        return await build_answer(self.store, corpus, ranking, page, self.settings.excerpt_chars)

    def _record(self, started: float) -> None:
        self.questions_answered += 1
        self._latencies.append((time.perf_counter() - started) * 1000)

    # -- papers --------------------------------------------------------------------------------

    async def paper(self, paper_id: str) -> Paper:
        paper = await self.store.paper(paper_id)
        if paper is not None:
            return paper
        corpus = self._corpus
        close: list[tuple[str, str]] = []
        if corpus.labels_ready:
            close = await asyncio.to_thread(corpus.labels.suggest, paper_id[:100], 3)
        raise PaperNotFound(paper_id[:100], close[0][0] if close else None)

    async def random_paper(self, collection: str | None = None) -> Paper:
        slug = None
        if collection:
            known = await self.store.collections()
            info = resolve_collection(collection, known)
            if info is None:
                raise CollectionNotFound(collection, [entry.name for entry in known])
            slug = info.slug
        paper = await self.store.random_paper(slug)
        if paper is None:
            raise NothingLoaded()
        return paper

    async def collections(self) -> list[CollectionInfo]:
        return await self.store.collections()

    async def suggest_papers(self, text: str, limit: int = 25) -> list[tuple[str, str]]:
        """Autocomplete: ids and label words by prefix first, then full-text matches."""
        options = replace(self.options, max_results=limit, proximity_weight=0.0)
        return await asyncio.to_thread(suggest_papers, self._corpus, text[:100], limit, options)

    async def stats(self) -> EngineStats:
        papers, collections = await self.store.counts()
        latencies = sorted(self._latencies)
        index = self._corpus.index
        return EngineStats(
            papers=papers,
            collections=collections,
            vocabulary=len(index.terms),
            postings=len(index.postings_docs),
            index_bytes=index.nbytes,
            database_bytes=await self.store.size_bytes(),
            questions_answered=self.questions_answered,
            latency_p50_ms=statistics.median(latencies) if latencies else None,
            latency_p95_ms=latencies[int(0.95 * (len(latencies) - 1))] if latencies else None,
        )

    # -- ingest --------------------------------------------------------------------------------

    async def ingest(
        self,
        paths: Sequence[Path],
        *,
        collection: str | None = None,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Ingest files and folders, each file atomically; then refresh the corpus once."""
        async with self._ingest_lock:
            report = await ingest_paths(self.store, paths, collection=collection, progress=progress)
            if report.files_read:
                await self._refresh()
        return report

    async def ingest_bytes(
        self, name: str, data: bytes, *, collection: str | None = None
    ) -> IngestReport:
        """Ingest an uploaded list; raises ListFormatError (with file and line) if it is bad."""
        async with self._ingest_lock:
            report = await ingest_upload(self.store, name, data, collection=collection)
            if report.files_read:
                await self._refresh()
        return report

    async def reload_seeds(self) -> IngestReport:
        seeds = self.settings.seeds_dir
        if not seeds.is_dir():
            return IngestReport(
                errors=(f"{seeds}: seeds folder not found; set PAPERBOT_SEEDS_DIR",)
            )
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
