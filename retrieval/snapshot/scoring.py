"""Eager BM25 scoring over the impact matrix: sum the query's columns, keep the best k.

The matrix (`BM25Index`) stores each term's column as postings (document numbers ascending)
with precomputed float32 impacts. A query adds its weighted columns into a per-thread float64
score array in one compiled pass, which also lists the documents it touches (their number is
the ranking's total) and marks in a bit per column which terms each holds (documents holding
every one: `total_all`). The best k are selected among the touched documents with a partition.

An acronym alternative (`Credit`) credits each paper holding the other form with
max(weight x other - written, 0), so the paper scores the better of the two forms: the other
form's columns go into a second scratch array, and the written form's score of just those
papers is subtracted (a long written column is searched rather than walked). A paper holding
the whole other form counts as holding the written words. Ties: score descending, then document
ascending.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from retrieval.snapshot.compiled import kernel, readonly

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

Columns = Sequence[tuple[int, float]]  # (term number, weight)
# Columns with a bit of their own for `total_all`; bit 63 marks a touched document.
MAX_COUNTED = 62
_SEEN = np.uint64(1 << 63)


@dataclass(frozen=True, slots=True)
class Credit:
    """An acronym alternative: the other form's term numbers at `weight`, the written form's;
    `complete` is False when the corpus lacks some other-form word (none holds it whole)."""

    other: tuple[int, ...]
    written: tuple[int, ...]
    weight: float
    complete: bool = True


@dataclass(frozen=True, slots=True)
class TopK:
    docs: IntArray
    scores: FloatArray
    total: int  # documents holding any column's term (or an other form), allowed by the mask
    # Of those, documents holding every column's term (the other form of a credit standing for
    # its written words); None with more than MAX_COUNTED columns.
    total_all: int | None = None


@kernel
def _add(
    offsets: Any,
    postings: Any,
    impacts: Any,
    terms: Any,
    weights: Any,
    scores: Any,
    bits: Any,
    touched: Any,
    count: int,
) -> int:
    for t in range(len(terms)):
        weight = weights[t]
        bit = np.uint64(1 << 63)
        if t < 62:
            bit |= np.uint64(1 << t)
        for p in range(offsets[terms[t]], offsets[terms[t] + 1]):
            doc = postings[p]
            scores[doc] += weight * impacts[p]
            if bits[doc] == 0:
                touched[count] = doc
                count += 1
            bits[doc] |= bit
    return count


@kernel
def _fold(
    offsets: Any,
    postings: Any,
    impacts: Any,
    written: Any,
    credit: Any,
    credit_bits: Any,
    credit_touched: Any,
    n: int,
    whole_other: Any,
    written_bits: Any,
    scores: Any,
    bits: Any,
    touched: Any,
    count: int,
) -> int:
    # The written form's score of the n papers: a short column is walked, a long one searched.
    searched = np.zeros(len(written), dtype=np.bool_)
    for w in range(len(written)):
        start, end = offsets[written[w]], offsets[written[w] + 1]
        if end - start > 16 * n:
            searched[w] = True
            continue
        for p in range(start, end):
            if credit_bits[postings[p]] != 0:
                credit[postings[p]] -= impacts[p]
    for i in range(n):
        doc = credit_touched[i]
        held = 0.0
        for w in range(len(written)):
            if not searched[w]:
                continue
            start, end = offsets[written[w]], offsets[written[w] + 1]
            p = start + np.searchsorted(postings[start:end], doc)
            if p < end and postings[p] == doc:
                held += impacts[p]
        if credit[doc] - held > 0:
            scores[doc] += credit[doc] - held
        if bits[doc] == 0:
            touched[count] = doc
            count += 1
        bits[doc] |= np.uint64(1 << 63)
        if credit_bits[doc] == whole_other:
            bits[doc] |= written_bits
        credit[doc] = 0.0
        credit_bits[doc] = 0
    return count


@kernel
def _collect(
    scores: Any,
    bits: Any,
    touched: Any,
    count: int,
    mask: Any,
    use_mask: bool,
    every: Any,
    docs: Any,
    values: Any,
) -> tuple[int, int]:
    n = 0
    with_every = 0
    for i in range(count):
        doc = touched[i]
        if not use_mask or mask[doc]:
            docs[n] = doc
            values[n] = scores[doc]
            n += 1
            if (bits[doc] & every) == every:
                with_every += 1
        scores[doc] = 0.0
        bits[doc] = 0
    return n, with_every


class _Scratch(threading.local):
    """Per thread: score and bit arrays over every document, kept zero between queries (a
    query clears only what it touched)."""

    def __init__(self) -> None:
        self.arrays: dict[str, Any] = {}

    def get(self, name: str, size: int) -> tuple[Any, Any, Any]:
        found = self.arrays.get(name)
        if found is None or len(found[0]) < size:
            found = (
                np.zeros(size, dtype=np.float64),
                np.zeros(size, dtype=np.uint64),
                np.empty(size, dtype=np.int32),
            )
            self.arrays[name] = found
        return found


_scratch = _Scratch()
_NO_MASK = readonly(np.zeros(0, dtype=np.bool_))


def top_k(
    index: Any,
    columns: Columns,
    k: int,
    mask: BoolArray | None = None,
    credits: Sequence[Credit] = (),
) -> TopK:
    """The k best documents of `index` (a BM25Index) for weighted columns plus credits."""
    size = index.size
    scores, bits, touched = _scratch.get("scores", size)
    offsets, postings, impacts = index.kernel_arrays
    terms, weights = _arrays(columns)
    count = _add(offsets, postings, impacts, terms, weights, scores, bits, touched, 0)
    place = {term: t for t, (term, _) in enumerate(columns) if t < MAX_COUNTED}
    for credit in credits:
        value, value_bits, listed = _scratch.get("credit", size)
        other = np.array(credit.other, dtype=np.int64)
        weight = np.full(len(other), credit.weight, dtype=np.float64)
        n = _add(offsets, postings, impacts, other, weight, value, value_bits, listed, 0)
        whole = _bits(range(min(len(other), MAX_COUNTED)))
        written_bits = _bits(place[term] for term in credit.written if term in place)
        if not credit.complete:
            whole = np.uint64(0)  # no paper holds every other-form word
        written = np.array(credit.written, dtype=np.int64)
        count = _fold(
            offsets, postings, impacts, written, value, value_bits, listed, n, whole,
            written_bits, scores, bits, touched, count,
        )  # fmt: skip
    docs = np.empty(count, dtype=np.int32)
    values = np.empty(count, dtype=np.float64)
    flags = _NO_MASK if mask is None else readonly(mask)
    every = _bits(range(len(columns)))
    total, with_every = _collect(
        scores, bits, touched, count, flags, mask is not None, every, docs, values
    )
    found = best(docs[:total], values[:total], k)
    counted = len(columns) <= MAX_COUNTED
    return TopK(found.docs, found.scores, total, with_every if counted else None)


def best(docs: npt.NDArray[Any], values: FloatArray, k: int) -> TopK:
    """The k best of candidate `docs` with `values`, score descending then document ascending."""
    total = len(docs)
    if k <= 0 or total == 0:
        return TopK(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64), total)
    if total > k:
        # Every candidate at or above the k-th best value stays, so ties at the cut are
        # decided by document number below, not by the partition's whim.
        cut = np.partition(values, total - k)[total - k]
        keep = values >= cut
        docs, values = docs[keep], values[keep]
    order = np.lexsort((docs, -values))[:k]
    return TopK(docs[order].astype(np.int64), values[order], total)


def _bits(places: Any) -> np.uint64:
    found = int(_SEEN)
    for place in places:
        if place < MAX_COUNTED:
            found |= 1 << place
    return np.uint64(found)


def _arrays(columns: Columns) -> tuple[IntArray, FloatArray]:
    terms = np.array([term for term, _ in columns], dtype=np.int64)
    weights = np.array([weight for _, weight in columns], dtype=np.float64)
    return terms, weights
