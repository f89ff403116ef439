"""The corpus index after an ingest, on both backends: extended by the new papers only (reading
no other paper's terms), equal to a fresh build, saved for the next process, rebuilt when the
earlier index does not fit the store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from retrieval import text as analysis
from retrieval.corpus import load_corpus
from retrieval.snapshot import files as index_files
from retrieval.snapshot import load_index as corpus_index
from retrieval.snapshot.load_index import index_path
from retrieval.snapshot.matrix import BM25Index
from retrieval.stores.store import Store
from tests.retrieval.oracle import RANK_BM25_DEFAULTS
from tests.retrieval.stores.papers import add, papers
from tests.retrieval.test_index_append import assert_same_index

P = RANK_BM25_DEFAULTS


class TermReads:
    """Records where each read of stored terms started (the papers after that key)."""

    def __init__(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.after_keys: list[int] = []
        original = store.index_terms

        async def index_terms(*, after_key: int, limit: int) -> list[tuple[int, str]]:
            self.after_keys.append(after_key)
            return await original(after_key=after_key, limit=limit)

        monkeypatch.setattr(store, "index_terms", index_terms)


async def fresh_build(store: Store) -> BM25Index:
    rows = await store.index_rows()
    return BM25Index.build((row.terms.split() for row in rows), [row.key for row in rows], P)


async def current_terms(store: Store) -> None:
    """Record that the stored terms are this analyzer's, as `Engine.open` does."""
    await store.replace_derived("analyzer", str(analysis.ANALYZER_VERSION))


async def test_an_ingest_reads_only_the_new_papers_and_equals_a_fresh_build(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await current_terms(store)
    await add(store, "a", "ICML 2026", papers(1, 2, 3))
    before = await load_corpus(store, P, tmp_path)
    last = int(before.index.keys[-1])
    await add(store, "b", "NeurIPS 2025", papers(4, 5))
    reads = TermReads(store, monkeypatch)
    after = await load_corpus(store, P, tmp_path, before.index)
    assert reads.after_keys == [last]  # no other paper's terms were read
    assert_same_index(after.index, await fresh_build(store))
    assert after.papers.paper_ids() == [f"icml2026-{n}" for n in (1, 2, 3)] + [
        "neurips2025-1",
        "neurips2025-2",
    ]
    assert after.collections["neurips2025"][1].tolist() == [False] * 3 + [True] * 2
    # Saved for the next process, stamped with the new generation: it maps it, reads no terms.
    reads.after_keys.clear()
    again = await load_corpus(store, P, tmp_path)
    assert reads.after_keys == []
    assert index_files.is_mapped(again.index.postings_docs)
    assert_same_index(again.index, after.index)


async def test_a_process_that_starts_after_an_ingest_extends_the_older_saved_index(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await current_terms(store)
    await add(store, "a", "ICML 2026", papers(1, 2))
    first = await load_corpus(store, P, tmp_path)
    await add(store, "b", "ICML 2026", papers(3))
    reads = TermReads(store, monkeypatch)
    later = await load_corpus(store, P, tmp_path)  # no index in memory: the saved one is older
    assert reads.after_keys == [int(first.index.keys[-1])]
    assert_same_index(later.index, await fresh_build(store))


async def test_a_membership_only_change_keeps_the_index(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await current_terms(store)
    await add(store, "a", "ICML 2026", papers(1, 2))
    before = await load_corpus(store, P, tmp_path)
    await add(store, "b", "Best of 2026", papers(2))  # the same paper, now also in a second list
    reads = TermReads(store, monkeypatch)
    after = await load_corpus(store, P, tmp_path, before.index)
    assert after.generation > before.generation
    assert reads.after_keys == []
    assert after.collections["bestof2026"][1].tolist() == [False, True]
    assert_same_index(after.index, await fresh_build(store))


@pytest.mark.parametrize("misfit", ["other keys", "more papers than the store", "other analyzer"])
async def test_an_earlier_index_that_does_not_fit_the_store_is_rebuilt(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, misfit: str
) -> None:
    await current_terms(store)
    await add(store, "a", "ICML 2026", papers(1, 2))
    before = await load_corpus(store, P, tmp_path)
    keys = before.index.keys
    previous: Any = before.index
    if misfit == "other keys":  # e.g. the index of another database
        previous = BM25Index.build([["paper"], ["paper"]], [int(keys[0]), int(keys[1]) + 99], P)
    elif misfit == "more papers than the store":
        previous = BM25Index.build([["paper"]] * 4, list(range(1, 5)), P)
    else:
        await store.replace_derived("analyzer", "an older analyzer")
    # Neither the one in memory nor the saved one may serve as the base.
    for stale in index_path(tmp_path).iterdir():
        stale.unlink()
    await add(store, "b", "ICML 2026", papers(3))
    reads = TermReads(store, monkeypatch)
    after = await load_corpus(store, P, tmp_path, previous)
    assert reads.after_keys == [0]  # every paper's terms: a full rebuild
    assert_same_index(after.index, await fresh_build(store))


@pytest.mark.parametrize("chunk", [1, 2, 3])
async def test_terms_are_read_a_chunk_at_a_time_and_the_index_is_the_same(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    await current_terms(store)
    await add(store, "a", "ICML 2026", papers(1, 2, 3))
    before = await load_corpus(store, P, tmp_path)
    await add(store, "b", "NeurIPS 2025", papers(4, 5, 6, 7))
    monkeypatch.setattr(corpus_index, "TERMS_CHUNK", chunk)
    reads = TermReads(store, monkeypatch)
    after = await load_corpus(store, P, tmp_path, before.index)
    keys = [int(key) for key in after.index.keys]
    # Each read starts after the last paper of the one before, from the first new paper on.
    assert reads.after_keys == keys[2:-1][::chunk]
    assert_same_index(after.index, await fresh_build(store))
    for stale in index_path(tmp_path).iterdir():
        stale.unlink()
    reads.after_keys.clear()
    rebuilt = await load_corpus(store, P, tmp_path)  # nothing to extend: a full rebuild
    assert reads.after_keys == [0, *keys[:-1][chunk - 1 :: chunk]]
    assert_same_index(rebuilt.index, after.index)
