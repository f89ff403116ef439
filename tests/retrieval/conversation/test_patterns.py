"""The chat rules are data: each matches its own examples, and the lists stay consistent."""

from __future__ import annotations

import pytest

from retrieval.conversation import patterns
from retrieval.conversation.intents import fold

RULES = [value for value in vars(patterns).values() if isinstance(value, patterns.Rule)]


def test_every_rule_has_examples() -> None:
    assert len(RULES) >= 3
    assert all(rule.examples for rule in RULES)


@pytest.mark.parametrize("rule", RULES, ids=[rule.name for rule in RULES])
def test_rule_matches_its_examples(rule: patterns.Rule) -> None:
    missed = [example for example in rule.examples if not rule.pattern.fullmatch(fold(example))]
    assert missed == []


def test_ordinals_are_lowercase_and_positions_in_range() -> None:
    assert all(word == word.lower() for word in patterns.ORDINALS)
    assert patterns.ORDINALS["first"] == 0
    assert patterns.ORDINALS["last"] == -1
    assert all(-2 <= index <= 9 for index in patterns.ORDINALS.values())


def test_known_venues_are_folded_letters() -> None:
    assert all(venue.isalpha() and venue == venue.lower() for venue in patterns.KNOWN_VENUES)
    assert {"icml", "iclr", "neurips", "acl", "cvpr"} <= patterns.KNOWN_VENUES


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("  Thanks!! ", "thanks"),
        ("please show #2 please", "show #2"),
        ("OK, more", "more"),
        ("#3", "#3"),
        ("...hi?", "hi"),
    ],
)
def test_fold(text: str, folded: str) -> None:
    assert fold(text) == folded
