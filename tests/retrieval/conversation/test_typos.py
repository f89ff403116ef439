"""Misspelled chat words: fixed when they are slips of the closed vocabulary, never otherwise."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from retrieval.conversation.typos import CHAT_WORDS, chat_words_fixed, venues_fixed


def test_swaps_and_dropped_letters_are_fixed() -> None:
    assert chat_words_fixed("the frist one") == "the first one"
    assert chat_words_fixed("secon one pls") == "second one pls"
    assert chat_words_fixed("whats the main reslt") == "whats the main result"
    assert venues_fixed("same but for icrl") == "same but for iclr"
    assert venues_fixed("iclrr pls") == "iclr pls"  # a doubled letter
    assert chat_words_fixed("the secondd one") == "the second one"


def test_words_short_capitalised_or_real_are_left_alone() -> None:
    # "tent" would be tenth less a letter, but only words of six letters or more lose one;
    # "forth" and "eight" are words; capitals are an acronym.
    for text in ("the tent one", "back and forth", "eight papers", "FRIST", "ICRL"):
        assert chat_words_fixed(venues_fixed(text)) == text


@given(st.sampled_from(CHAT_WORDS), st.text(alphabet=" .,?!", max_size=3))
def test_a_word_spelled_right_is_never_changed(word: str, tail: str) -> None:
    assert chat_words_fixed(f"the {word}{tail}") == f"the {word}{tail}"
