"""The store: ids, idempotent and atomic ingest, memberships, reading lists, migrations."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from retrieval import ids
from retrieval.errors import PaperNotFound, StoreError
from retrieval.stores.protocol import FileResult, NewPaper
from retrieval.stores.sqlite import SqliteStore as Store
from retrieval.stores.sqlite_migrations import MIGRATIONS


def new_paper(n: int, abstract: str | None = None, **fields: Any) -> NewPaper:
    text = abstract if abstract is not None else f"Paper {n} studies mixture of experts routing."
    return NewPaper(
        abstract=text,
        external_id=f"ext-{n}",
        label=f"Label {n}",
        content_hash=ids.content_hash(text),
        terms=f"paper {n} studi mixtur expert rout",
        **fields,
    )


def papers(*numbers: int) -> list[NewPaper]:
    return [new_paper(n) for n in numbers]


def make_folder(path: Path) -> None:
    path.mkdir(parents=True)


def dump(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as connection:
        return list(connection.iterdump())


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "paperbot.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(db_path)
    yield opened
    await opened.close()


async def add(
    store: Store, sha: str, collection: str, items: Sequence[NewPaper], path: str = "f.txt"
) -> FileResult:
    return await store.add_file(origin=path, sha256=sha, collection=collection, papers=items)


# -- opening and migrations -------------------------------------------------------------------


async def test_open_creates_folders_uses_wal_and_sets_schema_version(db_path: Path) -> None:
    async with await Store.open(db_path):
        with closing(sqlite3.connect(db_path)) as connection:
            assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert connection.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


async def test_reopening_a_current_database_changes_nothing(db_path: Path) -> None:
    async with await Store.open(db_path) as store:
        await add(store, "a", "ICML 2026", papers(1, 2))
    before = dump(db_path)
    async with await Store.open(db_path) as store:
        assert await store.counts() == (2, 1)
    assert dump(db_path) == before


async def test_database_from_a_newer_paperbot_is_refused(db_path: Path) -> None:
    async with await Store.open(db_path):
        pass
    with closing(sqlite3.connect(db_path)) as connection:
        connection.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(StoreError, match="newer paperbot") as caught:
        await Store.open(db_path)
    assert str(db_path) in str(caught.value)
    assert "upgrade" in str(caught.value)


def put_file_at(path: Path) -> None:
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is a text file, not SQLite\n" * 200)


async def test_a_file_that_is_not_a_database_is_a_one_line_store_error(db_path: Path) -> None:
    put_file_at(db_path)
    with pytest.raises(StoreError) as caught:
        await Store.open(db_path)
    message = str(caught.value)
    assert str(db_path) in message
    assert "\n" not in message
    assert "not a usable paperbot database" in message


async def test_another_programs_sqlite_database_is_refused_untouched(db_path: Path) -> None:
    make_folder(db_path.parent)
    with closing(sqlite3.connect(db_path)) as connection:
        connection.execute("CREATE TABLE notes (body TEXT)")
        connection.commit()
    before = dump(db_path)
    with pytest.raises(StoreError, match="another program's SQLite database"):
        await Store.open(db_path)
    assert dump(db_path) == before
    with closing(sqlite3.connect(db_path)) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


async def test_a_folder_at_the_database_path_is_a_store_error(db_path: Path) -> None:
    make_folder(db_path)
    with pytest.raises(StoreError, match="Cannot open the database") as caught:
        await Store.open(db_path)
    assert str(db_path) in str(caught.value)


async def test_an_uncreatable_folder_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker" / "file"
    put_file_at(blocker)
    with pytest.raises(StoreError, match="Cannot create the folder"):
        await Store.open(blocker / "paperbot.db")


# -- ingest: ids, idempotency, memberships -----------------------------------------------------


async def test_new_papers_are_numbered_in_file_order_and_round_trip(store: Store) -> None:
    first = new_paper(
        1, title="Sparse Routing", urls=("https://github.com/a/b",), authors=("Ada", "Alan")
    )
    result = await add(store, "a", "ICML 2026", [first, new_paper(2)])
    assert (result.added, result.skipped, result.already_ingested) == (2, 0, False)
    assert (result.collection, result.slug) == ("ICML 2026", "icml2026")

    paper = await store.paper("icml2026-1")
    assert paper is not None
    assert (paper.id, paper.collection, paper.position) == ("icml2026-1", "ICML 2026", 1)
    assert (paper.title, paper.urls, paper.authors) == (first.title, first.urls, first.authors)
    assert (paper.abstract, paper.label, paper.external_id) == (first.abstract, "Label 1", "ext-1")
    assert (paper.content_hash, paper.also_in) == (first.content_hash, ())
    second = await store.paper("icml2026-2")
    assert second is not None
    assert (second.title, second.urls, second.authors) == (None, (), ())


async def test_a_second_file_of_a_collection_continues_its_numbering(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2))
    await add(store, "b", "NeurIPS 2025", papers(3))
    await add(store, "c", "ICML 2026", papers(4, 5))
    assert [paper_id for paper_id, _ in await store.paper_labels()] == [
        "icml2026-1",
        "icml2026-2",
        "neurips2025-1",
        "icml2026-3",
        "icml2026-4",
    ]


async def test_the_same_file_twice_changes_nothing(store: Store, db_path: Path) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2))
    generation = await store.generation()
    again = await add(store, "a", "Some Other Name", papers(3))
    assert again.already_ingested
    assert (again.added, again.skipped, again.collection) == (0, 0, "ICML 2026")
    assert await store.file_ingested("a")
    assert not await store.file_ingested("b")
    assert await store.generation() == generation
    assert await store.counts() == (2, 1)


async def test_a_known_abstract_in_another_collection_is_one_paper_in_both(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2))
    shared = new_paper(2)
    result = await add(store, "b", "NeurIPS 2025", [new_paper(9), shared])
    assert (result.added, result.skipped) == (1, 1)

    paper = await store.paper("icml2026-2")
    assert paper is not None
    assert (paper.collection, paper.also_in) == ("ICML 2026", ("NeurIPS 2025",))
    assert await store.counts() == (3, 2)
    infos = {info.slug: (info.papers, info.files) for info in await store.collections()}
    assert infos == {"icml2026": (2, 1), "neurips2025": (2, 1)}
    slugs = {row.paper_id: row.slugs for row in await store.index_rows()}
    assert slugs == {
        "icml2026-1": ("icml2026",),
        "icml2026-2": ("icml2026", "neurips2025"),
        "neurips2025-1": ("neurips2025",),
    }


async def test_duplicates_within_and_across_files_of_one_collection_are_skipped(
    store: Store,
) -> None:
    first = await add(store, "a", "ICML 2026", [new_paper(1), new_paper(1), new_paper(2)])
    assert (first.added, first.skipped) == (2, 1)
    second = await add(store, "b", "ICML 2026", papers(2, 3))
    assert (second.added, second.skipped) == (1, 1)
    assert [info.papers for info in await store.collections()] == [3]
    assert [row.slugs for row in await store.index_rows()] == [("icml2026",)] * 3


async def test_names_with_the_same_slug_share_a_collection(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1))
    result = await add(store, "b", "icml-2026", papers(2))
    assert (result.collection, result.slug) == ("ICML 2026", "icml2026")
    assert await store.paper("icml2026-2") is not None


async def test_acronym_definitions_are_counted_once_per_paper(store: Store) -> None:
    moe = ("MoE", "Mixture of Experts")
    await add(
        store,
        "a",
        "ICML 2026",
        [
            new_paper(1, acronyms=(moe, moe, ("RAG", "retrieval-augmented generation"))),
            new_paper(2, acronyms=(moe, ("MoE", "Mixture-of-Experts"))),
        ],
    )
    # The same abstract again adds no definitions; a new paper does.
    await add(
        store, "b", "NeurIPS 2025", [new_paper(1, acronyms=(moe,)), new_paper(3, acronyms=(moe,))]
    )
    assert await store.acronym_table() == [
        ("MoE", "Mixture of Experts", 3),
        ("MoE", "Mixture-of-Experts", 1),
        ("RAG", "retrieval-augmented generation", 1),
    ]


async def test_every_ingested_file_bumps_the_generation(store: Store) -> None:
    assert await store.generation() == 0
    await add(store, "a", "ICML 2026", papers(1))
    await add(store, "b", "NeurIPS 2025", papers(1))  # only a membership, still a change
    assert await store.generation() == 2


# -- atomicity --------------------------------------------------------------------------------


def _broken_paper() -> NewPaper:
    # NOT NULL on papers.abstract fails this insert halfway through the file's executemany.
    return NewPaper(
        abstract=None,  # type: ignore[arg-type]
        external_id="bad",
        label="bad",
        content_hash="bad-hash",
        terms="bad",
    )


@pytest.mark.parametrize(
    ("file_path", "items"),
    [
        pytest.param("f.txt", [new_paper(3), new_paper(1), _broken_paper()], id="paper-insert"),
        # NOT NULL on ingested_files.path fails after papers, members and acronyms are written.
        pytest.param(None, [new_paper(3, acronyms=(("X", "Ex"),)), new_paper(1)], id="last-step"),
    ],
)
async def test_a_failure_midway_leaves_the_database_exactly_as_it_was(
    db_path: Path, file_path: str | None, items: list[NewPaper]
) -> None:
    async with await Store.open(db_path) as store:
        await add(store, "a", "ICML 2026", papers(1, 2))
        await store.save(7, "icml2026-1")
    before = dump(db_path)

    async with await Store.open(db_path) as store:
        with pytest.raises(sqlite3.IntegrityError):
            await store.add_file(origin=file_path, sha256="b", collection="NeurIPS", papers=items)  # type: ignore[arg-type]
        # No transaction was left open: the next write goes through (and changes nothing).
        assert not await store.save(7, "icml2026-1")
    assert dump(db_path) == before

    async with await Store.open(db_path) as store:
        result = await add(store, "b", "ICML 2026", papers(3))
        assert result.added == 1
        assert await store.paper("icml2026-3") is not None


# -- reading papers ---------------------------------------------------------------------------


async def test_paper_lookup_ignores_case_spacing_and_leading_zeros(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2, 3))
    for typed in ("icml2026-2", "ICML2026-2", "  Icml2026-02 "):
        paper = await store.paper(typed)
        assert paper is not None
        assert paper.id == "icml2026-2"
    assert await store.paper("icml2026-4") is None
    assert await store.paper("not an id") is None


async def test_papers_by_key_keeps_the_given_order_across_chunks(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(*range(1, 1201)))
    rowids = {row.paper_id: row.key for row in await store.index_rows()}
    wanted = [rowids[f"icml2026-{n}"] for n in (1200, 3, 700, 1, 3)] + [999_999]
    found = await store.papers_by_key(wanted)
    assert [paper.id for paper in found] == [
        "icml2026-1200",
        "icml2026-3",
        "icml2026-700",
        "icml2026-1",
        "icml2026-3",
    ]
    everything = await store.papers_by_key(list(reversed(rowids.values())))
    assert len(everything) == 1200
    assert everything[0].id == "icml2026-1200"
    abstracts = await store.abstracts_by_key(wanted)
    assert abstracts[rowids["icml2026-700"]] == new_paper(700).abstract
    assert 999_999 not in abstracts
    assert await store.papers_by_key([]) == []


async def test_index_rows_are_ordered_by_rowid_and_carry_terms(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2))
    rows = await store.index_rows()
    assert [row.key for row in rows] == sorted(row.key for row in rows)
    assert rows[0].terms == new_paper(1).terms
    assert rows[1].paper_id == "icml2026-2"
    light = await store.index_rows(with_terms=False)
    assert [(r.key, r.paper_id, r.slugs) for r in light] == [
        (r.key, r.paper_id, r.slugs) for r in rows
    ]
    assert {r.terms for r in light} == {""}


async def test_random_paper_draws_from_the_collection_members(store: Store) -> None:
    assert await store.random_paper(None) is None
    await add(store, "a", "ICML 2026", papers(1, 2))
    await add(store, "b", "NeurIPS 2025", papers(2, 3))
    drawn = {(await store.random_paper("neurips2025") or pytest.fail()).id for _ in range(60)}
    assert drawn == {"icml2026-2", "neurips2025-1"}
    everything = {(await store.random_paper(None) or pytest.fail()).id for _ in range(80)}
    assert everything == {"icml2026-1", "icml2026-2", "neurips2025-1"}
    assert await store.random_paper("nosuch") is None


async def test_collections_are_listed_with_member_and_file_counts(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1))
    infos = await store.collections()
    assert [(i.name, i.slug, i.papers, i.files) for i in infos] == [("ICML 2026", "icml2026", 1, 1)]


async def test_counts_and_size(store: Store) -> None:
    assert await store.counts() == (0, 0)
    await add(store, "a", "ICML 2026", papers(1, 2))
    assert await store.counts() == (2, 1)
    assert await store.size_bytes() > 0


# -- reading lists and meta -------------------------------------------------------------------


async def test_reading_lists_save_in_order_and_unsave(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2, 3))
    assert await store.save(42, "icml2026-3")
    assert await store.save(42, "ICML2026-1")
    assert not await store.save(42, "icml2026-3")
    assert await store.save(7, "icml2026-2")
    assert [paper.id for paper in await store.saved(42)] == ["icml2026-3", "icml2026-1"]
    assert await store.unsave(42, "icml2026-3")
    assert not await store.unsave(42, "icml2026-3")
    assert [paper.id for paper in await store.saved(42)] == ["icml2026-1"]
    assert [paper.id for paper in await store.saved(7)] == ["icml2026-2"]
    assert await store.saved(1) == []


async def test_saving_an_unknown_paper_raises_paper_not_found(store: Store) -> None:
    with pytest.raises(PaperNotFound):
        await store.save(42, "icml2026-1")
    assert await store.saved(42) == []


async def test_reading_lists_survive_reopening_and_more_ingests(db_path: Path) -> None:
    async with await Store.open(db_path) as store:
        await add(store, "a", "ICML 2026", papers(1, 2))
        await store.save(42, "icml2026-2")
        await store.save(42, "icml2026-1")
    async with await Store.open(db_path) as store:
        await add(store, "b", "NeurIPS 2025", papers(2, 5))
        await add(store, "c", "ICML 2026", papers(6))
        saved = await store.saved(42)
        assert [paper.id for paper in saved] == ["icml2026-2", "icml2026-1"]
        assert saved[0].also_in == ("NeurIPS 2025",)


async def test_command_sync_hashes_are_kept_per_scope_and_replaced(store: Store) -> None:
    assert await store.command_sync_hash("global") is None
    await store.record_command_sync("global", "abc")
    await store.record_command_sync("global", "def")
    await store.record_command_sync("123", "xyz")
    assert await store.command_sync_hash("global") == "def"
    assert await store.command_sync_hash("123") == "xyz"


# -- concurrency ------------------------------------------------------------------------------


async def test_concurrent_calls_on_one_loop_do_not_interleave_transactions(store: Store) -> None:
    await add(store, "seed", "ICML 2026", papers(1))
    results = await asyncio.gather(
        add(store, "a", "ICML 2026", papers(*range(10, 60))),
        store.save(1, "icml2026-1"),
        add(store, "b", "ICML 2026", papers(*range(60, 110))),
        store.record_command_sync("k", "v"),
        store.index_rows(),
        store.save(1, "icml2026-1"),
    )
    assert results[1] is True
    assert results[5] is False
    numbers = sorted(int(pid.split("-")[1]) for pid, _ in await store.paper_labels())
    assert numbers == list(range(1, 102))
    assert await store.generation() == 3


# -- conversation memory ----------------------------------------------------------------------


async def test_conversation_memory_is_replaced_per_scope_and_expires(store: Store) -> None:
    from retrieval.stores.protocol import ConversationRow

    assert await store.conversation("1:2") is None
    await store.remember_conversation(ConversationRow("1:2", 1, '{"a": 1}', 100.0))
    await store.remember_conversation(ConversationRow("1:2", 1, '{"a": 2}', 200.0))
    await store.remember_conversation(ConversationRow("dm:3", 3, '{"b": 1}', 50.0))
    assert await store.conversation("1:2") == ConversationRow("1:2", 1, '{"a": 2}', 200.0)
    await store.remember_answer_message(99, ConversationRow("1:2", 1, '{"m": 1}', 150.0))
    assert await store.answer_message(99) == ConversationRow("1:2", 1, '{"m": 1}', 150.0)
    assert await store.answer_message(98) is None
    assert await store.forget_conversations(before=160.0) == 2  # dm:3 and message 99
    assert await store.conversation("dm:3") is None
    assert await store.answer_message(99) is None
    assert (await store.conversation("1:2")) is not None
