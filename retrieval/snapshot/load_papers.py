"""The paper table of the store's current corpus and its autocomplete: the saved ones when they
carry the store's current stamp, else built (the table from the store's rows and labels, the
autocomplete from the table) and saved for the next open.

The stamp is the corpus generation (bumped by every committed ingest or membership change), the
analyzer version (as the index's) and the labeler version: re-deriving labels after a labeler
change rewrites every label without bumping the generation, so the labeler version is part of
the stamp. Collection renames change only names, which are read from the store at every open and
not kept in the table. Ids and keys never change once stored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from retrieval import text as analysis
from retrieval.snapshot.autocomplete import Autocomplete
from retrieval.snapshot.autocomplete_build import build_autocomplete
from retrieval.snapshot.load_index import index_path
from retrieval.snapshot.matrix import BM25Index, BM25Params
from retrieval.snapshot.papers import PaperTable
from retrieval.stores.protocol import IndexRow, PaperStore

log = logging.getLogger(__name__)


def papers_path(index_dir: Path) -> Path:
    """The saved paper table's folder inside `PAPERBOT_INDEX_DIR`, beside the index's."""
    return index_dir / "papers"


def autocomplete_path(index_dir: Path) -> Path:
    """The saved autocomplete's folder inside `PAPERBOT_INDEX_DIR`, beside the paper table's."""
    return index_dir / "autocomplete"


async def papers_stamp(store: PaperStore, generation: int) -> dict[str, Any]:
    """What a saved paper table must have been written for to describe the store now."""
    return {
        "generation": generation,
        "analyzer": analysis.ANALYZER_VERSION,
        "labeler": await store.derived_version("labeler"),
    }


def saved_corpus(
    index_dir: Path, params: BM25Params, stamp: dict[str, Any]
) -> tuple[BM25Index, PaperTable] | None:
    """The saved index and paper table, mapped, when both were written for `stamp`'s generation
    and hold the same documents; None otherwise (the caller takes the slow path)."""
    index_stamp = {"generation": stamp["generation"], "analyzer": stamp["analyzer"]}
    papers = PaperTable.load(papers_path(index_dir), stamp)
    if papers is None:
        return None
    index = BM25Index.load(index_path(index_dir), index_stamp, params)
    if index is None or not np.array_equal(np.asarray(index.keys), papers.keys):
        return None
    return index, papers


async def built_papers(
    store: PaperStore, index_dir: Path, stamp: dict[str, Any], rows: Sequence[IndexRow]
) -> PaperTable:
    """The table of the papers in `rows` (the documents of the index, in order), with the
    store's labels (a paper without one is labelled by its id), saved under `stamp`."""
    labels = await store.paper_labels()
    papers = await asyncio.to_thread(_table, rows, labels)
    try:
        await asyncio.to_thread(papers.save, papers_path(index_dir), stamp)
    except OSError as error:
        path = papers_path(index_dir)
        log.warning("could not save the paper table to %s (%s); it will be rebuilt", path, error)
    return papers


def _table(rows: Sequence[IndexRow], labels: Sequence[tuple[str, str]]) -> PaperTable:
    label_of = dict(labels)
    ids = [row.paper_id for row in rows]
    slugs = sorted({slug for row in rows for slug in row.slugs})
    return PaperTable.build(
        ids,
        [label_of.get(paper_id, paper_id) for paper_id in ids],
        [row.key for row in rows],
        [row.slugs for row in rows],
        slugs,
    )


def corpus_autocomplete(index_dir: Path, stamp: dict[str, Any], papers: PaperTable) -> Autocomplete:
    """The autocomplete of `papers`: the saved one when written for `stamp` and these documents,
    else built from the table and saved (seconds at a million papers; run it in a thread).

    What was built is returned mapped from the saved files, so the process that built it shares
    its pages with every other process rather than keeping a private copy.
    """
    path = autocomplete_path(index_dir)
    saved = Autocomplete.load(path, stamp, papers)
    if saved is not None:
        return saved
    built = build_autocomplete(papers)
    try:
        built.save(path, stamp)
    except OSError as error:
        log.warning("could not save autocomplete to %s (%s); it will be rebuilt", path, error)
        return built
    return Autocomplete.load(path, stamp, papers) or built
