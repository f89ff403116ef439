"""Autocomplete over ids and label words."""

from __future__ import annotations

from retrieval.autocomplete import LabelIndex

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
