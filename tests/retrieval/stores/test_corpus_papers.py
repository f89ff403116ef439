"""Opening a corpus from the saved index and paper table, on both backends: it reads nothing per
paper from the store, and ranks, suggests, finds papers by id and filters by collection exactly
as a corpus built the slow way; a stale stamp (ingest, re-derived labels) or a damaged table
takes the slow path and is rebuilt, never a crash."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from config.settings import Settings
from retrieval.corpus import Corpus, load_corpus
from retrieval.parameters import rank_options
from retrieval.questions import rank_question
from retrieval.snapshot import files as index_files
from retrieval.snapshot.load_papers import autocomplete_path, papers_path
from retrieval.stores.store import Store
from retrieval.suggestions import closest_ids, suggest_papers
from tests.retrieval.oracle import RANK_BM25_DEFAULTS
from tests.retrieval.stores.papers import add, new_paper, papers
from tests.retrieval.test_index_append import assert_same_index

P = RANK_BM25_DEFAULTS
OPTIONS = rank_options(Settings(_env_file=None))  # type: ignore[call-arg]
QUESTIONS = ["mixture of experts routing", "paper 3", "graph transformers", "paper 5 routing"]


class RowReads:
    """Counts the per-paper reads (index rows, labels) the corpus code asks the store for."""

    def __init__(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        for name in ("index_rows", "paper_labels"):
            original = getattr(store, name)
            monkeypatch.setattr(store, name, self._counting(original))

    def _counting(self, original: Any) -> Any:
        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return await original(*args, **kwargs)

        return counted


async def seeded(store: Store) -> None:
    await store.replace_derived("analyzer", "current")  # any version: only equality matters
    await add(store, "a", "ICML 2026", papers(1, 2, 3))
    other = [new_paper(n, f"Graph transformers über paper {n} routing.") for n in (4, 5)]
    await add(store, "b", "NeurIPS 2025", [*other, new_paper(2)])  # paper 2 joins a 2nd list
    await store.replace_derived("labeler", "1", labels=[])


def assert_same_answers(fast: Corpus, slow: Corpus) -> None:
    assert_same_index(fast.index, slow.index)
    assert fast.papers.entries() == slow.papers.entries()
    assert fast.generation == slow.generation
    assert {s: (n, m.tolist()) for s, (n, m) in fast.collections.items()} == {
        s: (n, m.tolist()) for s, (n, m) in slow.collections.items()
    }
    for question in QUESTIONS:
        for collection in (None, "NeurIPS 2025", "icml2026"):
            _, ranked_fast, _ = rank_question(fast, OPTIONS, question, collection, 500)
            _, ranked_slow, _ = rank_question(slow, OPTIONS, question, collection, 500)
            assert ranked_fast.docs == ranked_slow.docs
            assert ranked_fast.scores == ranked_slow.scores
        assert suggest_papers(fast, question, 5, OPTIONS) == suggest_papers(
            slow, question, 5, OPTIONS
        )
    for typed in ("icml2026-2", "ICML2026-02", "neurips2025-9", "nowhere-1"):
        assert fast.papers.doc_of(typed) == slow.papers.doc_of(typed)
        assert suggest_papers(fast, typed, 3, OPTIONS) == suggest_papers(slow, typed, 3, OPTIONS)
        assert closest_ids(fast, typed) == closest_ids(slow, typed)


async def test_a_saved_corpus_opens_without_per_paper_reads_and_answers_the_same(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await seeded(store)
    slow = await load_corpus(store, P, tmp_path)
    reads = RowReads(store, monkeypatch)
    fast = await load_corpus(store, P, tmp_path)
    assert reads.count == 0
    assert index_files.is_mapped(fast.papers.keys)
    assert fast.papers.doc_of("icml2026-2") == 1
    assert fast.collections["neurips2025"][1].tolist() == [False, True, False, True, True]
    assert_same_answers(fast, slow)


async def test_an_ingest_makes_the_saved_table_stale(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await seeded(store)
    await load_corpus(store, P, tmp_path)
    await add(store, "c", "ICML 2026", papers(6))
    reads = RowReads(store, monkeypatch)
    after = await load_corpus(store, P, tmp_path)
    assert reads.count > 0
    assert after.papers.doc_of("icml2026-4") == 5
    # Autocomplete was rebuilt for the new generation: the new paper is found by id and words.
    assert after.autocomplete.suggest("icml2026-4") == [("icml2026-4", "Label 6")]
    assert after.autocomplete.suggest("label 6") == [("icml2026-4", "Label 6")]
    reads.count = 0
    again = await load_corpus(store, P, tmp_path)  # the rebuilt table was saved
    assert reads.count == 0
    assert_same_answers(again, after)


async def test_re_derived_labels_make_the_saved_table_stale(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A labeler change rewrites labels without bumping the generation: the stamp must see it.
    await seeded(store)
    before = await load_corpus(store, P, tmp_path)
    keys = [int(key) for key in before.index.keys]
    await store.replace_derived("labeler", "2", labels=[(key, f"New {key}") for key in keys])
    reads = RowReads(store, monkeypatch)
    after = await load_corpus(store, P, tmp_path)
    assert reads.count > 0
    assert after.generation == before.generation
    assert [label for _, label in after.papers.entries()] == [f"New {key}" for key in keys]
    # Autocomplete follows the re-derived labels (same generation, new labeler stamp).
    assert after.autocomplete.suggest("new", 25) == after.papers.entries()
    assert after.autocomplete.suggest("label") == []


async def test_a_renamed_collection_shows_its_new_name_from_the_saved_table(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await seeded(store)
    await load_corpus(store, P, tmp_path)
    await store.rename_collection("neurips2025", "NeurIPS 2025 (main track)")
    reads = RowReads(store, monkeypatch)
    after = await load_corpus(store, P, tmp_path)
    assert reads.count == 0
    name, mask = after.collections["neurips2025"]
    assert name == "NeurIPS 2025 (main track)"
    assert mask.tolist() == [False, True, False, True, True]


@pytest.mark.parametrize("damage", ["truncated", "missing", "index of another generation"])
async def test_a_damaged_table_is_rebuilt_not_a_crash(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    await seeded(store)
    slow = await load_corpus(store, P, tmp_path)
    table = papers_path(tmp_path)
    if damage == "truncated":
        ids = table / "ids.npy"
        ids.write_bytes(ids.read_bytes()[:-3])
    elif damage == "missing":
        shutil.rmtree(table)
    else:  # a table whose documents are not the saved index's (e.g. copied from elsewhere)
        other = tmp_path / "other"
        await add(store, "c", "ICML 2026", papers(6))
        await load_corpus(store, P, other)
        shutil.rmtree(table)
        shutil.copytree(papers_path(other), table)
        shutil.rmtree(other)
    reads = RowReads(store, monkeypatch)
    rebuilt = await load_corpus(store, P, tmp_path)
    assert reads.count > 0
    if damage != "index of another generation":
        assert_same_answers(rebuilt, slow)
    reads.count = 0
    await load_corpus(store, P, tmp_path)
    assert reads.count == 0  # and saved again


@pytest.mark.parametrize("damage", ["truncated", "missing", "stale version"])
async def test_a_damaged_autocomplete_is_rebuilt_from_the_table_not_a_crash(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    await seeded(store)
    slow = await load_corpus(store, P, tmp_path)
    saved = autocomplete_path(tmp_path)
    if damage == "truncated":
        docs = saved / "docs.npy"
        docs.write_bytes(docs.read_bytes()[:-3])
    elif damage == "missing":
        shutil.rmtree(saved)
    else:
        monkeypatch.setattr("retrieval.snapshot.autocomplete.VERSION", -1)
    reads = RowReads(store, monkeypatch)
    rebuilt = await load_corpus(store, P, tmp_path)
    assert reads.count == 0  # rebuilt from the mapped paper table, nothing read per paper
    assert_same_answers(rebuilt, slow)
    assert index_files.is_mapped(rebuilt.autocomplete.papers.keys)
    assert (saved / "stamp.json").is_file()  # and saved again
