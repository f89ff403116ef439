"""The paper table: lookups equal the lists and dicts it replaced, saved files round-trip, and a
missing, truncated or stale table reads as None (rebuilt by the caller, never a crash)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval.snapshot import files as index_files
from retrieval.snapshot.papers import PaperTable
from tests.budgets import examples

# Ids as the store makes them never hold NUL; anything else (unicode, any length) may appear.
IDS = st.text(
    st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), min_size=1, max_size=30
)
# What may be looked up: anything at all, lone surrogates and NUL included.
TYPED = st.text(st.characters(), max_size=30)
SLUGS = ["icml2026", "neurips2025", "ü-list"]


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[str], list[str], list[int], list[list[str]]]:
    ids = draw(st.lists(IDS, unique=True, max_size=40))
    labels = [draw(st.text(max_size=40)) for _ in ids]  # empty labels included
    keys = sorted(draw(st.lists(st.integers(1, 2**40), unique=True, min_size=len(ids))))
    members = [draw(st.lists(st.sampled_from([*SLUGS, "unlisted"]), unique=True)) for _ in ids]
    return ids, labels, keys[: len(ids)], members


def assert_behaves_like_lists(
    table: PaperTable,
    ids: list[str],
    labels: list[str],
    keys: list[int],
    members: list[list[str]],
) -> None:
    entries = list(zip(ids, labels, strict=True))
    doc_of_paper = {paper_id: doc for doc, paper_id in enumerate(ids)}
    assert len(table) == len(ids)
    assert table.paper_ids() == ids
    assert table.entries() == entries
    assert list(table) == entries
    assert table.keys.tolist() == keys
    for doc, (paper_id, label) in enumerate(entries):
        assert table.paper_id(doc) == paper_id
        assert table.label(doc) == label
        assert table.entry(doc) == (paper_id, label)
        assert table.doc_of(paper_id) == doc_of_paper[paper_id]
    for start, stop in ((0, 3), (2, 5), (len(ids), len(ids) + 2)):
        assert table.entries(start, stop) == entries[start:stop]
    for slug in SLUGS:
        assert table.mask(slug).tolist() == [slug in member_of for member_of in members]
    assert table.mask("unlisted").tolist() == [False] * len(ids)  # not one of the table's slugs


@given(tables(), st.lists(TYPED | IDS, max_size=10))
def test_lookups_equal_the_lists_and_dict_they_replace(
    drawn: tuple[list[str], list[str], list[int], list[list[str]]], others: list[str]
) -> None:
    ids, labels, keys, members = drawn
    table = PaperTable.build(ids, labels, keys, members, SLUGS)
    assert_behaves_like_lists(table, ids, labels, keys, members)
    for other in others:
        assert table.doc_of(other) == {p: d for d, p in enumerate(ids)}.get(other)


@settings(max_examples=examples(40))
@given(tables())
def test_a_saved_table_maps_back_the_same(
    tmp_path_factory: pytest.TempPathFactory,
    drawn: tuple[list[str], list[str], list[int], list[list[str]]],
) -> None:
    ids, labels, keys, members = drawn
    path = tmp_path_factory.mktemp("table") / "papers"
    PaperTable.build(ids, labels, keys, members, SLUGS).save(path, {"generation": 3})
    loaded = PaperTable.load(path, {"generation": 3})
    assert loaded is not None
    assert index_files.is_mapped(loaded.keys)
    assert loaded.slugs == SLUGS
    assert_behaves_like_lists(loaded, ids, labels, keys, members)


def test_ids_that_cannot_be_stored_are_unknown_not_an_error() -> None:
    table = PaperTable.build(["a-1", "b-22"], ["A", ""], [1, 2], [["a"], ["b"]], ["a", "b"])
    assert table.doc_of("b-22") == 1
    assert table.doc_of("") is None
    assert table.doc_of("a-1\0") is None
    assert table.doc_of("a-1" * 50) is None  # longer than any stored id
    assert table.doc_of("a-") is None  # a prefix of a stored id is not that id
    assert PaperTable.build([], [], [], [], []).doc_of("a-1") is None


def saved(tmp_path: Path) -> Path:
    path = tmp_path / "papers"
    table = PaperTable.build(
        [f"a-{n}" for n in range(50)], ["x"] * 50, range(50), [["a"]] * 50, ["a"]
    )
    table.save(path, {"generation": 1})
    return path


@pytest.mark.parametrize(
    "damage", ["missing", "truncated ids", "truncated labels", "stale stamp", "no stamp"]
)
def test_a_damaged_or_stale_table_reads_as_none(tmp_path: Path, damage: str) -> None:
    path = saved(tmp_path)
    if damage == "missing":
        (path / "ids.npy").unlink()
    elif damage.startswith("truncated"):
        file = path / f"{damage.split()[1]}.npy"
        file.write_bytes(file.read_bytes()[:-7])
    elif damage == "no stamp":
        (path / "stamp.json").unlink()
    stamp = {"generation": 2 if damage == "stale stamp" else 1}
    assert PaperTable.load(path, stamp) is None
    assert PaperTable.load(saved(tmp_path / "again"), {"generation": 1}) is not None
