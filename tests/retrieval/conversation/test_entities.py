"""What a message points at: papers by id, number, ordinal, range or relation; collections."""

from __future__ import annotations

import pytest

from retrieval.conversation.entities import named_collections, pointed_at, question_words
from retrieval.conversation.model import FocusRef, IdRef, PositionRef, Ref, RelativeRef
from tests.retrieval.conversation.conftest import COLLECTIONS

SLUGS = frozenset(collection.slug for collection in COLLECTIONS)


@pytest.mark.parametrize(
    ("text", "refs"),
    [
        ("1 vs 2", (PositionRef(0), PositionRef(1))),
        ("which is better, the first or the second?", (PositionRef(0), PositionRef(1))),
        ("compair 1 and 2", (PositionRef(0), PositionRef(1))),
        ("compare the first two", (PositionRef(0, 2),)),
        ("compare both", (PositionRef(0, 2),)),
        ("open the last two", (PositionRef(-2, 2),)),
        ("and the one before that?", (RelativeRef(-1),)),
        ("what about number three", (PositionRef(2),)),
        ("the top result", (PositionRef(0),)),
        ("show 4-6", (PositionRef(3, 3),)),
        ("pull up icml2026 13", (IdRef("icml2026-13"),)),
        ("shwo icml2026-07", (IdRef("icml2026-7"),)),
        ("how does icml2024-5 differ from #3", (IdRef("icml2024-5"), PositionRef(2))),
        ("does it have code?", (FocusRef(),)),
    ],
)
def test_references_in_any_phrasing(text: str, refs: tuple[Ref, ...]) -> None:
    assert pointed_at(text, SLUGS, loose=True) == refs


def test_strict_reading_leaves_numbers_in_searches_alone() -> None:
    assert pointed_at("top 10 tricks for 3d vision in 2 steps", SLUGS, loose=False) == ()


@pytest.mark.parametrize(
    "text", ["how much better than RepQ-ViT at 4 bit", "does it fit on 8 GPUs", "with 3 layers?"]
)
def test_a_number_with_a_unit_is_a_quantity_not_a_position(text: str) -> None:
    assert pointed_at(text, SLUGS, loose=True) == ()
    assert pointed_at("compare 1 and 2 on 8 GPUs", SLUGS, loose=True) == (
        PositionRef(0),
        PositionRef(1),
    )


@pytest.mark.parametrize(
    ("text", "slugs"),
    [
        ("same but for iclr", "iclr2024"),
        ("and in icml 24?", "icml2024"),
        ("what about NeurIPS", "neurips2023"),
        ("nips papers", "neurips2023"),
        ("only ICML", "icml2026,icml2024"),
        ("ICML'26 please", "icml2026"),
    ],
)
def test_collections_by_venue_with_or_without_a_year(text: str, slugs: str) -> None:
    found = named_collections(text, COLLECTIONS)
    assert found is not None and found[0] == slugs


def test_a_venue_that_is_not_loaded_or_inside_query_syntax_is_no_filter() -> None:
    assert named_collections("cvpr papers", COLLECTIONS) is None
    text = 'in:"ICML 2026" moe'
    assert named_collections(text, COLLECTIONS, [(0, 15)]) is None


def test_question_words_drop_references_and_filler() -> None:
    assert question_words("can you tell me what dataset icml2026-6 uses?", SLUGS) == (
        "what dataset uses"
    )
