"""`add_file` with `PaperChunks`, on every backend: however a file is split, the store ends up
exactly as with one chunk (ids, keys, positions, memberships, skips, acronym counts), and a
failure in a later chunk leaves nothing of the file behind."""

from __future__ import annotations

import itertools
import sqlite3
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval.stores.postgres import PostgresStore
from retrieval.stores.protocol import FileResult, NewPaper, PaperChunks
from retrieval.stores.sqlite import SqliteStore
from retrieval.stores.store import Store
from tests.budgets import examples
from tests.retrieval.stores.conftest import (
    Backend,
    PostgresBackend,
    SqliteBackend,
    empty_schema,
    run_apart,
)
from tests.retrieval.stores.papers import add, broken_paper, new_paper, papers

MOE = ("MoE", "Mixture of Experts")
RAG = ("RAG", "retrieval-augmented generation")
# A later file of NeurIPS: new papers, repeats within the file (3, 4) and papers stored by the
# first file (1, 2), some defining acronyms. ICML gets a second file: 1 is already a member.
NEURIPS = [
    new_paper(3, acronyms=(MOE,)),
    new_paper(1),
    new_paper(4, acronyms=(MOE, RAG)),
    new_paper(3, acronyms=(MOE,)),
    new_paper(5),
    new_paper(2),
    new_paper(4, acronyms=(MOE, RAG)),
    new_paper(6, acronyms=(RAG,)),
]
ICML_MORE = [new_paper(7), new_paper(1), new_paper(5), new_paper(8), new_paper(7)]


def chunks_of(items: Sequence[NewPaper], cuts: Sequence[int]) -> PaperChunks:
    """`items` cut before each index in `cuts`: [] chunks included, read again on each call."""
    bounds = [0, *sorted(cuts), len(items)]
    pieces = [list(items[a:b]) for a, b in itertools.pairwise(bounds)]

    async def read() -> AsyncIterator[Sequence[NewPaper]]:
        for piece in pieces:
            yield piece

    return PaperChunks(read)


async def memberships(store: Store) -> list[tuple[Any, ...]]:
    """(key, collection slug, position, external id) of every membership row."""
    if isinstance(store, SqliteStore):
        with closing(sqlite3.connect(store.path)) as connection:
            return [
                tuple(row)
                for row in connection.execute(
                    "SELECT m.paper_rowid, c.slug, m.position, m.external_id "
                    "FROM paper_collections AS m JOIN collections AS c ON c.id = m.collection_id "
                    "ORDER BY 1, 2"
                )
            ]
    assert isinstance(store, PostgresStore)
    server = await asyncpg.connect(store._url)
    try:
        rows = await server.fetch(
            "SELECT m.paper_key, c.slug, m.position, m.external_id "
            "FROM paper_collections AS m JOIN collections AS c ON c.id = m.collection_id "
            "ORDER BY 1, 2"
        )
        return [tuple(row) for row in rows]
    finally:
        await server.close()


async def ingest_and_describe(
    store: Store, neurips: Sequence[NewPaper] | PaperChunks, icml: Sequence[NewPaper] | PaperChunks
) -> list[Any]:
    """Three files (the middle and last as given), then everything the Protocol shows."""
    results: list[FileResult] = [await add(store, "a", "ICML 2026", papers(1, 2))]
    results.append(
        await store.add_file(origin="b.jsonl", sha256="b", collection="NeurIPS", papers=neurips)
    )
    results.append(
        await store.add_file(origin="c.jsonl", sha256="c", collection="ICML 2026", papers=icml)
    )
    rows = await store.index_rows()
    stored = await store.papers_by_key([row.key for row in rows])
    return [
        results,
        rows,
        [(p.id, p.collection, p.position, p.external_id, p.also_in) for p in stored],
        await store.paper_labels(),
        await store.collections(),
        await store.acronym_table(),
        await store.counts(),
        await store.generation(),
        await memberships(store),
    ]


@pytest.mark.parametrize(
    ("neurips_cuts", "icml_cuts"),
    [
        pytest.param([], [], id="one-chunk-each"),
        pytest.param([3], [2], id="duplicate-split-across-chunks"),
        pytest.param([1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4], id="one-paper-per-chunk"),
        pytest.param([0, 0, 8], [0, 5], id="empty-chunks"),
    ],
)
async def test_a_file_in_chunks_is_stored_exactly_as_in_one(
    backend: Backend, neurips_cuts: list[int], icml_cuts: list[int]
) -> None:
    async with await backend.open() as store:
        chunked = await ingest_and_describe(
            store, chunks_of(NEURIPS, neurips_cuts), chunks_of(ICML_MORE, icml_cuts)
        )
    await _reset(backend)
    async with await backend.open() as store:
        whole = await ingest_and_describe(store, NEURIPS, ICML_MORE)
    assert chunked == whole
    # The expectation itself, so that two equal wrong answers cannot pass.
    assert [(r.added, r.skipped) for r in whole[0]] == [(2, 0), (4, 4), (2, 3)]
    assert [pid for pid, _ in whole[3]] == [
        "icml2026-1",
        "icml2026-2",
        "neurips-1",
        "neurips-2",
        "neurips-3",
        "neurips-4",
        "icml2026-3",
        "icml2026-4",
    ]
    assert whole[5] == [("MoE", "Mixture of Experts", 2), ("RAG", *RAG[1:], 2)]


async def _reset(backend: Backend) -> None:
    """An empty database again, for the same backend."""
    if isinstance(backend, PostgresBackend):
        await empty_schema(backend.url)
    else:
        assert isinstance(backend, SqliteBackend)
        for path in backend.path.parent.glob(backend.path.name + "*"):
            path.unlink()


async def test_a_failure_in_a_later_chunk_leaves_nothing_of_the_file(backend: Backend) -> None:
    async with await backend.open() as store:
        await add(store, "a", "ICML 2026", papers(1, 2))
    before = await backend.snapshot()
    read = 0

    async def counted() -> AsyncIterator[Sequence[NewPaper]]:
        nonlocal read
        for piece in (
            [new_paper(3), new_paper(1)],
            [new_paper(4)],
            [new_paper(5), broken_paper()],
        ):
            read += 1
            yield piece

    async with await backend.open() as store:
        with pytest.raises(backend.integrity_error):
            await store.add_file(
                origin="b.jsonl", sha256="b", collection="NeurIPS", papers=PaperChunks(counted)
            )
        assert read == 3  # the first two chunks were written before the third failed
        assert await store.generation() == 1
        assert not await store.file_ingested("b")
    after = await backend.snapshot()
    if backend.name == "postgres":
        # A rolled-back transaction still consumed sequence values: keys are never reused.
        before, after = before[:-1], after[:-1]
    assert after == before


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
# Each example ingests both lists twice on a fresh store (on PostgreSQL about a second).
@settings(max_examples=examples(6), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    neurips_cuts=st.lists(st.integers(0, len(NEURIPS)), max_size=6),
    icml_cuts=st.lists(st.integers(0, len(ICML_MORE)), max_size=4),
)
def test_any_split_is_stored_exactly_as_one_chunk(
    backend: str, request: pytest.FixtureRequest, neurips_cuts: list[int], icml_cuts: list[int]
) -> None:
    url = request.getfixturevalue("pg_server_url") if backend == "postgres" else ""

    async def describe(split: bool) -> list[Any]:
        with tempfile.TemporaryDirectory() as folder:
            if url:
                await empty_schema(url)
            store: Store = await (
                PostgresStore.open(url) if url else SqliteStore.open(Path(folder) / "p.db")
            )
            async with store:
                if split:
                    return await ingest_and_describe(
                        store, chunks_of(NEURIPS, neurips_cuts), chunks_of(ICML_MORE, icml_cuts)
                    )
                return await ingest_and_describe(store, NEURIPS, ICML_MORE)

    assert run_apart(describe(split=True)) == run_apart(describe(split=False))
