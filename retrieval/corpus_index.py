"""The BM25 index of the store's current papers: the saved one, an earlier one plus the papers
added since, or a full rebuild, in that order of preference.

A full rebuild re-reads and re-splits every stored paper's terms (about ten seconds at 100k
papers), so after an ingest the index is extended instead: the store hands out keys in ascending
order, so an index whose keys are the first keys of the store holds exactly those papers, and
only the rest need reading (`retrieval.index_append`, equal to a fresh build). Whatever is not
the saved index is saved, stamped with the generation and analyzer version, for the next process.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from retrieval import index_files
from retrieval import text as analysis
from retrieval.index import BM25Index, BM25Params
from retrieval.index_append import append_documents
from retrieval.stores.protocol import IndexRow, Store

log = logging.getLogger(__name__)


def index_path(index_dir: Path) -> Path:
    """The saved index's own folder (memory-mapped arrays) inside `PAPERBOT_INDEX_DIR`."""
    return index_dir / "bm25"


async def current_index(
    store: Store,
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
        rows = await store.index_rows()
        # A generator: one paper's term list at a time, not all of them (gigabytes at 1M).
        documents = (row.terms.split() for row in rows)
        keys = [row.key for row in rows]
        index = await asyncio.to_thread(BM25Index.build, documents, keys, params)
    try:
        await asyncio.to_thread(_save, index, path, stamp)
    except OSError as error:
        log.warning("could not save the index to %s (%s); it will be rebuilt", path, error)
    return index, rows


async def _extended(
    store: Store,
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
    fresh = rows[base.size :]
    if not fresh:
        return base  # a change that left the indexed text alone (e.g. a membership)
    after = int(base.keys[-1]) if base.size else 0
    # Papers committed after `rows` was read are left for the next refresh, so the index and
    # `rows` (collections, ids) describe the same papers.
    added = (await store.index_rows(after_key=after))[: len(fresh)]
    if [row.key for row in added] != [row.key for row in fresh]:
        return None
    documents = (row.terms.split() for row in added)
    keys = [row.key for row in added]
    return await asyncio.to_thread(append_documents, base, documents, keys)


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
