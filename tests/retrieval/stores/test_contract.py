"""The Store Protocol, checked on every backend: each test runs on SQLite and on PostgreSQL.

Ingest (numbering, idempotency by sha256 and content hash, memberships, atomicity), the
generation, index rows, lookups, derived data, reading lists and migrations: PaperStore,
IngestStore and ReadingListStore. The other concerns have a file each
(test_contract_<concern>.py). Backend-specific behaviour lives beside: test_store.py (SQLite
files) and test_postgres.py (several processes, faults, LISTEN).
"""

from __future__ import annotations

import asyncio

import pytest

from retrieval.errors import PaperNotFound, StoreError
from retrieval.stores.protocol import ConversationRow, NewPaper
from retrieval.stores.store import Store
from tests.retrieval.stores.conftest import Backend
from tests.retrieval.stores.papers import add, broken_paper, new_paper, papers

# -- opening and migrations -------------------------------------------------------------------


async def test_a_fresh_database_gets_every_migration(backend: Backend) -> None:
    async with await backend.open() as store:
        assert await store.counts() == (0, 0)
        assert await store.generation() == 0
    assert await backend.schema_version() == backend.latest


async def test_reopening_a_current_database_changes_nothing(backend: Backend) -> None:
    async with await backend.open() as store:
        await add(store, "a", "ICML 2026", papers(1, 2))
        await store.save(42, "icml2026-2")
    before = await backend.snapshot()
    async with await backend.open() as store:
        assert await store.counts() == (2, 1)
        assert [paper.id for paper in await store.saved(42)] == ["icml2026-2"]
    assert await backend.snapshot() == before


async def test_a_database_from_a_newer_paperbot_is_refused_in_one_line(backend: Backend) -> None:
    async with await backend.open():
        pass
    await backend.set_schema_version(backend.latest + 1)
    with pytest.raises(StoreError, match="newer paperbot") as caught:
        await backend.open()
    message = str(caught.value)
    assert backend.where in message
    assert "upgrade" in message
    assert f"schema {backend.latest + 1}" in message
    assert "\n" not in message
    assert await backend.schema_version() == backend.latest + 1  # left as found


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


async def test_keys_ascend_in_insertion_order_and_are_never_reused(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2, 3))
    await add(store, "b", "NeurIPS 2025", papers(4))
    rows = await store.index_rows(with_terms=False)
    keys = [row.key for row in rows]
    assert [row.paper_id for row in rows] == [
        "icml2026-1",
        "icml2026-2",
        "icml2026-3",
        "neurips2025-1",
    ]
    assert keys == sorted(set(keys))
    assert keys[0] >= 1


async def test_the_same_file_twice_changes_nothing(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2))
    generation = await store.generation()
    again = await add(store, "a", "Some Other Name", papers(3))
    assert again.already_ingested
    assert (again.added, again.skipped, again.collection, again.slug) == (
        0,
        0,
        "ICML 2026",
        "icml2026",
    )
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
    assert [pid for pid, _ in await store.paper_labels()] == [
        "icml2026-1",
        "icml2026-2",
        "icml2026-3",
    ]


async def test_a_known_paper_listed_with_a_title_or_authors_is_counted_unapplied(
    store: Store,
) -> None:
    await add(store, "txt", "ICML 2024", papers(1, 2, 3))
    richer = [
        new_paper(1, title="One"),
        new_paper(2, authors=("Ada",)),
        new_paper(3),  # nothing new
        new_paper(4, title="Four"),  # a new paper: stored whole
    ]
    result = await add(store, "jsonl", "ICML 2024", richer)
    assert (result.added, result.skipped, result.unapplied) == (1, 3, 2)
    again = await add(store, "jsonl2", "ICML 2024", [new_paper(4, title="Four")])
    assert (again.skipped, again.unapplied) == (1, 0)  # already stored with its title


async def test_names_with_the_same_slug_share_a_collection(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1))
    result = await add(store, "b", "icml-2026", papers(2))
    assert (result.collection, result.slug) == ("ICML 2026", "icml2026")
    assert await store.paper("icml2026-2") is not None
    assert await store.counts() == (2, 1)


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


async def test_acronyms_are_ordered_by_code_point_like_sqlite(store: Store) -> None:
    await add(
        store,
        "a",
        "ICML 2026",
        [new_paper(1, acronyms=(("b", "x"), ("B", "y"), ("a", "z"), ("A", "w"), ("Ä", "v")))],
    )
    assert [row[0] for row in await store.acronym_table()] == ["A", "B", "a", "b", "Ä"]


async def test_rename_keeps_slug_ids_and_members(store: Store) -> None:
    await add(store, "a", "icml2026", papers(1, 2))
    await store.rename_collection("icml2026", "ICML 2026")
    infos = await store.collections()
    assert [(info.name, info.slug, info.papers) for info in infos] == [("ICML 2026", "icml2026", 2)]
    paper = await store.paper("icml2026-2")
    assert paper is not None
    assert paper.collection == "ICML 2026"
    result = await add(store, "b", "ICML-2026", papers(3))
    assert (result.collection, result.slug) == ("ICML 2026", "icml2026")


# -- generation and index rows ----------------------------------------------------------------


async def test_every_ingested_file_bumps_the_generation_once(store: Store) -> None:
    assert await store.generation() == 0
    await add(store, "a", "ICML 2026", papers(1))
    assert await store.generation() == 1
    await add(store, "b", "NeurIPS 2025", papers(1))  # only a membership, still a change
    assert await store.generation() == 2
    await add(store, "c", "NeurIPS 2025", [])  # an empty file is still a recorded file
    assert await store.generation() == 3
    await store.save(1, "icml2026-1")
    await store.record_command_sync("global", "h")
    await store.remember_conversation(ConversationRow("s", 1, "{}", 1.0))
    await store.rename_collection("icml2026", "ICML")
    assert await store.generation() == 3  # none of those changes what the index holds


async def test_index_rows_after_a_key_are_exactly_the_later_papers(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2))
    seen = await store.index_rows()
    last = seen[-1].key
    assert await store.index_rows(after_key=last) == []
    await add(store, "b", "ICML 2026", papers(3, 4))
    later = await store.index_rows(after_key=last)
    assert [row.paper_id for row in later] == ["icml2026-3", "icml2026-4"]
    assert all(row.key > last for row in later)
    assert later[0].terms == new_paper(3).terms
    everything = await store.index_rows()
    assert everything == [*seen, *later]
    assert await store.index_rows(after_key=seen[0].key) == everything[1:]


async def test_index_rows_carry_terms_only_when_asked(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2))
    rows = await store.index_rows()
    assert [row.key for row in rows] == sorted(row.key for row in rows)
    assert rows[0].terms == new_paper(1).terms
    light = await store.index_rows(with_terms=False)
    assert [(r.key, r.paper_id, r.slugs) for r in light] == [
        (r.key, r.paper_id, r.slugs) for r in rows
    ]
    assert {r.terms for r in light} == {""}


async def test_index_terms_are_the_rows_terms_a_limited_run_after_a_key(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2, 3))
    await add(store, "b", "NeurIPS 2025", papers(4, 5))
    rows = [(row.key, row.terms) for row in await store.index_rows()]
    assert await store.index_terms(after_key=0, limit=10) == rows
    assert await store.index_terms(after_key=0, limit=2) == rows[:2]
    assert await store.index_terms(after_key=rows[1][0], limit=2) == rows[2:4]
    assert await store.index_terms(after_key=rows[3][0], limit=2) == rows[4:]
    assert await store.index_terms(after_key=rows[4][0], limit=2) == []


# -- atomicity --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file_path", "items"),
    [
        pytest.param("f.txt", [new_paper(3), new_paper(1), broken_paper()], id="paper-insert"),
        # NOT NULL on ingested_files.path fails after papers, members and acronyms are written.
        pytest.param(None, [new_paper(3, acronyms=(("X", "Ex"),)), new_paper(1)], id="last-step"),
    ],
)
async def test_a_failure_midway_leaves_the_database_exactly_as_it_was(
    backend: Backend, file_path: str | None, items: list[NewPaper]
) -> None:
    async with await backend.open() as store:
        await add(store, "a", "ICML 2026", papers(1, 2))
        await store.save(7, "icml2026-1")
    before = await backend.snapshot()

    async with await backend.open() as store:
        with pytest.raises(backend.integrity_error):
            await store.add_file(origin=file_path, sha256="b", collection="NeurIPS", papers=items)  # type: ignore[arg-type]
        # No transaction was left open: the next write goes through (and changes nothing).
        assert not await store.save(7, "icml2026-1")
        assert await store.generation() == 1
    after = await backend.snapshot()
    if backend.name == "postgres":
        # A rolled-back transaction still consumed sequence values: keys are never reused.
        before, after = before[:-1], after[:-1]
    assert after == before

    async with await backend.open() as store:
        result = await add(store, "b", "ICML 2026", papers(3))
        assert result.added == 1
        assert await store.paper("icml2026-3") is not None
        assert [pid for pid, _ in await store.paper_labels()] == [
            "icml2026-1",
            "icml2026-2",
            "icml2026-3",
        ]


# -- reading papers ---------------------------------------------------------------------------


async def test_paper_lookup_ignores_case_spacing_and_leading_zeros(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1, 2, 3))
    for typed in ("icml2026-2", "ICML2026-2", "  Icml2026-02 "):
        paper = await store.paper(typed)
        assert paper is not None
        assert paper.id == "icml2026-2"
    assert await store.paper("icml2026-4") is None
    assert await store.paper("not an id") is None


def _record(external_id: str, text: str) -> NewPaper:
    return NewPaper(
        abstract=text,
        external_id=external_id,
        label=text,
        content_hash=f"hash of {text}",
        terms=text.lower(),
    )


async def test_papers_are_found_by_external_id_ignoring_case(store: Store) -> None:
    await add(store, "a", "ICML 2024", papers(1, 2))
    own = _record("ICML2024-01938", "A record with its own id.")
    # Its external id is another paper's paperbot id: the paperbot id must win.
    clash = _record("icml2024-1", "A record whose id looks like ours.")
    await add(store, "b", "JSONL", [own, clash])
    for typed in ("ICML2024-01938", "icml2024-01938", " icml2024-01938 "):
        paper = await store.paper(typed)
        assert paper is not None
        assert paper.id == "jsonl-1"
    found = await store.paper("ICML2024-1")
    assert found is not None
    assert found.id == "icml2024-1"
    by_external = await store.paper("EXT-2")
    assert by_external is not None
    assert by_external.id == "icml2024-2"
    # Neither an id nor an external id as typed: the canonical form of an id.
    canonical = await store.paper("ICML2024-0002")
    assert canonical is not None
    assert canonical.id == "icml2024-2"


async def test_papers_by_key_keeps_the_given_order_across_chunks(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(*range(1, 1201)))
    keys = {row.paper_id: row.key for row in await store.index_rows()}
    wanted = [keys[f"icml2026-{n}"] for n in (1200, 3, 700, 1, 3)] + [999_999]
    found = await store.papers_by_key(wanted)
    assert [paper.id for paper in found] == [
        "icml2026-1200",
        "icml2026-3",
        "icml2026-700",
        "icml2026-1",
        "icml2026-3",
    ]
    everything = await store.papers_by_key(list(reversed(keys.values())))
    assert len(everything) == 1200
    assert everything[0].id == "icml2026-1200"
    abstracts = await store.abstracts_by_key(wanted)
    assert abstracts[keys["icml2026-700"]] == new_paper(700).abstract
    assert set(abstracts) == {keys[f"icml2026-{n}"] for n in (1200, 3, 700, 1)}
    assert await store.papers_by_key([]) == []
    assert await store.abstracts_by_key([]) == {}


async def test_random_paper_draws_from_the_collection_members(store: Store) -> None:
    assert await store.random_paper(None) is None
    await add(store, "a", "ICML 2026", papers(1, 2))
    await add(store, "b", "NeurIPS 2025", papers(2, 3))
    drawn = {(await store.random_paper("neurips2025") or pytest.fail()).id for _ in range(60)}
    assert drawn == {"icml2026-2", "neurips2025-1"}
    everything = {(await store.random_paper(None) or pytest.fail()).id for _ in range(80)}
    assert everything == {"icml2026-1", "icml2026-2", "neurips2025-1"}
    assert await store.random_paper("nosuch") is None


async def test_collections_are_listed_in_creation_order_with_counts(store: Store) -> None:
    await add(store, "a", "NeurIPS 2025", papers(1))
    await add(store, "b", "ICML 2026", papers(2, 3))
    await add(store, "c", "ICML 2026", papers(4))
    infos = await store.collections()
    assert [(i.name, i.slug, i.papers, i.files) for i in infos] == [
        ("NeurIPS 2025", "neurips2025", 1, 1),
        ("ICML 2026", "icml2026", 3, 2),
    ]


async def test_counts_and_size(store: Store) -> None:
    assert await store.counts() == (0, 0)
    await add(store, "a", "ICML 2026", papers(1, 2))
    assert await store.counts() == (2, 1)
    assert await store.size_bytes() > 0


# -- derived data -----------------------------------------------------------------------------


async def test_derived_data_is_replaced_by_key_with_its_version(store: Store) -> None:
    await add(store, "a", "ICML 2026", [new_paper(1, title="T1"), new_paper(2)])
    assert await store.derived_version("analyzer") is None
    texts = await store.stored_texts()
    assert [(t.title, t.abstract) for t in texts] == [
        ("T1", new_paper(1).abstract),
        (None, new_paper(2).abstract),
    ]
    keys = [t.key for t in texts]
    assert keys == [row.key for row in await store.index_rows()]
    generation = await store.generation()

    await store.replace_derived("labeler", "L2", labels=[(keys[1], "New label")])
    assert await store.derived_version("labeler") == "L2"
    assert await store.generation() == generation  # labels are not indexed
    assert (await store.paper_labels())[1] == ("icml2026-2", "New label")

    await store.replace_derived("analyzer", "A2", terms=[(keys[0], "new terms")])
    assert await store.derived_version("analyzer") == "A2"
    assert await store.derived_version("labeler") == "L2"
    assert await store.generation() == generation + 1
    rows = await store.index_rows()
    assert [row.terms for row in rows] == ["new terms", new_paper(2).terms]


# -- reading lists ----------------------------------------------------------------------------


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


async def test_reading_lists_take_discord_sized_user_ids(store: Store) -> None:
    await add(store, "a", "ICML 2026", papers(1))
    user = 1_234_567_890_123_456_789  # snowflakes exceed 32 bits
    assert await store.save(user, "icml2026-1")
    assert [paper.id for paper in await store.saved(user)] == ["icml2026-1"]


async def test_saving_an_unknown_paper_raises_paper_not_found(store: Store) -> None:
    with pytest.raises(PaperNotFound):
        await store.save(42, "icml2026-1")
    assert await store.saved(42) == []


async def test_reading_lists_survive_reopening_and_more_ingests(backend: Backend) -> None:
    async with await backend.open() as store:
        await add(store, "a", "ICML 2026", papers(1, 2))
        await store.save(42, "icml2026-2")
        await store.save(42, "icml2026-1")
    async with await backend.open() as store:
        await add(store, "b", "NeurIPS 2025", papers(2, 5))
        await add(store, "c", "ICML 2026", papers(6))
        saved = await store.saved(42)
        assert [paper.id for paper in saved] == ["icml2026-2", "icml2026-1"]
        assert saved[0].also_in == ("NeurIPS 2025",)


# -- concurrency on one event loop ------------------------------------------------------------


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
    assert sorted([results[1], results[5]]) == [False, True]  # saved once, whichever came first
    numbers = sorted(int(pid.split("-")[1]) for pid, _ in await store.paper_labels())
    assert numbers == list(range(1, 102))
    assert await store.generation() == 3
