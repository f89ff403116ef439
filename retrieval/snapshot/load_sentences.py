"""The sentence table of a corpus: the saved (or previous) table for the documents it still
describes, completed for the rest off the answer path, and saved beside the index.

Keys only grow (an ingest appends papers) and a paper's abstract and terms never change under
one analyzer version, so a table stays right for every document whose key it lists, whatever
the corpus generation: a saved table is cut to the longest prefix of keys it shares with the
index and only the documents after it are analysed. A small ingest therefore analyses only its
own papers (in the process that loads the new corpus first, usually the one that ingested, and
saved for the others); a database without a table (made before the table existed, or after an
analyzer change) is analysed once, in chunks, by a process pool when large (all cores in a
one-shot command such as `paperbot ingest`, all but one in a serving process), while answers are
made from the abstracts as before. Nothing is analysed on the way to the first answer. A build
cancelled by closing is lost (the next open starts again from the saved table), and while one
runs the parent holds the new documents' arrays twice (chunks, then joined) until they are saved
and mapped again: about 1.5 GB for a million papers.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from retrieval import text as analysis
from retrieval.errors import StoreError
from retrieval.snapshot.matrix import BM25Index
from retrieval.snapshot.sentence_records import SentenceRecord, sentence_records
from retrieval.snapshot.sentences import SentenceTable
from retrieval.stores.protocol import PaperStore

log = logging.getLogger(__name__)

CHUNK = 2_000  # documents per store read and per worker task
# From this many documents to analyse, a process pool does it.
POOL_FROM = 20_000


def pool_workers(*, serving: bool) -> int:
    """Worker processes for a large build: all cores for a one-shot command, all but one while
    the process also answers questions."""
    cores = os.cpu_count() or 2
    return max(1, cores - 1) if serving else cores


class CorpusSentences:
    """The sentence table of one corpus snapshot. It starts as whatever was saved and is
    replaced (one assignment) by a complete table once built; answers are the same with either,
    only faster with more documents covered."""

    def __init__(self, table: SentenceTable) -> None:
        self.table = table


class SentenceCompletion:
    """Completes snapshots' sentence tables one at a time, each from the most complete table
    this process has (a snapshot installed during a long build continues from its result)."""

    def __init__(self, store: PaperStore, index_dir: Path, *, workers: int) -> None:
        self._store = store
        self._index_dir = index_dir
        self._workers = workers
        self._lock = asyncio.Lock()
        self._latest: SentenceTable | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, sentences: CorpusSentences, index: BM25Index) -> None:
        """Complete `sentences` in the background."""
        task = asyncio.ensure_future(self.complete(sentences, index))
        self._tasks.add(task)
        task.add_done_callback(self._done)

    async def complete(self, sentences: CorpusSentences, index: BM25Index) -> None:
        async with self._lock:
            table = usable_prefix(index, [sentences.table, self._latest])
            table = await completed_sentences(
                self._store, index, table, self._index_dir, self._workers
            )
            self._latest = table
            if table.size > sentences.table.size:
                sentences.table = table

    async def close(self) -> None:
        """Stop a build in progress (what was analysed is lost; the next open starts over from
        the saved table)."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            # Excerpts still work from the abstracts; the next snapshot tries again.
            log.warning("sentence table not completed: %s", task.exception())


def sentences_path(index_dir: Path) -> Path:
    """The saved sentence table's folder inside `PAPERBOT_INDEX_DIR`, beside the index's."""
    return index_dir / "sentences"


def _stamp() -> dict[str, Any]:
    return {"analyzer": analysis.ANALYZER_VERSION}


def usable_prefix(index: BM25Index, candidates: Sequence[SentenceTable | None]) -> SentenceTable:
    """The candidate covering the most documents of `index`, cut to the keys it shares with
    `index` from the first document on; the empty table if none shares any."""
    best = SentenceTable.empty()
    for table in candidates:
        if table is None:
            continue
        size = min(table.size, index.size)
        same = np.asarray(table.keys[:size]) == np.asarray(index.keys[:size])
        shared = size if same.all() else int(np.argmin(same))
        if shared > best.size:
            best = table if shared == table.size else table.prefix(shared)
    return best


def saved_sentences(
    index_dir: Path, index: BM25Index, previous: SentenceTable | None
) -> SentenceTable:
    """What of the saved table, or of `previous` (the corpus this one replaces), fits `index`."""
    saved = SentenceTable.load(sentences_path(index_dir), _stamp())
    return usable_prefix(index, [previous, saved])


async def completed_sentences(
    store: PaperStore, index: BM25Index, table: SentenceTable, index_dir: Path, workers: int = 1
) -> SentenceTable:
    """`table` extended to every document of `index`, saved and mapped again; `table` itself
    when it already covers them or the store no longer holds a paper to analyse."""
    missing = index.size - table.size
    if missing <= 0:
        return table
    vocabulary = np.asarray(index.terms, dtype=object)
    parts = [table]
    if missing >= POOL_FROM:
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        try:
            added = await _analysed(store, index, vocabulary, table.size, pool, 2 * workers)
        finally:
            # Not waiting: a cancelled build (the process closing) must not block the loop.
            pool.shutdown(wait=False, cancel_futures=True)
    else:
        added = await _analysed(store, index, vocabulary, table.size, None, 1)
    if not added:
        return table
    parts += added
    log.info("sentence table: %d documents analysed", sum(part.size for part in added))
    joined = await asyncio.to_thread(SentenceTable.joined, parts)
    path = sentences_path(index_dir)
    saving = asyncio.ensure_future(asyncio.to_thread(joined.save, path, _stamp()))
    try:
        await asyncio.shield(saving)
    except asyncio.CancelledError:
        # Closing: the thread writing the files cannot be stopped, so the build ends only once
        # it has, and no file appears in the index folder after the engine closed (a caller may
        # delete that folder next, as `paperbot eval` does with its temporary one).
        await asyncio.gather(saving, return_exceptions=True)
        raise
    except OSError as error:
        log.warning("could not save the sentence table to %s (%s)", path, error)
        return joined
    # The mapped copy: its pages are shared and dropped by the kernel when memory is short.
    mapped = await asyncio.to_thread(SentenceTable.load, path, _stamp())
    return mapped if mapped is not None and mapped.size == joined.size else joined


async def _analysed(
    store: PaperStore,
    index: BM25Index,
    vocabulary: np.ndarray,
    start: int,
    pool: Executor | None,
    in_flight: int,
) -> list[SentenceTable]:
    """Tables of documents `start`.. of `index`, chunk by chunk, up to the first paper the store
    no longer holds (a later corpus will take it from there)."""
    loop = asyncio.get_running_loop()
    pending: list[tuple[list[int], asyncio.Future[list[SentenceRecord]]]] = []
    tables: list[SentenceTable] = []

    async def drain_one() -> None:
        keys, future = pending.pop(0)
        tables.append(SentenceTable.build(keys, await future))

    for low in range(start, index.size, CHUNK):
        high = min(low + CHUNK, index.size)
        keys = index.keys[low:high].tolist()
        try:
            abstracts = await store.abstracts_by_key(keys)
        except StoreError as error:
            log.warning("sentence table: could not read abstracts (%s); will retry", error)
            break
        if len(abstracts) != len(keys):
            break
        papers = [
            (abstracts[key], _document(index, vocabulary, doc))
            for doc, key in zip(range(low, high), keys, strict=True)
        ]
        future: asyncio.Future[list[SentenceRecord]]
        if pool is None:
            future = asyncio.ensure_future(asyncio.to_thread(sentence_records, papers))
        else:
            future = asyncio.wrap_future(pool.submit(sentence_records, papers), loop=loop)
        pending.append((keys, future))
        if len(pending) >= in_flight:
            await drain_one()
    while pending:
        await drain_one()
    return tables


def _document(index: BM25Index, vocabulary: np.ndarray, doc: int) -> list[str]:
    """Document `doc`'s index tokens as terms."""
    start, end = index.doc_start[doc : doc + 2].tolist()
    found: list[str] = vocabulary[index.forward[start:end]].tolist()
    return found
