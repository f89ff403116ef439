"""Differential check: any sequence of ingests, saves and renames shows the same on PostgreSQL
as on SQLite (results, ids, keys' order, memberships, counts, generation, reading lists)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval import ids
from retrieval.errors import PaperNotFound
from retrieval.stores.postgres import PostgresStore
from retrieval.stores.sqlite import SqliteStore
from retrieval.stores.store import Store
from tests.budgets import examples
from tests.retrieval.stores.conftest import empty_schema, run_apart
from tests.retrieval.stores.papers import new_paper

COLLECTIONS = ["ICML 2026", "icml-2026", "NeurIPS 2025", "B"]
FILE = st.tuples(
    st.integers(0, 5),  # sha: a repeated one is the same file again
    st.sampled_from(COLLECTIONS),
    st.lists(st.integers(0, 14), max_size=8),  # abstracts, shared across files
)
OPERATION = st.one_of(
    st.tuples(st.just("file"), FILE),
    st.tuples(
        st.just("save"),
        st.tuples(st.integers(1, 2), st.sampled_from(COLLECTIONS), st.integers(1, 6)),
    ),
    st.tuples(st.just("rename"), st.tuples(st.sampled_from(COLLECTIONS))),
)


async def replay(store: Store, operations: list[tuple[str, tuple[object, ...]]]) -> list[object]:
    seen: list[object] = []
    for kind, args in operations:
        if kind == "file":
            sha, collection, numbers = args
            items = [new_paper(int(n), acronyms=(("X", f"x{int(n) % 3}"),)) for n in numbers]  # type: ignore[call-overload]
            seen.append(
                await store.add_file(
                    origin=f"{sha}.txt", sha256=str(sha), collection=str(collection), papers=items
                )
            )
        elif kind == "save":
            user, collection, number = args
            slug = ids.collection_slug(str(collection))
            try:
                seen.append(await store.save(int(user), f"{slug}-{number}"))  # type: ignore[call-overload]
            except PaperNotFound as error:
                seen.append(str(error))
        else:
            (collection,) = args
            await store.rename_collection(ids.collection_slug(str(collection)), "Renamed")
    rows = await store.index_rows()
    seen += [
        [(row.paper_id, row.slugs, row.terms) for row in rows],
        [row.key for row in rows] == sorted(row.key for row in rows),
        await store.paper_labels(),
        await store.collections(),
        await store.acronym_table(),
        await store.counts(),
        await store.generation(),
        [paper.id for paper in await store.saved(1)],
        [paper.id for paper in await store.saved(2)],
        await store.papers_by_key([row.key for row in reversed(rows)]),
    ]
    return seen


async def on_both(url: str, operations: list[tuple[str, tuple[object, ...]]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        async with await SqliteStore.open(Path(folder) / "p.db") as sqlite:
            expected = await replay(sqlite, operations)
    await empty_schema(url)
    async with await PostgresStore.open(url) as postgres:
        assert await replay(postgres, operations) == expected


# Each example replays the operations on a fresh SQLite file and a fresh PostgreSQL schema
# (about half a second): docs/testing.md on this budget.
@settings(max_examples=examples(10), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=st.lists(OPERATION, max_size=10))
def test_postgres_shows_what_sqlite_shows(
    pg_url_sync: str, operations: list[tuple[str, tuple[object, ...]]]
) -> None:
    run_apart(on_both(pg_url_sync, operations))
