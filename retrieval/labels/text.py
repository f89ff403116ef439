"""String primitives the label modules share: bounded substring scans and trimming to length.

Both stay cheap and never raise on any input: scans are capped, trimming works on any string.
"""

from __future__ import annotations

import re
import unicodedata

MAX_LABEL_CHARS = 90

# A cut label must not end on a word that promises more: 'a benchmark for the…'.
_DANGLING = frozenset(
    [
        "a", "an", "the", "of", "and", "or", "for", "to", "in", "on", "with", "by", "via", "from",
        "that", "which", "as", "at", "its", "their", "our", "this", "these", "is", "are", "we",
        "while", "whereas", "but", "into", "over", "under", "between", "among", "than", "using",
    ]
)  # fmt: skip
_DANGLING_END = " ,;:([-–—/&+"
# "tai- lored": a hyphen and a space inside a lower-case word, not "pre- and post-".
_LINE_HYPHEN = re.compile(r"(?<=[A-Za-z][a-z])- (?!(?:and|or|to|nor|vs)\b)(?=[a-z])")
# Punctuation a label may open with: quotes and brackets around its first words.
_OPENERS = "\"'“‘«([{"


def opens_with_punctuation(label: str) -> bool:
    """A comma, period, dash ... first ('“', '(' and '[' may open a label)."""
    return (
        bool(label) and unicodedata.category(label[0]).startswith("P") and label[0] not in _OPENERS
    )


def capitalised(label: str) -> str:
    """The label with its first letter capitalised, unless its first word is spelled with a
    capital inside ("νPI", "iDEM", "eCeLLM"): a coined name keeps its authors' spelling, and an
    upper-case Greek letter is another symbol."""
    # Only the first part of a compound: "text-to-3D", "top-K" still open with a capital.
    first = label.split(" ", 1)[0].split("-", 1)[0]
    if any(char.isupper() for char in first[1:]):
        return label
    return label[:1].upper() + label[1:]


def occurrences(text: str, needle: str) -> list[int]:
    """Where `needle` starts; the cap bounds the work that "we we we ..." could cause."""
    positions: list[int] = []
    position = text.find(needle)
    while position >= 0 and len(positions) < 50:
        positions.append(position)
        position = text.find(needle, position + 1)
    return positions


def fit(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    """Trim to `limit` characters on a word boundary, marking the cut with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    for _ in range(4):
        cut = cut.rstrip(_DANGLING_END)
        head, _, last = cut.rpartition(" ")
        if head and last.lower() in _DANGLING:
            cut = head
        else:
            break
    cut = cut.rstrip(_DANGLING_END) or text[: limit - 1]
    return f"{cut}…"


def unglued(text: str) -> str:
    """'path planning.It learns' -> 'path planning. It learns': a line break lost between
    sentences must not glue two words into one phrase; 'stream- line' -> 'streamline': nor may
    a word hyphenated at a line end stay cut ('pre- and post-training' stays)."""
    if "- " in text:
        text = _LINE_HYPHEN.sub("", text)
    position = text.find(".")
    while 0 <= position < len(text) - 2:
        if (
            text[position + 1].isupper()
            and text[position + 2].islower()
            and text[position - 2 : position].isalpha()
            and text[position - 2 : position].islower()
        ):
            text = f"{text[: position + 1]} {text[position + 1 :]}"
        position = text.find(".", position + 1)
    return text
