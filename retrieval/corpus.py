"""The in-memory corpus: one immutable snapshot of the index, collections, acronyms and labels.

`load_corpus` assembles a snapshot from the store: when the saved index and paper table carry
the store's current stamp it maps them (no per-paper Python objects); otherwise its index comes
from `corpus_index` (the saved one, or the previous one extended by the papers added since) and
its paper table from `corpus_papers`. The engine swaps a new snapshot in with one assignment, so
a question sees the old corpus or the new one, never a mix.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from retrieval import acronym_credit, reclaim, topk
from retrieval import text as analysis
from retrieval.acronyms import AcronymTable
from retrieval.autocomplete import LabelIndex
from retrieval.corpus_index import current_index
from retrieval.corpus_papers import built_papers, papers_stamp, saved_corpus
from retrieval.dense_bits import dense_bits
from retrieval.errors import StoreError
from retrieval.index import BM25Index, BM25Params, BoolArray
from retrieval.models import CollectionInfo
from retrieval.paper_table import PaperTable
from retrieval.stores.protocol import CorpusNotifier, Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Corpus:
    """An immutable snapshot: the engine swaps in a new one after ingest, never edits this one.

    Documents are numbered 0..size-1 in store-key order; `index.keys[doc]` is the store key,
    `papers` the id and label of each document (`papers.doc_of(id)` the other way).
    """

    index: BM25Index
    collections: dict[str, tuple[str, BoolArray]]
    acronyms: AcronymTable
    papers: PaperTable
    generation: int

    @cached_property
    def labels(self) -> LabelIndex:
        """Autocomplete over the papers' (id, label) entries, built on first use.

        Seconds at 100k papers, so the engine builds it in the background after a corpus is
        installed, and autocomplete does without it until then (`labels_ready`).
        """
        return LabelIndex(self.papers.entries())

    @property
    def labels_ready(self) -> bool:
        return "labels" in self.__dict__

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

    def keys_of(self, docs: Sequence[int]) -> list[int]:
        """Store keys of document numbers, for fetching the papers themselves."""
        return [int(self.index.keys[doc]) for doc in docs]


async def load_corpus(
    store: Store, params: BM25Params, index_dir: Path, previous: BM25Index | None = None
) -> Corpus:
    """The store's current corpus: the saved index and paper table when both carry the store's
    current stamp (mapped, nothing per paper is read); otherwise the index is the saved one,
    `previous` (or the saved index) extended by the papers added since, or rebuilt, and the
    paper table is built from the store and saved for the next open."""
    generation = await store.generation()
    stamp = await papers_stamp(store, generation)
    saved = await asyncio.to_thread(saved_corpus, index_dir, params, stamp)
    if saved is not None:
        index, papers = saved
    else:
        rows = await store.index_rows(with_terms=False)
        index, indexed = await current_index(store, params, index_dir, generation, rows, previous)
        papers = await built_papers(store, index_dir, stamp, indexed)
    acronyms = await asyncio.to_thread(
        AcronymTable.build, await store.acronym_table(), analysis.analyze
    )
    collections = await store.collections()
    return assemble_corpus(index, papers, collections, acronyms, generation)


def assemble_corpus(
    index: BM25Index,
    papers: PaperTable,
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
        generation=generation,
    )


class LiveCorpus:
    """The current snapshot, replaced whole after a change (one assignment, so a question sees
    the old corpus or the new one, never a mix); autocomplete warms in a worker thread."""

    def __init__(
        self,
        store: Store,
        params: BM25Params,
        index_dir: Path,
        corpus: Corpus,
        *,
        warm: bool = True,
        credit_weight: float = 0.0,
    ) -> None:
        self._store = store
        # The acronym expansion weight questions rank with: their credit lists are built at it.
        self._credit_weight = credit_weight
        self._params = params
        self._index_dir = index_dir
        self._background: set[asyncio.Task[object]] = set()
        self._reclaiming: set[asyncio.Task[None]] = set()
        self._refreshing = asyncio.Lock()
        # A serving process warms each snapshot (kernel, autocomplete) in the background; a
        # one-shot command (`paperbot ingest`) would only wait for that work at close.
        self._warm_snapshots = warm
        self.current = corpus
        self._warm(corpus)

    @classmethod
    async def load(
        cls,
        store: Store,
        params: BM25Params,
        index_dir: Path,
        *,
        warm: bool = True,
        credit_weight: float = 0.0,
    ) -> LiveCorpus:
        # The top-k kernel needs no corpus: loading it overlaps the store reads and the mapping.
        kernel = asyncio.ensure_future(asyncio.to_thread(topk.warm)) if warm else None
        corpus = await load_corpus(store, params, index_dir)
        live = cls(store, params, index_dir, corpus, warm=warm, credit_weight=credit_weight)
        if kernel is not None:
            live._background.add(kernel)
            kernel.add_done_callback(live._background.discard)
        return live

    async def refresh(self) -> None:
        """Load the store's current corpus and make it the one questions see."""
        async with self._refreshing:
            await self._reload()

    async def _reload(self) -> None:
        # The current index is the base the new one extends (only new papers are read).
        corpus = await load_corpus(self._store, self._params, self._index_dir, self.current.index)
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
        await asyncio.gather(*self._background, *self._reclaiming, return_exceptions=True)

    def _reclaim(self, replaced: list[Corpus], current: Corpus) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(reclaim.release(replaced, current))
        self._reclaiming.add(task)
        task.add_done_callback(self._reclaiming.discard)

    def _warm(self, corpus: Corpus) -> None:
        if not self._warm_snapshots:
            return
        task: asyncio.Task[object] = asyncio.ensure_future(
            asyncio.to_thread(warm_up, corpus, self._credit_weight)
        )
        self._background.add(task)
        task.add_done_callback(self._background.discard)


def warm_up(corpus: Corpus, credit_weight: float = 0.0) -> None:
    """Off the answer path: load (or compile) the top-k kernel with one tiny search, build the
    term bitmaps top-k counts matches with and the acronym credit lists it reads (at the
    expansion weight `credit_weight`), then the autocomplete index, so the first question and
    the first keystroke are not the slow ones.

    The snapshot's objects (hundreds of thousands of ids, labels, autocomplete pairs) live
    until the next change. A full collection of the cyclic collector walks every tracked object
    while holding the GIL, which stalled the event loop for hundreds of milliseconds: the
    snapshot is frozen out of the collector's reach, and collection waits while the
    autocomplete index (over a million small tuples, none in a cycle) is built.
    """
    index = corpus.index
    _freeze()
    gc.disable()
    try:
        if index.size and len(index.terms):
            topk.search([index.postings_list(0, 1.0)], index.size, None, 1)
        prepare_ranking(corpus, credit_weight)
        _ = corpus.labels
    finally:
        _freeze()
        gc.enable()


def prepare_ranking(corpus: Corpus, credit_weight: float) -> None:
    """What questions read and would otherwise compute: the term bitmaps top-k counts matches
    with, and the acronym credit lists at the expansion weight `credit_weight`."""
    if corpus.index.size:
        dense_bits(corpus.index)
        acronym_credit.prepare(corpus.index, corpus.acronyms, credit_weight)


def _freeze() -> None:
    # No collection first: with collection paused, the young generation holds the whole new
    # autocomplete index, and walking it stalled the loop for 650 ms. Cyclic garbage alive at
    # this instant is frozen with the rest and never freed: a leak bounded by what is garbage
    # at one instant, once per corpus change (not measured).
    gc.freeze()
