"""The in-memory corpus: one immutable snapshot of the index, collections, acronyms, papers and
their autocomplete.

`load_corpus` assembles a snapshot from the store: when the saved index, paper table and
autocomplete carry the store's current stamp it maps them (no per-paper Python objects);
otherwise its index comes from `snapshot.load_index` (the saved one, or the previous one
extended by the papers added since) and its paper table and autocomplete from
`snapshot.load_papers`. The engine swaps a new snapshot in with one assignment, so a question
sees the old corpus or the new one, never a mix. Its sentence table (excerpts without
re-analysis, `snapshot.load_sentences`) starts as the saved one and is completed in the
background.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from retrieval import text as analysis
from retrieval.acronyms import AcronymTable
from retrieval.errors import StoreError
from retrieval.models import CollectionInfo
from retrieval.snapshot import reclaim
from retrieval.snapshot.autocomplete import Autocomplete
from retrieval.snapshot.load_index import current_index
from retrieval.snapshot.load_papers import (
    built_papers,
    corpus_autocomplete,
    papers_stamp,
    saved_corpus,
)
from retrieval.snapshot.load_sentences import (
    CorpusSentences,
    SentenceCompletion,
    pool_workers,
    saved_sentences,
)
from retrieval.snapshot.matrix import BM25Index, BM25Params, BoolArray
from retrieval.snapshot.papers import PaperTable
from retrieval.snapshot.sentences import SentenceTable
from retrieval.stores.protocol import CorpusNotifier, PaperStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Corpus:
    """An immutable snapshot: the engine swaps in a new one after ingest, never edits this one.

    Documents are numbered 0..size-1 in store-key order; `index.keys[doc]` is the store key,
    `papers` the id and label of each document (`papers.doc_of(id)` the other way),
    `autocomplete` the prefix lookups over their ids and label words.
    """

    index: BM25Index
    collections: dict[str, tuple[str, BoolArray]]
    acronyms: AcronymTable
    papers: PaperTable
    autocomplete: Autocomplete
    generation: int
    sentences: CorpusSentences = field(
        default_factory=lambda: CorpusSentences(SentenceTable.empty())
    )

    @cached_property
    def terms_by_initial(self) -> dict[str, list[str]]:
        """Vocabulary grouped by first character, frequent terms first, for did-you-mean."""
        grouped: dict[str, list[str]] = {}
        order = np.argsort(-np.diff(self.index.offsets), kind="stable")
        for number in order.tolist():
            term = self.index.terms[number]
            bucket = grouped.setdefault(term[:1], [])
            if len(bucket) < 20_000:
                bucket.append(term)
        return grouped

    @cached_property
    def numbers_by_slug(self) -> dict[str, list[int]]:
        """The numbers in use in each collection's ids: 'icml2026-7' -> numbers_by_slug['icml2026']
        holds 7. For suggesting real ids when a typed one does not exist."""
        found: dict[str, list[int]] = {}
        for paper_id in self.papers.paper_ids():
            slug, _, number = paper_id.rpartition("-")
            if number.isdigit():
                found.setdefault(slug, []).append(int(number))
        return found

    @cached_property
    def collection_infos(self) -> list[CollectionInfo]:
        """The loaded collections as the shared resolver (`collection_names`) reads them.
        Counted once per snapshot: chat reads them on every message."""
        return [
            CollectionInfo(name, slug, int(mask.sum()), 0)
            for slug, (name, mask) in self.collections.items()
        ]

    @cached_property
    def collection_name_terms(self) -> frozenset[str]:
        """Index terms of the loaded collections' names and slugs ("icml", "2026"): words that
        name a list, which no abstract is expected to use. Once per snapshot."""
        return frozenset(
            term
            for slug, (name, _) in self.collections.items()
            for term in analysis.analyze(f"{name} {slug}")
        )

    def keys_of(self, docs: Sequence[int]) -> list[int]:
        """Store keys of document numbers, for fetching the papers themselves."""
        return [int(self.index.keys[doc]) for doc in docs]


async def load_corpus(
    store: PaperStore,
    params: BM25Params,
    index_dir: Path,
    previous: BM25Index | None = None,
    *,
    earlier_sentences: SentenceTable | None = None,
) -> Corpus:
    """The store's current corpus: the saved index and paper table when both carry the store's
    current stamp (mapped, nothing per paper is read); otherwise the index is the saved one,
    `previous` (or the saved index) extended by the papers added since, or rebuilt, and the
    paper table is built from the store and saved for the next open. The autocomplete is the
    saved one of this stamp, else built from the paper table and saved. The sentence table is
    what of the saved one (or of `earlier_sentences`) still fits: `LiveCorpus` completes it."""
    generation = await store.generation()
    stamp = await papers_stamp(store, generation)
    saved = await asyncio.to_thread(saved_corpus, index_dir, params, stamp)
    if saved is not None:
        index, papers = saved
    else:
        rows = await store.index_rows(with_terms=False)
        index, indexed = await current_index(store, params, index_dir, generation, rows, previous)
        papers = await built_papers(store, index_dir, stamp, indexed)
    autocomplete = await asyncio.to_thread(corpus_autocomplete, index_dir, stamp, papers)
    sentences = await asyncio.to_thread(saved_sentences, index_dir, index, earlier_sentences)
    acronyms = await asyncio.to_thread(
        AcronymTable.build,
        await store.acronym_table(),
        analysis.analyze,
        lambda term: len(index.postings(term)),
    )
    collections = await store.collections()
    corpus = assemble_corpus(index, papers, autocomplete, collections, acronyms, generation)
    corpus.sentences.table = sentences
    return corpus


def assemble_corpus(
    index: BM25Index,
    papers: PaperTable,
    autocomplete: Autocomplete,
    collections: Sequence[CollectionInfo],
    acronyms: AcronymTable,
    generation: int,
) -> Corpus:
    """A snapshot of these parts; each collection's mask comes from the paper table (names from
    the store, so a renamed collection shows its new name)."""
    return Corpus(
        index=index,
        collections={info.slug: (info.name, papers.mask(info.slug)) for info in collections},
        acronyms=acronyms,
        papers=papers,
        autocomplete=autocomplete,
        generation=generation,
    )


class LiveCorpus:
    """The current snapshot, replaced whole after a change (one assignment, so a question sees
    the old corpus or the new one, never a mix)."""

    def __init__(
        self,
        store: PaperStore,
        params: BM25Params,
        index_dir: Path,
        corpus: Corpus,
        *,
        warm: bool = True,
    ) -> None:
        self._store = store
        self._params = params
        self._index_dir = index_dir
        self._reclaiming: set[asyncio.Task[None]] = set()
        self._refreshing = asyncio.Lock()
        # A serving process completes each snapshot's sentence table in the background; a
        # one-shot command (`paperbot ingest`) completes it before returning instead.
        self._warm_snapshots = warm
        self._sentences = SentenceCompletion(store, index_dir, workers=pool_workers(serving=warm))
        self.current = corpus
        self._warm(corpus)

    @classmethod
    async def load(
        cls,
        store: PaperStore,
        params: BM25Params,
        index_dir: Path,
        *,
        warm: bool = True,
    ) -> LiveCorpus:
        corpus = await load_corpus(store, params, index_dir)
        return cls(store, params, index_dir, corpus, warm=warm)

    async def refresh(self) -> None:
        """Load the store's current corpus and make it the one questions see. A one-shot
        command (after its ingest) also completes the sentence table before returning, so the
        papers it added are analysed now, not at the next open of a serving process."""
        async with self._refreshing:
            await self._reload()
        if not self._warm_snapshots:
            await self._sentences.complete(self.current.sentences, self.current.index)

    async def _reload(self) -> None:
        # The current index is the base the new one extends (only new papers are read).
        current = self.current
        corpus = await load_corpus(
            self._store,
            self._params,
            self._index_dir,
            current.index,
            earlier_sentences=current.sentences.table,
        )
        # The old snapshot goes to `reclaim` rather than being freed here, on the loop.
        replaced = [self.current]
        self.current = corpus
        self._warm(corpus)
        self._reclaim(replaced, corpus)

    async def refresh_if_changed(self) -> bool:
        """Refresh when another process (or `paperbot ingest` in a terminal) changed the store.

        The whole corpus is reloaded (the index extended by the new papers, or rebuilt), so BM25
        statistics (N, average length, document frequencies) are always those of the whole
        store: a process that caught up ranks exactly as a freshly started one.
        """
        if await self._store.generation() == self.current.generation:
            return False
        async with self._refreshing:
            if await self._store.generation() == self.current.generation:
                return False  # another caller refreshed while this one waited
            await self._reload()
        return True

    async def catch_up(self) -> bool:
        """`refresh_if_changed` that never raises for a database that is briefly away: the
        next call tries again."""
        try:
            return await self.refresh_if_changed()
        except StoreError as error:
            log.warning("could not check for corpus changes: %s", error)
            return False

    async def follow(self, interval: float) -> None:
        """Run until cancelled: catch up when the store announces a change (PostgreSQL), and
        at least every `interval` seconds (every store; missed notifications are not replayed)."""
        if isinstance(self._store, CorpusNotifier):
            async for _ in self._store.corpus_generations(poll_seconds=interval):
                await self.catch_up()
        while True:
            await asyncio.sleep(interval)
            await self.catch_up()

    async def close(self) -> None:
        # Let a background build finish so no thread outlives the corpus it belongs to; freeing
        # replaced snapshots is only tidiness, and a closing engine frees everything anyway.
        for task in self._reclaiming:
            task.cancel()
        await self._sentences.close()
        await asyncio.gather(*self._reclaiming, return_exceptions=True)

    def _reclaim(self, replaced: list[Corpus], current: Corpus) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(reclaim.release(replaced, current))
        self._reclaiming.add(task)
        task.add_done_callback(self._reclaiming.discard)

    def _warm(self, corpus: Corpus) -> None:
        if self._warm_snapshots:
            self._sentences.start(corpus.sentences, corpus.index)
