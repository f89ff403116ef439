"""Bitmaps of the documents holding each of the most frequent terms, one per snapshot.

A ranking reports how many papers match (the union of the query's postings lists). Counting that
by walking a list of "model" or "learning" costs a pass over hundreds of thousands of postings at
1M papers, which is what the top-k pruning saves when it skips scoring such a list. A term held
by at least 1/16 of the documents gets a bitmap instead: OR-ing it costs N/64 word operations,
fewer than the list's postings. They are built once per snapshot, off the answer path when the
engine warms a new snapshot (questions use them once they are there), and hold at most
MAX_BYTES.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from retrieval import compiled

# A term in at least this share of the documents gets a bitmap (N/8 bytes, at most 2x its
# postings' document numbers).
MIN_SHARE = 1 / 16
# Below this many documents a walk is as cheap as an OR and nothing is built.
MIN_DOCUMENTS = 4096
# Memory bound per snapshot; the most frequent terms come first (~37 MB at 1M abstracts).
MAX_BYTES = 64 << 20


@dataclass(frozen=True, slots=True)
class DenseBits:
    """`words[row_of[term]]`: the term's documents as bits (bit d % 64 of word d // 64)."""

    row_of: npt.NDArray[np.int32]  # per term number; -1 for a term without a bitmap
    words: npt.NDArray[np.uint64]  # rows x words_for(size)


def words_for(size: int) -> int:
    """64-bit words of a bitmap over `size` documents."""
    return (size + 63) // 64


def dense_bits(index: Any) -> DenseBits:
    """The bitmaps of `index` (a BM25Index), built on first use and kept with the index."""
    with _lock:
        found = _built.get(index)
    if found is not None:
        return found
    with _building:
        with _lock:
            found = _built.get(index)
        if found is None:
            found = build(index.offsets, index.postings_docs, index.size)
            with _lock:
                _built[index] = found
    return found


def built(index: Any) -> DenseBits | None:
    """The bitmaps of `index` if they were built, without waiting: a question asked while the
    warm-up builds them (seconds at 1M papers) counts its matches without them."""
    with _lock:
        return _built.get(index)


def build(offsets: Any, postings_docs: Any, size: int) -> DenseBits:
    """Bitmaps of the terms held by at least MIN_SHARE of `size` documents, within MAX_BYTES."""
    frequencies = np.diff(np.asarray(offsets))
    row_of = np.full(len(frequencies), -1, dtype=np.int32)
    width = words_for(size)
    if size < MIN_DOCUMENTS:
        return DenseBits(row_of, np.zeros((0, width), dtype=np.uint64))
    frequent = np.flatnonzero(frequencies >= MIN_SHARE * size)
    frequent = frequent[np.argsort(-frequencies[frequent], kind="stable")]
    frequent = frequent[: MAX_BYTES // (8 * width)]
    words = np.zeros((len(frequent), width), dtype=np.uint64)
    row_of[frequent] = np.arange(len(frequent), dtype=np.int32)
    fill = _compiled_fill()
    starts = np.asarray(offsets)[frequent].astype(np.int64)
    ends = np.asarray(offsets)[frequent + 1].astype(np.int64)
    if fill is None:  # pragma: no cover - numpy fallback, the same bits
        for row, (start, end) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
            held = np.zeros(8 * 8 * width, dtype=np.bool_)
            held[np.asarray(postings_docs[start:end])] = True
            words[row] = np.packbits(held, bitorder="little").view(np.uint64)
    else:
        fill(np.asarray(postings_docs), starts, ends, words.view(np.uint8))
    return DenseBits(row_of, words)


def _fill(postings_docs: Any, starts: Any, ends: Any, rows: Any) -> None:
    for row in range(len(starts)):
        for p in range(starts[row], ends[row]):
            d = postings_docs[p]
            rows[row, d >> 3] |= np.uint8(1 << (d & 7))


_compiled_fill = compiled.compile_lazily(_fill)
_built: weakref.WeakKeyDictionary[Any, DenseBits] = weakref.WeakKeyDictionary()
_lock = threading.Lock()
_building = threading.Lock()  # one build at a time: a second caller waits, then reuses it
