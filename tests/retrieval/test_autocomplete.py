"""Autocomplete over ids and label words: the mapped arrays answer exactly as `LabelIndex` did
(same pairs, same order, same ties) for any typed text, saved files round-trip, and missing,
truncated or stale files read as None (rebuilt by the caller)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from retrieval import ids
from retrieval.snapshot.autocomplete import Autocomplete
from retrieval.snapshot.autocomplete_build import build_autocomplete
from retrieval.snapshot.papers import PaperTable
from tests.retrieval.label_index_reference import LabelIndex

ENTRIES = [
    ("icml2026-1", "DRIFT: Decoupled Rollouts"),
    ("icml2026-12", "Elastic Attention"),
    ("icml2026-2", "RouterInterp: MoE routing interpretability"),
]
STAMP = {"generation": 4, "analyzer": 1, "labeler": "2"}

# Ids as the store makes them (`ids.paper_id`: a lowercase ASCII slug, "-", a number).
IDS = st.builds(
    "{}-{}".format, st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True), st.integers(0, 10**6)
)
# Label pieces that fold, compose or split words in interesting ways: ligatures and full-width
# letters (NFKC), ß / İ / Σ (casefold), combining marks, hyphens, underscores, NUL, digits.
PIECES = st.sampled_from(
    [
        "ﬁne",
        "Ｍｏｅ",
        "Straße",
        "İstanbul",
        "ΣΟΦΙΑ",
        "e\u0301",
        "\u0301",
        "x-ray",
        "snake_case",
        "\x00",
        "2026",
        "⅓",
        "MoE",
        "moe",
        "routing",
        "rout",
        "a",
        "ab",
        " ",
        "-",
        ": ",
        "abababababababababab",  # long words sharing their first 16 bytes
        "abababababababababaa",
        "abababababababababab" + "c",
    ]
)
LABELS = st.lists(PIECES, max_size=8).map("".join) | st.text(max_size=20)


@st.composite
def corpora(draw: st.DrawFn) -> list[tuple[str, str]]:
    ids = draw(st.lists(IDS, unique=True, max_size=30))
    return [(paper_id, draw(LABELS)) for paper_id in ids]


def typed_texts(entries: list[tuple[str, str]]) -> st.SearchStrategy[str]:
    """Prefixes of what the corpus holds (cut anywhere, any case, spaced), and anything."""
    held = [text for entry in entries for text in entry] or [""]
    cut = st.builds(lambda text, end: text[:end], st.sampled_from(held), st.integers(0, 40))
    cased = st.builds(lambda text, upper: text.upper() if upper else text, cut, st.booleans())
    return st.lists(cased | LABELS | st.text(max_size=8), min_size=1, max_size=3).map(" ".join)


def table_of(entries: list[tuple[str, str]]) -> PaperTable:
    ids = [paper_id for paper_id, _ in entries]
    labels = [label for _, label in entries]
    return PaperTable.build(ids, labels, list(range(1, len(ids) + 1)), [[]] * len(ids), [])


@given(st.text(), st.integers(0, 10**9))
def test_stored_ids_are_lowercase_so_sorted_ids_answer_lowercased_prefixes(
    name: str, number: int
) -> None:
    # Id prefixes are looked up in the paper table's sorted ids, which LabelIndex lowercased.
    paper_id = ids.paper_id(ids.collection_slug(name), number)
    assert paper_id == paper_id.lower()


def test_id_prefix_comes_first() -> None:
    index = build_autocomplete(table_of(ENTRIES))
    assert [pid for pid, _ in index.suggest("icml2026-1")] == ["icml2026-1", "icml2026-12"]


def test_label_words_match_by_prefix_and_all_words_must_match() -> None:
    index = build_autocomplete(table_of(ENTRIES))
    assert index.suggest("moe rout") == [ENTRIES[2]]
    assert index.suggest("elas") == [ENTRIES[1]]
    assert index.suggest("elastic routing") == []


def test_empty_text_lists_papers_and_limit_holds() -> None:
    index = build_autocomplete(table_of(ENTRIES))
    assert index.suggest("", limit=2) == ENTRIES[:2]
    assert len(index.suggest("icml", limit=25)) == 3
    assert index.suggest("icml", limit=1) == ENTRIES[:1]


def test_ids_come_before_label_matches_and_are_not_repeated() -> None:
    entries = [("b2026-1", "About a2026"), ("a2026-1", "First"), ("c2026-3", "A2026 again")]
    index = build_autocomplete(table_of(entries))
    # a2026-1 by its id first; then the label matches in document order, without a2026-1.
    assert index.suggest("A2026") == [entries[1], entries[0], entries[2]]
    assert index.suggest("a2026", limit=2) == [entries[1], entries[0]]


@given(st.data(), corpora(), st.integers(0, 30))
@example(None, [("a-1", "x"), ("a-2", "abababababababababab abababababababababaa")], 5)
def test_suggest_equals_the_label_index_it_replaced(
    data: st.DataObject | None, entries: list[tuple[str, str]], limit: int
) -> None:
    index = build_autocomplete(table_of(entries))
    reference = LabelIndex(entries)
    texts = ["", "  ", "abababababababababa", "a-", "a"]
    if data is not None:
        texts += data.draw(st.lists(typed_texts(entries), max_size=8))
    for text in texts:
        assert index.suggest(text, limit) == reference.suggest(text, limit), text


def test_a_corpus_too_big_for_one_slice_and_a_bitmap_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    # Several build slices, and prefixes wide enough to merge postings through the bitmap.
    monkeypatch.setattr("retrieval.snapshot.autocomplete_build._SLICE", 7)
    entries = [(f"s{n % 3}-{n}", f"w{n % 5} v{n % 11}x t{n}") for n in range(100)]
    index = build_autocomplete(table_of(entries))
    reference = LabelIndex(entries)
    for text in ("w", "w1 v", "v1", "t1", "s1-", "s2-9", "w3 v1x t", "x", "", "s"):
        for limit in (1, 5, 25, 200):
            assert index.suggest(text, limit) == reference.suggest(text, limit), (text, limit)


def test_saved_files_round_trip_and_answer_the_same(tmp_path: Path) -> None:
    table = table_of(ENTRIES)
    built = build_autocomplete(table)
    built.save(tmp_path / "autocomplete", STAMP)
    loaded = Autocomplete.load(tmp_path / "autocomplete", STAMP, table)
    assert loaded is not None
    for text in ("icml", "moe rout", "elas", "2", ""):
        assert loaded.suggest(text) == built.suggest(text)


@pytest.mark.parametrize("damage", ["truncated", "missing", "stale stamp", "other papers"])
def test_damaged_or_stale_files_read_as_none(tmp_path: Path, damage: str) -> None:
    table = table_of(ENTRIES)
    path = tmp_path / "autocomplete"
    build_autocomplete(table).save(path, STAMP)
    stamp = STAMP
    if damage == "truncated":
        docs = path / "docs.npy"
        docs.write_bytes(docs.read_bytes()[:-3])
    elif damage == "missing":
        (path / "words.npy").unlink()
    elif damage == "stale stamp":
        stamp = {**STAMP, "generation": 5}
    else:
        table = table_of(ENTRIES[:2])
    assert Autocomplete.load(path, stamp, table) is None


def test_an_empty_corpus_suggests_nothing(tmp_path: Path) -> None:
    table = table_of([])
    index = build_autocomplete(table)
    assert index.suggest("a") == [] and index.suggest("") == []
    index.save(tmp_path / "autocomplete", STAMP)
    loaded = Autocomplete.load(tmp_path / "autocomplete", STAMP, table)
    assert loaded is not None and loaded.suggest("a") == []
