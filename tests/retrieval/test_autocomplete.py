"""Autocomplete over ids and label words."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval.autocomplete import LabelIndex, sorted_in_slices

ENTRIES = [
    ("icml2026-1", "DRIFT: Decoupled Rollouts"),
    ("icml2026-12", "Elastic Attention"),
    ("icml2026-2", "RouterInterp: MoE routing interpretability"),
]


def test_id_prefix_comes_first() -> None:
    index = LabelIndex(ENTRIES)
    assert [pid for pid, _ in index.suggest("icml2026-1")] == ["icml2026-1", "icml2026-12"]


def test_label_words_match_by_prefix_and_all_words_must_match() -> None:
    index = LabelIndex(ENTRIES)
    assert index.suggest("moe rout") == [ENTRIES[2]]
    assert index.suggest("elas") == [ENTRIES[1]]
    assert index.suggest("elastic routing") == []


def test_empty_text_lists_papers_and_limit_holds() -> None:
    index = LabelIndex(ENTRIES)
    assert index.suggest("", limit=2) == ENTRIES[:2]
    assert len(index.suggest("icml", limit=25)) == 3


@given(st.lists(st.text(max_size=6), max_size=20_000))
@settings(max_examples=30, deadline=None)
def test_sorted_in_slices_equals_sorted(items: list[str]) -> None:
    assert sorted_in_slices(items) == sorted(items)
