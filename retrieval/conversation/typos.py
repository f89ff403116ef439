"""Misspelled chat words back to the word: "the frist one", "whats the main reslt".

Only the closed vocabulary the conversation's rules read (ordinals, what a question asks for,
"paper") and, for refines, venue names; never a topic word, which the search's own spelling
suggestions handle. A typo is one swap of adjacent letters, one doubled letter, or one dropped
letter in a word of six letters or more, so short words stay as typed ("tent" is not "tenth").
"""

from __future__ import annotations

import re

from retrieval.conversation.patterns import ORDINALS

CHAT_WORDS = (
    *(word for word in ORDINALS if word.isalpha()),
    "result",
    "results",
    "method",
    "methods",
    "dataset",
    "datasets",
    "compare",
    "similar",
    "limitations",
    "problem",
    "abstract",
    "paper",
    "papers",
)
VENUES = ("iclr", "icml", "neurips")
# Typos that are words in their own right: left as typed.
_REAL_WORDS = frozenset({"forth", "eight", "limitation", "imitations"})
_LOWER_WORD = re.compile(r"\b[a-z]{4,}\b")


def _typos(words: tuple[str, ...]) -> dict[str, str]:
    found: dict[str, str] = {}
    for word in words:
        variants = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
        variants |= {word[: i + 1] + word[i:] for i in range(len(word))}  # a doubled letter
        if len(word) >= 6:
            variants |= {word[:i] + word[i + 1 :] for i in range(len(word))}
        for variant in variants - set(words) - _REAL_WORDS:
            found.setdefault(variant, word)
    return found


_CHAT_TYPOS = _typos(CHAT_WORDS)
_VENUE_TYPOS = _typos(VENUES)


def _fixed(text: str, typos: dict[str, str]) -> str:
    # Lowercase words only: "ICRL" written in capitals is an acronym, not a slip.
    return _LOWER_WORD.sub(lambda match: typos.get(match.group(0), match.group(0)), text)


def chat_words_fixed(text: str) -> str:
    """`text` with misspelled ordinals and question words spelled right."""
    return _fixed(text, _CHAT_TYPOS)


def venues_fixed(text: str) -> str:
    """`text` with misspelled venue names spelled right ("same but for icrl")."""
    return _fixed(text, _VENUE_TYPOS)
