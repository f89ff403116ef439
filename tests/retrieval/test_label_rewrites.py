"""The labeler's speed rewrites match exactly what they replaced (issue 13: identical labels).

Each rewrite keeps a reference form here, and hypothesis compares the two on text built from
the pieces the patterns care about: words, type nouns, acronyms, brackets and punctuation.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval.labels import candidates, markup, names, phrases, salient

_PIECES = st.sampled_from(
    ["a", "an", "the", "our", "first", "popular", "novel", "framework", "model", "data set",
     "benchmark", "method", "LIFT", "Long", "Input", "Fine-Tuning", "x" * 35, "(", ")", ",", " ",
     " ", ":", "-", ".", "é", "_", "2"]
)  # fmt: skip
_TEXT = st.lists(_PIECES, max_size=14).map("".join)

# Patterns whose word runs became possessive ("[\w\-]{1,30}+"): a shorter run would end before
# a character of its own class, which the space, comma or bracket after it cannot match, so
# giving back characters never finds a match the possessive form misses.
_POSSESSIVE = [
    candidates._TYPED_DESCRIPTION,
    candidates._DATA_DESCRIPTION,
    names._ACRONYM_DEF,
    names._TYPE_THEN_NAME,
    names._OUR_NAME,
    names._APPOSITIVE_TYPE,
    salient._TYPED_APPOSITIVE,
    salient._KNOWN_APPOSITIVE,
]


@pytest.mark.parametrize("pattern", _POSSESSIVE, ids=lambda pattern: pattern.pattern[:30])
def test_possessive_runs_are_marked(pattern: re.Pattern[str]) -> None:
    assert "}+" in pattern.pattern


@given(_TEXT)
def test_possessive_runs_match_as_the_backtracking_forms(text: str) -> None:
    for pattern in _POSSESSIVE:
        reference = re.compile(pattern.pattern.replace("}+", "}"))
        for start in range(len(text) + 1):
            new, old = pattern.match(text, start), reference.match(text, start)
            assert (new and (new.span(), new.groups())) == (old and (old.span(), old.groups()))


@given(st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=40))
def test_the_ascii_markup_shortcut_agrees_on_any_ascii_text(text: str) -> None:
    assert markup._marked(text) == bool(markup._MARKUP_HINT.search(text))


@given(st.text(max_size=40) | st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=40))
def test_the_ascii_printable_shortcut_agrees_with_isprintable(text: str) -> None:
    assert markup._printable(text) == text.isprintable()


@given(
    st.text(alphabet=st.sampled_from("aZ9-+² _.é(x"), max_size=60)
    | st.text(max_size=60)
    | st.lists(_PIECES, max_size=14).map("".join)
)
def test_capitalised_words_are_scanned_as_finditer_would(text: str) -> None:
    text = text * 60  # past the 3,000 characters scanned
    found = [match.span() for match in salient._from_capitals(text)]
    assert found == [match.span() for match in salient._FROM_CAPITAL.finditer(text, 0, 3000)]


@given(st.text(max_size=40) | st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=40))
def test_junk_is_dropped_as_the_regex_drops_it(text: str) -> None:
    assert markup.without_junk(text) == markup._JUNK.sub("", text)


@given(
    st.lists(
        st.sampled_from(["this", "These", "IT", "it's", "its", "such", "_them", "ab0ve", "above"])
        | st.sampled_from([" ", "-", "(", "_", "x", "é", ".", "they", "aforementioned"]),
        max_size=12,
    ).map("".join)
    | st.text(max_size=30)
)
def test_back_references_are_found_where_the_regex_finds_them(text: str) -> None:
    found = phrases._REFERS.search(text)
    assert phrases.first_reference(text) == (found.start() if found else -1)
