"""The BM25 index of the store's current papers: the saved one, an earlier one plus the papers
added since, or a full rebuild, in that order of preference.

A full rebuild re-reads and re-splits every stored paper's terms (about ten seconds at 100k
papers), so after an ingest the index is extended instead: the store hands out keys in ascending
order, so an index whose keys are the first keys of the store holds exactly those papers, and
only the rest need reading (the earlier index is the build's first chunk, equal to a fresh
build). Either way the terms are read and added TERMS_CHUNK papers at a time
(`snapshot.matrix_build`), so memory stays close to the index's own size. Whatever is not the
saved index is saved, stamped with the generation and analyzer version, for the next process.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from retrieval import text as analysis
from retrieval.errors import StoreError
from retrieval.snapshot import files as index_files
from retrieval.snapshot.matrix import BM25Index, BM25Params
from retrieval.snapshot.matrix_build import IndexBuilder
from retrieval.stores.protocol import IndexRow, PaperStore

log = logging.getLogger(__name__)

# Papers whose stored terms are read and numbered at a time: their strings and token lists
# (~10 KB a paper while numbered) stay ~200 MB however big the corpus; the built index is the
# same for any chunk size.
TERMS_CHUNK = 20_000


def index_path(index_dir: Path) -> Path:
    """The saved index's own folder (memory-mapped arrays) inside `PAPERBOT_INDEX_DIR`."""
    return index_dir / "bm25"


async def current_index(
    store: PaperStore,
    params: BM25Params,
    index_dir: Path,
    generation: int,
    rows: Sequence[IndexRow],
    previous: BM25Index | None = None,
) -> tuple[BM25Index, Sequence[IndexRow]]:
    """The index of the papers in `rows` (read without terms) and the rows it was built from.

    `previous` is an index this process already holds (the corpus before an ingest), the
    cheapest base to extend; otherwise the saved index of an earlier generation is.
    """
    stamp = {"generation": generation, "analyzer": analysis.ANALYZER_VERSION}
    path = index_path(index_dir)
    index = await asyncio.to_thread(BM25Index.load, path, stamp, params)
    if index is not None and _holds_prefix(index, rows, whole=True):
        return index, rows
    index = await _extended(store, params, path, rows, previous)
    if index is None:
        index = await _built(store, params, None, rows)
    if index is None:
        # The stored papers are not those of `rows`: papers are only ever added, so this is a
        # store changed from outside paperbot between the two reads. Once more, from new rows.
        rows = await store.index_rows(with_terms=False)
        index = await _built(store, params, None, rows)
    if index is None:
        raise StoreError(
            "the database's papers changed while the index was being built; "
            "make sure only paperbot writes to it, then start again"
        )
    try:
        await asyncio.to_thread(_save, index, path, stamp)
    except OSError as error:
        log.warning("could not save the index to %s (%s); it will be rebuilt", path, error)
        return index, rows
    # The saved copy, mapped, replaces the built one: its pages are the files' (shared with
    # every process that maps them, read when used), not ~1.6 GB of this process's memory at
    # a million papers for as long as the snapshot lives.
    mapped = await asyncio.to_thread(BM25Index.load, path, stamp, params)
    return (index if mapped is None else mapped), rows


async def _extended(
    store: PaperStore,
    params: BM25Params,
    path: Path,
    rows: Sequence[IndexRow],
    previous: BM25Index | None,
) -> BM25Index | None:
    """An earlier index plus the papers stored after it; None when no earlier index fits."""
    if await store.derived_version("analyzer") != str(analysis.ANALYZER_VERSION):
        return None  # stored terms from another analyzer: the old postings would not match
    base = previous if previous is not None and _holds_prefix(previous, rows) else None
    if base is None:
        saved = await asyncio.to_thread(_saved_index, path, params)
        base = saved if saved is not None and _holds_prefix(saved, rows) else None
    if base is None:
        return None
    if base.size == len(rows):
        return base  # a change that left the indexed text alone (e.g. a membership)
    return await _built(store, params, base, rows[base.size :])


async def _built(
    store: PaperStore, params: BM25Params, base: BM25Index | None, fresh: Sequence[IndexRow]
) -> BM25Index | None:
    """`base` (or nothing) plus the stored terms of the papers `fresh`, read and added
    TERMS_CHUNK papers at a time; None if the papers stored after `base` are not `fresh`."""
    builder = IndexBuilder(base)
    after = int(base.keys[-1]) if base is not None and base.size else 0
    done = 0
    while done < len(fresh):
        # Papers committed after `fresh` was read are left for the next refresh, so the index
        # and the rows (collections, ids) describe the same papers.
        limit = min(TERMS_CHUNK, len(fresh) - done)
        chunk = await store.index_terms(after_key=after, limit=limit)
        keys = [key for key, _ in chunk]
        if not keys or keys != [row.key for row in fresh[done : done + len(keys)]]:
            return None
        await asyncio.to_thread(builder.add, (terms.split() for _, terms in chunk), keys)
        del chunk
        after, done = keys[-1], done + len(keys)
    return await asyncio.to_thread(_finished, builder, params)


def _finished(builder: IndexBuilder, params: BM25Params) -> BM25Index:
    return BM25Index.from_arrays(builder.arrays(), params)


def _holds_prefix(index: BM25Index, rows: Sequence[IndexRow], *, whole: bool = False) -> bool:
    """Whether `index` holds exactly the first papers of `rows` (all of them if `whole`)."""
    if index.size > len(rows) or (whole and index.size != len(rows)):
        return False
    keys = np.fromiter((row.key for row in rows[: index.size]), dtype=np.int64, count=index.size)
    return bool(np.array_equal(np.asarray(index.keys), keys))


def _saved_index(path: Path, params: BM25Params) -> BM25Index | None:
    """The saved index whatever corpus generation it was written for (same analyzer, same
    parameters), or None."""
    stamp = index_files.saved_stamp(path)
    if not isinstance(stamp, dict) or stamp.get("analyzer") != analysis.ANALYZER_VERSION:
        return None
    generation = stamp.get("generation")
    if not isinstance(generation, int):
        return None
    return BM25Index.load(
        path, {"generation": generation, "analyzer": analysis.ANALYZER_VERSION}, params
    )


def _save(index: BM25Index, path: Path, stamp: dict[str, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    index.save(path, dict(stamp))
