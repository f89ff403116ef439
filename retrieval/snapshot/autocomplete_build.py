"""Building the autocomplete arrays from a paper table, in bulk and in bounded GIL holds.

Papers are read a slice at a time, as the table's UTF-8 bytes (no string per paper). An ASCII
label or id (most of them) is folded by one numpy table lookup over the whole slice (NFKC leaves
ASCII alone and casefold lowers it; every non-word byte becomes a space) and split in C; the
others are decoded together, folded as `autocomplete.words` folds them, and split where `WORD`
does not match. Each distinct word gets a number in one dict (`setdefault` mapped over a slice,
in C); the distinct words are ordered by their UTF-8 bytes with numpy, and the (word, document)
pairs deduplicated and grouped by one numpy sort of int64 keys. Slices keep each hold of the
GIL short, so a serving process that builds while catching up keeps answering.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import numpy.typing as npt

from retrieval.snapshot.autocomplete import WORD, Autocomplete, fold
from retrieval.snapshot.papers import PaperTable

_SLICE = 8192
_SPACE = ord(" ")
# An ASCII byte as `words` sees it: a word character lowered, any other a space. Bytes of
# non-ASCII characters are left alone: texts holding them are read by `_folded_words`.
_ASCII_FOLD = np.array(
    [
        ord(chr(byte).lower()) if byte < 128 and WORD.fullmatch(chr(byte)) else _SPACE
        for byte in range(128)
    ]
    + list(range(128, 256)),
    dtype=np.uint8,
)
# Words are ordered by this many leading bytes with numpy; only words sharing them are then
# ordered in Python (long words with a common start: few).
_KEY_BYTES = 16


def build_autocomplete(papers: PaperTable) -> Autocomplete:
    """The autocomplete structure of `papers` (not saved; see `Autocomplete.save`)."""
    return Autocomplete(_arrays(papers), papers)


def _arrays(papers: PaperTable) -> dict[str, npt.NDArray[Any]]:
    size = len(papers)
    # word -> the counter's value when it was first seen: `setdefault` mapped over a slice's
    # words runs in C; the values are made dense below.
    first_seen: dict[bytes, int] = {}
    counter = itertools.count()
    codes: list[npt.NDArray[np.int64]] = []
    docs: list[npt.NDArray[np.int64]] = []
    for start in range(0, size, _SLICE):
        stop = min(start + _SLICE, size)
        # A paper's words: its label's, then its id's ("icml2026-7" -> icml2026, 7).
        for raw, offsets in (papers.label_bytes(start, stop), papers.id_bytes(start, stop)):
            found, texts = _words_of(raw, offsets)
            codes.append(
                np.fromiter(map(first_seen.setdefault, found, counter), np.int64, len(found))
            )
            docs.append(start + texts)
    distinct = list(first_seen)
    dense = np.zeros(next(counter), dtype=np.int64)
    dense[np.fromiter(first_seen.values(), np.int64, len(distinct))] = np.arange(len(distinct))
    del first_seen
    rank = np.empty(len(distinct), dtype=np.int64)
    order = _byte_order(distinct)
    rank[order] = np.arange(len(distinct))
    # One sort groups the pairs by word, documents ascending within a word; repeats are dropped.
    pairs = np.sort(rank[dense[_joined(codes)]] * max(size, 1) + _joined(docs))
    pairs = pairs[np.diff(pairs, prepend=-1) != 0]
    doc_offsets = np.zeros(len(distinct) + 1, dtype=np.int64)
    np.cumsum(np.bincount(pairs // max(size, 1), minlength=len(distinct)), out=doc_offsets[1:])
    ordered = [distinct[number] for number in order.tolist()]
    word_offsets = np.zeros(len(ordered) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, ordered), np.int64, len(ordered)), out=word_offsets[1:])
    return {
        "words": np.frombuffer(b"".join(ordered), dtype=np.uint8),
        "word_offsets": word_offsets,
        "doc_offsets": doc_offsets,
        "docs": (pairs % max(size, 1)).astype(np.int32),
    }


def _words_of(
    raw: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]
) -> tuple[list[bytes], npt.NDArray[np.int64]]:
    """Every word (UTF-8, repeats included) of the texts given as their bytes and offsets, and
    the number of the text each word is in."""
    starts, lengths = offsets[:-1], np.diff(offsets)
    high = np.concatenate(([0], np.cumsum(raw >= 128, dtype=np.int64)))
    others = np.flatnonzero(high[offsets[1:]] > high[starts])
    folded = _ASCII_FOLD[raw]
    # Texts with non-ASCII characters are blanked here and read by `_folded_words`.
    folded[np.repeat(high[offsets[1:]] > high[starts], lengths)] = _SPACE
    found, texts = _split(np.insert(folded, starts, 0))
    if len(others):
        more, their_texts = _folded_words(raw, offsets, others)
        found += more
        texts = np.concatenate((texts, others[their_texts]))
    return found, texts


def _split(marked: npt.NDArray[np.uint8]) -> tuple[list[bytes], npt.NDArray[np.int64]]:
    """The words of texts given as folded bytes, each text after a NUL, spaces between words:
    the words in one C call, the text of each from where the words start (numpy)."""
    is_text_start = marked == 0
    in_word = ~is_text_start & (marked != _SPACE)
    word_starts = np.flatnonzero(in_word & ~np.concatenate(([False], in_word[:-1])))
    texts = np.cumsum(is_text_start)[word_starts] - 1
    found = marked.tobytes().replace(b"\0", b" ").split()
    if len(found) != len(texts):  # only ASCII spaces separate words: a broken invariant
        raise AssertionError("autocomplete: words and their starts disagree")
    return found, texts.astype(np.int64)


def _folded_words(
    raw: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64], numbers: npt.NDArray[np.intp]
) -> tuple[list[bytes], npt.NDArray[np.int64]]:
    """`words` of the texts `numbers` (UTF-8), all folded in one call, and the position in
    `numbers` of the text of each word. NUL is a character that NFKC and casefold leave alone
    and that composes with nothing, so folding the texts joined by NULs equals joining the
    folded texts. A NUL inside a text becomes a space first (neither is a word character, both
    stay as they are)."""
    clean = np.where(raw == 0, _SPACE, raw).astype(np.uint8)
    joined = b"".join(b"\0" + clean[offsets[n] : offsets[n + 1]].tobytes() for n in numbers)
    marked = fold(joined.decode("utf-8")).translate(_WORD_CHARACTERS).encode("utf-8")
    return _split(np.frombuffer(marked, dtype=np.uint8))


class _WordCharacters(dict[int, str]):
    """For `str.translate` over folded text: a word character stays, NUL (the separator) stays,
    anything else becomes a space. Each character is tested against `WORD` once."""

    def __missing__(self, code: int) -> str:
        character = chr(code)
        value = self[code] = character if code == 0 or WORD.fullmatch(character) else " "
        return value


_WORD_CHARACTERS = _WordCharacters()


def _byte_order(values: list[bytes]) -> npt.NDArray[np.int64]:
    """The permutation that sorts distinct `values` by their bytes."""
    keys = np.array(values, dtype=f"S{_KEY_BYTES}") if values else np.zeros(0, f"S{_KEY_BYTES}")
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    # Runs of equal leading bytes (only words longer than the key can tie): order by all bytes.
    ties = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    for start, stop in _runs(ties):
        run = order[start : stop + 1]
        order[start : stop + 1] = sorted(run.tolist(), key=values.__getitem__)
    return order.astype(np.int64)


def _runs(ties: npt.NDArray[np.intp]) -> list[tuple[int, int]]:
    """(first, last) positions of each run of equal neighbours, from the positions `i` where
    item i equals item i + 1."""
    runs: list[tuple[int, int]] = []
    for position in ties.tolist():
        if runs and runs[-1][1] == position:
            runs[-1] = (runs[-1][0], position + 1)
        else:
            runs.append((position, position + 1))
    return runs


def _joined(parts: list[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
