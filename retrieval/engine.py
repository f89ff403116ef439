"""The answer engine: the one object the Discord bot and the command line talk to.

It owns the store and the current corpus snapshot. CPU-bound work (analysis, index builds,
ranking, excerpts) runs in worker threads so an event loop using the engine never blocks; a new
snapshot replaces the old one in a single assignment, so a question sees the old corpus or the
new one, never a mix.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from config.settings import Settings
from retrieval import text as analysis
from retrieval.acronyms import AcronymTable
from retrieval.errors import (
    CollectionNotFound,
    PaperbotError,
    PaperNotFound,
    QueryError,
    StoreError,
)
from retrieval.excerpts import best_sentence, make_excerpt
from retrieval.ids import content_hash, lookup_key, paper_key
from retrieval.index import BM25Index, BM25Params, BoolArray
from retrieval.labels import derive_label, extract_urls
from retrieval.lists import ParsedList, find_paper_files, read_paper_bytes, read_paper_file
from retrieval.models import (
    Answer,
    CollectionInfo,
    EngineStats,
    Excerpt,
    Hit,
    IngestReport,
    Paper,
    ParsedQuery,
)
from retrieval.query import parse_query
from retrieval.ranking import (
    Corpus,
    Ranking,
    RankOptions,
    did_you_mean,
    distinctive_terms,
    rank,
)
from retrieval.store import NewPaper, Store

log = logging.getLogger(__name__)

Progress = Callable[[str], None]
ANALYZER_META = "analyzer_version"
MAX_SUGGESTION_WORDS = 12


def _searchable_text(title: str | None, abstract: str) -> str:
    return f"{title}\n{abstract}" if title else abstract


def prepare_papers(parsed: ParsedList) -> list[NewPaper]:
    """Analyze, label and hash parsed papers: everything the store keeps for each one."""
    prepared = []
    for paper in parsed.papers:
        urls = extract_urls(paper.abstract)
        if paper.url and paper.url not in urls:
            urls = (paper.url, *urls)
        prepared.append(
            NewPaper(
                abstract=paper.abstract,
                external_id=paper.external_id,
                label=derive_label(paper.abstract, paper.title),
                content_hash=content_hash(paper.abstract),
                terms=" ".join(analysis.analyze(_searchable_text(paper.title, paper.abstract))),
                title=paper.title,
                urls=urls,
                authors=paper.authors,
                acronyms=tuple(analysis.find_acronyms(paper.abstract)),
            )
        )
    return prepared


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
        self.options = RankOptions(
            mode=settings.ranking,
            max_terms=settings.max_query_terms,
            max_results=settings.max_results,
            expansion_weight=settings.acronym_weight,
            proximity_weight=settings.proximity_weight,
        )

    # -- lifecycle -----------------------------------------------------------------------------

    @classmethod
    async def open(cls, settings: Settings, *, ingest_seeds: bool = True) -> Engine:
        store = await Store.open(settings.db_path)
        try:
            await cls._reanalyze_if_stale(store)
            corpus = await cls._load_corpus(settings, store)
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

    @staticmethod
    async def _reanalyze_if_stale(store: Store) -> None:
        """Re-analyze stored papers once when the analyzer changed since they were stored."""
        current = str(analysis.ANALYZER_VERSION)
        stored = await store.get_meta(ANALYZER_META)
        if stored == current:
            return
        texts = await store.texts_to_analyze()
        if texts:
            log.info(
                "analyzer changed (%s -> %s): re-analyzing %d papers", stored, current, len(texts)
            )
            terms = await asyncio.to_thread(
                lambda: [
                    (rowid, " ".join(analysis.analyze(_searchable_text(title, abstract))))
                    for rowid, title, abstract in texts
                ]
            )
            await store.replace_terms(terms)
        await store.set_meta(ANALYZER_META, current)

    async def __aenter__(self) -> Engine:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def corpus(self) -> Corpus:
        return self._corpus

    def _params(self) -> BM25Params:
        s = self.settings
        return BM25Params(k1=s.bm25_k1, b=s.bm25_b, epsilon=s.bm25_epsilon)

    @staticmethod
    def _index_path(settings: Settings) -> Path:
        return settings.db_path.with_name(settings.db_path.name + ".index.npz")

    @classmethod
    async def _load_corpus(cls, settings: Settings, store: Store) -> Corpus:
        """The saved index when it matches the database; otherwise rebuilt from stored terms."""
        params = BM25Params(settings.bm25_k1, settings.bm25_b, settings.bm25_epsilon)
        generation = await store.generation()
        stamp = {"generation": generation, "analyzer": analysis.ANALYZER_VERSION}
        path = cls._index_path(settings)
        rows = await store.index_rows(with_terms=False)
        index = await asyncio.to_thread(BM25Index.load, path, stamp, params)
        if index is None or index.size != len(rows):
            rows = await store.index_rows()
            # A generator: one paper's term list at a time, not all of them (gigabytes at 1M).
            documents = (row.terms.split() for row in rows)
            keys = [row.rowid for row in rows]
            index = await asyncio.to_thread(BM25Index.build, documents, keys, params)
            try:
                await asyncio.to_thread(index.save, path, stamp)
            except OSError as error:
                log.warning("could not save the index to %s (%s); it will be rebuilt", path, error)
        acronyms = await asyncio.to_thread(
            AcronymTable.build, await store.acronym_table(), analysis.analyze
        )
        labels = await store.paper_labels()
        collections = await store.collections()
        return await asyncio.to_thread(
            _assemble_corpus, index, rows, labels, collections, acronyms, generation
        )

    async def _refresh(self) -> None:
        self._corpus = await self._load_corpus(self.settings, self.store)
        self._warm(self._corpus)

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
        mask = np.zeros(corpus.index.size, dtype=np.bool_)
        for name in names:
            key = name.strip().lower()
            found = next(
                (
                    entry
                    for slug, entry in corpus.collections.items()
                    if key in (slug, entry[0].lower(), entry[0].lower().replace(" ", ""))
                ),
                None,
            )
            if found is None:
                raise CollectionNotFound(name, [entry[0] for entry in corpus.collections.values()])
            mask |= found[1]
        return mask

    async def ask(
        self,
        question: str,
        *,
        limit: int | None = None,
        offset: int = 0,
        collection: str | None = None,
    ) -> Answer:
        """Rank papers for a question; `hits` is the page [offset, offset + limit)."""
        started = time.perf_counter()
        text, notice = self._shorten(question)
        parsed = parse_query(text)
        if collection:
            parsed = replace(parsed, collections=(*parsed.collections, collection))
        if not (parsed.text or parsed.phrases):
            raise QueryError(
                "Ask about a topic, e.g. `MoE routing` or `attacks on RAG retrievers`."
            )
        corpus = self._corpus
        allowed = self._collection_mask(corpus, parsed.collections)
        ranking = await asyncio.to_thread(
            rank, corpus, parsed, self.options, analysis.analyze, allowed=allowed
        )
        answer = await self._answer(
            corpus, question, parsed, ranking, limit, offset, notice, started
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
        return await self._answer(corpus, question, parsed, ranking, limit, offset, None, started)

    async def _answer(
        self,
        corpus: Corpus,
        question: str,
        parsed: ParsedQuery,
        ranking: Ranking,
        limit: int | None,
        offset: int,
        notice: str | None,
        started: float,
    ) -> Answer:
        limit = limit or self.settings.answer_results
        offset = max(0, offset)
        page = ranking.docs[offset : offset + limit]
        papers = await self.store.papers_by_rowid([int(corpus.index.keys[doc]) for doc in page])
        suggestion = None
        if not ranking.docs:
            suggestion = await self._suggest(corpus, ranking.suggestion_terms)
            notice = notice or "No paper matches that question."
        hits, lead, lead_id = await asyncio.to_thread(self._excerpts, papers, ranking, offset, page)
        return Answer(
            question=question[: self.settings.max_query_chars],
            query=parsed,
            hits=hits,
            total=ranking.total,
            took_ms=(time.perf_counter() - started) * 1000,
            lead=lead,
            lead_paper_id=lead_id,
            suggestion=suggestion,
            notice=notice,
            expansions=ranking.expansions,
        )

    def _excerpts(
        self, papers: Sequence[Paper], ranking: Ranking, offset: int, page: Sequence[int]
    ) -> tuple[tuple[Hit, ...], Excerpt | None, str | None]:
        budget = self.settings.excerpt_chars
        hits = []
        lead: tuple[float, Excerpt, str] | None = None
        for position, paper in enumerate(papers):
            excerpt = make_excerpt(paper.abstract, ranking.weights, budget)
            hits.append(
                Hit(
                    paper=paper,
                    score=ranking.scores[offset + position],
                    rank=offset + position + 1,
                    excerpt=excerpt,
                )
            )
            sentence, score = best_sentence(paper.abstract, ranking.weights, budget)
            if score > 0 and (lead is None or score > lead[0]):
                lead = (score, sentence, paper.id)
        if lead is None:
            return tuple(hits), None, None
        return tuple(hits), lead[1], lead[2]

    async def _suggest(self, corpus: Corpus, terms: Sequence[str]) -> str | None:
        """A did-you-mean built from real words of the corpus, or None if nothing is close."""
        close = await asyncio.to_thread(did_you_mean, corpus, terms)
        if not close:
            return None
        words = []
        # A suggestion is a short query to click or retype, not an echo of a huge question.
        for term in list(dict.fromkeys(terms))[:MAX_SUGGESTION_WORDS]:
            replacement = close.get(term)
            words.append(await self._surface(corpus, replacement) if replacement else term)
        return " ".join(words)

    async def _surface(self, corpus: Corpus, term: str) -> str:
        """A word as papers write it ('retrieval' rather than the stem 'retriev')."""
        docs = corpus.index.postings(term)[:1].tolist()
        if not docs:
            return term
        abstracts = await self.store.abstracts_by_rowid([int(corpus.index.keys[docs[0]])])
        for abstract in abstracts.values():
            for start, end, found in analysis.word_spans(abstract):
                if found == term:
                    return abstract[start:end].lower()
        return term

    def _record(self, started: float) -> None:
        self.questions_answered += 1
        self._latencies.append((time.perf_counter() - started) * 1000)

    # -- papers --------------------------------------------------------------------------------

    async def paper(self, paper_id: str) -> Paper:
        wanted = lookup_key(paper_id)
        paper = await self.store.paper(wanted)
        if paper is not None:
            return paper
        corpus = self._corpus
        close = []
        if corpus.labels_ready:
            close = await asyncio.to_thread(corpus.labels.suggest, paper_id[:100], 1)
        raise PaperNotFound(paper_id[:100], close[0][0] if close else None)

    async def random_paper(self, collection: str | None = None) -> Paper:
        slug = None
        if collection:
            info = await self.store.collection_by_name_or_slug(collection)
            if info is None:
                known = [entry.name for entry in await self.store.collections()]
                raise CollectionNotFound(collection, known)
            slug = info.slug
        paper = await self.store.random_paper(slug)
        if paper is None:
            raise PaperbotError("No papers are loaded yet. Ingest a paper list first.")
        return paper

    async def collections(self) -> list[CollectionInfo]:
        return await self.store.collections()

    async def suggest_papers(self, text: str, limit: int = 25) -> list[tuple[str, str]]:
        """Autocomplete: ids and label words by prefix first, then full-text matches."""
        options = replace(self.options, max_results=limit, proximity_weight=0.0)
        return await asyncio.to_thread(_suggest, self._corpus, text[:100], limit, options)

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
            database_bytes=await self.store.database_bytes(),
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
        """Ingest files and folders; each file is atomic; the index is rebuilt once at the end."""
        files = await asyncio.to_thread(find_paper_files, list(paths))
        report = IngestReport()
        async with self._ingest_lock:
            for number, path in enumerate(files, start=1):
                if progress:
                    progress(f"[{number}/{len(files)}] {path}")
                try:
                    parsed = await asyncio.to_thread(read_paper_file, path, collection=collection)
                except PaperbotError as error:
                    report = report.merge(IngestReport(errors=(str(error),)))
                    continue
                try:
                    report = report.merge(await self._store_parsed(parsed, str(path)))
                except StoreError as error:
                    # Disk full or read-only: later files would fail alike. Files stored
                    # before this one stay, and the refresh below makes them searchable now.
                    report = report.merge(IngestReport(errors=(f"{path}: {error}",)))
                    break
                if progress and report.errors and report.errors[-1].startswith(str(path)):
                    progress(report.errors[-1])
            if report.files_read:
                await self._refresh()
        return report

    async def ingest_bytes(
        self, name: str, data: bytes, *, collection: str | None = None
    ) -> IngestReport:
        """Ingest an uploaded list; raises ListFormatError (with file and line) if it is bad."""
        parsed = await asyncio.to_thread(read_paper_bytes, name, data, collection=collection)
        async with self._ingest_lock:
            report = await self._store_parsed(parsed, f"upload:{name}")
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

    async def _store_parsed(self, parsed: ParsedList, origin: str) -> IngestReport:
        if await self.store.file_ingested(parsed.sha256):
            return IngestReport(files_skipped=1, notes=(f"{origin}: already ingested",))
        prepared = await asyncio.to_thread(prepare_papers, parsed)
        result = await self.store.add_file(
            path=origin, sha256=parsed.sha256, collection=parsed.collection, papers=prepared
        )
        if parsed.collection_from_header and result.collection == result.slug != parsed.collection:
            # A JSONL file named the collection after itself ("icml2024"); a list header
            # ("ICML 2024 论文列表") is the better display name.
            await self.store.rename_collection(result.slug, parsed.collection)
        return IngestReport(
            files_read=1,
            papers_added=result.added,
            papers_skipped=result.skipped,
            collections=(
                parsed.collection if parsed.collection_from_header else result.collection,
            ),
            notes=tuple(parsed.notes),
        )

    # -- reading lists and metadata ------------------------------------------------------------

    async def save_paper(self, user_id: int, paper_id: str) -> tuple[Paper, bool]:
        paper = await self.paper(paper_id)
        return paper, await self.store.save(user_id, paper.id)

    async def unsave_paper(self, user_id: int, paper_id: str) -> bool:
        wanted = lookup_key(paper_id)
        return await self.store.unsave(user_id, wanted)

    async def saved_papers(self, user_id: int) -> list[Paper]:
        return await self.store.saved(user_id)

    async def get_meta(self, key: str) -> str | None:
        return await self.store.get_meta(key)

    async def set_meta(self, key: str, value: str) -> None:
        await self.store.set_meta(key, value)


def _suggest(corpus: Corpus, text: str, limit: int, options: RankOptions) -> list[tuple[str, str]]:
    if corpus.labels_ready:
        found = corpus.labels.suggest(text, limit)
    else:
        # Still building after a start or an ingest: exact ids now, prefixes a moment later.
        doc = corpus.doc_of_paper.get(paper_key(text) or "")
        found = [] if doc is None else [corpus.label_entries[doc]]
    if len(found) >= limit or not text.strip():
        return found or corpus.label_entries[:limit]
    ranking = rank(corpus, ParsedQuery(text=text), options, analysis.analyze)
    seen = {paper_id for paper_id, _ in found}
    for doc in ranking.docs:
        entry = corpus.label_entries[doc]
        if entry[0] not in seen:
            found.append(entry)
    return found[:limit]


def _assemble_corpus(
    index: BM25Index,
    rows: Sequence[Any],
    labels: Sequence[tuple[str, str]],
    collections: Sequence[CollectionInfo],
    acronyms: AcronymTable,
    generation: int,
) -> Corpus:
    paper_of_doc = [row.paper_id for row in rows]
    masks: dict[str, BoolArray] = {
        info.slug: np.zeros(index.size, dtype=np.bool_) for info in collections
    }
    for doc, row in enumerate(rows):
        for slug in row.slugs:
            if slug in masks:
                masks[slug][doc] = True
    names = {info.slug: info.name for info in collections}
    label_of = dict(labels)
    return Corpus(
        index=index,
        collections={slug: (names[slug], mask) for slug, mask in masks.items()},
        acronyms=acronyms,
        label_entries=[(paper_id, label_of.get(paper_id, paper_id)) for paper_id in paper_of_doc],
        doc_of_paper={paper_id: doc for doc, paper_id in enumerate(paper_of_doc)},
        generation=generation,
        paper_of_doc=paper_of_doc,
    )
