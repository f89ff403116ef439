"""Autocomplete over paper ids and label words, as flat arrays memory-mapped beside the index.

The label words of every paper (its label's words and its id's parts, NFKC + casefold: `words`;
'icml2026-7' holds icml2026 and 7) are kept
as the sorted distinct words (a UTF-8 blob + offsets) and, per word, the ascending documents
that hold it (one flat array; CSR). A prefix is a contiguous range of sorted words, found by
bisection; ids starting with the text come from the paper table's `sorted_ids`. Opening maps the
files: no per-paper Python objects, and every process maps the same pages. Built by
`autocomplete_build`, saved and loaded through `index_files` (stamped, atomic, rebuilt when
stale or damaged).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from retrieval.snapshot import files as index_files
from retrieval.snapshot.papers import PaperTable

# Bump when the words or the file layout change: saved files of another version are rebuilt.
VERSION = 1
WORD = re.compile(r"[^\W_]+", re.UNICODE)
ARRAYS = ("words", "word_offsets", "doc_offsets", "docs")
IntArray = npt.NDArray[np.int64]
# A word range's postings longer than 1/this of the corpus are merged through a bitmap (linear in
# the corpus) rather than sorted (n log n); below it, sorting the few postings is cheaper.
_BITMAP_SHARE = 64


def fold(text: str) -> str:
    """The form words are compared in: compatibility-normalized and case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def words(text: str) -> list[str]:
    """The words of `text` as autocomplete matches them (letters and digits, folded)."""
    return WORD.findall(fold(text))


class _SortedWords:
    """The i-th sorted word as UTF-8 bytes, for `bisect` (no list of a million words)."""

    def __init__(self, blob: npt.NDArray[np.uint8], offsets: IntArray) -> None:
        self._blob = np.ascontiguousarray(blob).data
        self._offsets = np.ascontiguousarray(offsets, dtype=np.int64).data

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, number: int) -> bytes:
        return bytes(self._blob[self._offsets[number] : self._offsets[number + 1]])


class Autocomplete:
    """Prefix lookups over the paper table's ids and the papers' label words."""

    def __init__(self, arrays: dict[str, npt.NDArray[Any]], papers: PaperTable) -> None:
        self.papers = papers
        self._words = _SortedWords(arrays["words"], arrays["word_offsets"])
        self._doc_offsets = np.ascontiguousarray(arrays["doc_offsets"], np.int64).data
        self._docs: npt.NDArray[np.int32] = arrays["docs"]
        self._arrays = arrays

    # -- lookups ---------------------------------------------------------------------------

    def suggest(self, text: str, limit: int = 25) -> list[tuple[str, str]]:
        """Up to `limit` (id, label) pairs: ids starting with the text first (in document
        order), then papers whose words start with every typed word (in document order)."""
        text = text.strip()
        if not text:
            return self.papers.entries(0, limit)
        by_id, id_count = self._ids_starting(text.lower(), limit)
        if id_count >= limit:
            return [self.papers.entry(doc) for doc in by_id.tolist()]
        # Fewer than `limit` ids match, so all of them are in `by_id`; the label matches that
        # are not among them follow. The first `limit` label matches hold enough of those.
        by_label = self._docs_with_words(words(text), limit)[:limit]
        rest = by_label[~np.isin(by_label, by_id)][: limit - id_count]
        return [self.papers.entry(doc) for doc in [*by_id.tolist(), *rest.tolist()]]

    def _ids_starting(self, prefix: str, limit: int) -> tuple[IntArray, int]:
        """The first `limit` documents (ascending) whose id starts with `prefix`, and how many
        there are. Ids are lowercase by construction (`ids.paper_id`), so the table's sorted
        ids are the lowercased ids the prefix is compared with."""
        found = _prefix_range(self.papers.sorted_ids, prefix)
        if found is None:
            return np.zeros(0, np.int64), 0
        start, stop = found
        docs = np.asarray(self.papers.id_order[start:stop], dtype=np.int64)
        return _smallest(docs, limit), stop - start

    def _docs_with_words(self, typed: list[str], limit: int) -> IntArray:
        """Documents (ascending) holding, for every typed word, a word that starts with it; for
        one typed word, only the first `limit` of them."""
        if not typed:
            return np.zeros(0, np.int64)
        if len(typed) == 1:
            return self._first_docs(*self._word_range(typed[0]), limit)
        postings = []
        for word in typed:
            start, stop = self._word_range(word)
            low, high = self._doc_offsets[start], self._doc_offsets[stop]
            if low == high:
                return np.zeros(0, np.int64)
            postings.append((self._docs[low:high], stop - start == 1))
        postings.sort(key=lambda found: len(found[0]))  # the rarest first: candidates only shrink
        found = self._distinct(*postings[0])
        for more, _ in postings[1:]:
            if not len(found):
                break
            # Membership through a bitmap: linear in the postings, where `np.isin` sorts them
            # (a common word's prefix spans millions of postings at a million papers).
            present = np.zeros(len(self.papers), dtype=np.bool_)
            present[more] = True
            found = found[present[found]]
        return found

    def _first_docs(self, start: int, stop: int, limit: int) -> IntArray:
        """The first `limit` distinct documents of the postings of words start..stop-1.

        Each word's postings ascend, so those documents are among the first `limit` postings
        of each word: a short prefix ("a") reads a few postings per word, not the millions of
        its range (time, and pages of the mapped file)."""
        offsets = np.frombuffer(self._doc_offsets, np.int64)[start : stop + 1]
        firsts, counts = offsets[:-1], np.minimum(np.diff(offsets), limit)
        # Positions firsts[w] + 0..counts[w]-1 for every word w, without a Python loop.
        within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        heads = self._docs[np.repeat(firsts, counts) + within]
        return self._distinct(heads, stop - start == 1)[:limit]

    def _word_range(self, word: str) -> tuple[int, int]:
        """The sorted words starting with `word`: one contiguous range."""
        prefix = word.encode("utf-8")  # `words` never yields a lone surrogate
        start = bisect.bisect_left(self._words, prefix)
        # UTF-8 has no 0xFF byte: every word starting with `prefix` sorts below prefix + 0xFF,
        # every other word at or after `start` sorts above it.
        return start, bisect.bisect_left(self._words, prefix + b"\xff", start)

    def _distinct(self, docs: npt.NDArray[np.int32], single_word: bool) -> IntArray:
        """The distinct documents of several words' postings, ascending."""
        if single_word:
            return docs.astype(np.int64)  # one word's postings: already distinct and ascending
        if len(docs) * _BITMAP_SHARE < len(self.papers):
            ordered = np.sort(docs).astype(np.int64)  # (np.unique hashes: slower here)
            distinct: IntArray = ordered[np.diff(ordered, prepend=-1) != 0]
            return distinct
        present = np.zeros(len(self.papers), dtype=np.bool_)
        present[docs] = True
        return np.flatnonzero(present).astype(np.int64)

    # -- files -----------------------------------------------------------------------------

    def save(self, path: Path, stamp: dict[str, Any]) -> None:
        """Write the directory `path` atomically (see index_files)."""
        index_files.write(path, self._arrays, [], _file_stamp(stamp, self.papers))

    @classmethod
    def load(cls, path: Path, stamp: dict[str, Any], papers: PaperTable) -> Autocomplete | None:
        """The saved structure, mapped, if written for `stamp` over `papers`' documents and
        whole; None if missing, stale, truncated or inconsistent: the caller rebuilds it."""
        found = index_files.read(path, _file_stamp(stamp, papers))
        if found is None or set(found[0]) != set(ARRAYS):
            return None
        arrays = found[0]
        words_count = len(arrays["word_offsets"]) - 1
        consistent = (
            words_count >= 0
            and arrays["doc_offsets"].shape == (words_count + 1,)
            and int(arrays["word_offsets"][-1]) == len(arrays["words"])
            and int(arrays["doc_offsets"][-1]) == len(arrays["docs"])
        )
        return cls(arrays, papers) if consistent else None


def _file_stamp(stamp: dict[str, Any], papers: PaperTable) -> dict[str, Any]:
    return {**stamp, "autocomplete": VERSION, "documents": len(papers)}


def _prefix_range(sorted_values: npt.NDArray[np.bytes_], prefix: str) -> tuple[int, int] | None:
    """The range of fixed-width `sorted_values` that start with `prefix`, or None if none can."""
    try:
        wanted = prefix.encode("utf-8")
    except UnicodeEncodeError:
        return None  # a lone surrogate: no stored value (valid UTF-8) starts with it
    width = sorted_values.dtype.itemsize
    if len(wanted) > width or b"\0" in wanted:
        return None  # longer than any stored value, or a byte no stored value holds
    # Keys of the array's own width: a wider key would make numpy copy the whole array.
    start = int(np.searchsorted(sorted_values, np.array(wanted, dtype=sorted_values.dtype)))
    if len(wanted) == width:
        stop = int(
            np.searchsorted(sorted_values, np.array(wanted, sorted_values.dtype), side="right")
        )
    else:
        stop = int(np.searchsorted(sorted_values, np.array(wanted + b"\xff", sorted_values.dtype)))
    return (start, stop) if start < stop else None


def _smallest(values: IntArray, count: int) -> IntArray:
    """The `count` smallest of distinct `values`, ascending."""
    if len(values) > count > 0:
        values = np.partition(values, count - 1)[:count]
    return np.sort(values)[: max(count, 0)]
