"""Query syntax: phrases, exclusions, collection filters."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from retrieval.query import parse_query


def test_operators_are_split_from_free_text() -> None:
    parsed = parse_query('which papers attack "RAG retrievers" -survey in:icml2026')
    assert parsed.text == "which papers attack RAG retrievers"
    assert parsed.phrases == ("RAG retrievers",)
    assert parsed.excluded == ("survey",)
    assert parsed.collections == ("icml2026",)


def test_quoted_collection_and_exclusion() -> None:
    parsed = parse_query('in:"ICML 2026" moe -"load balancing"')
    assert parsed.collections == ("ICML 2026",)
    assert parsed.excluded == ("load balancing",)
    assert parsed.text == "moe"


def test_hyphenated_words_are_not_exclusions() -> None:
    parsed = parse_query("pre-training e-commerce")
    assert parsed.excluded == ()
    assert parsed.text == "pre-training e-commerce"


def test_typographic_quotes_make_phrases() -> None:
    assert parse_query("“mixture of experts”").phrases == ("mixture of experts",)


def test_unbalanced_quote_is_plain_text() -> None:
    parsed = parse_query('"unterminated quote')
    assert parsed.phrases == ()
    assert parsed.text == "unterminated quote"


@given(st.text(max_size=300))
def test_any_text_parses(text: str) -> None:
    parsed = parse_query(text)
    assert '"' not in parsed.text
    assert all(len(phrase) <= 300 for phrase in parsed.phrases)
