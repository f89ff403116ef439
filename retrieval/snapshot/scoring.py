"""Eager BM25 scoring over the impact matrix: sum the query's columns, keep the best k.

The matrix (`BM25Index`) stores each term's column as postings (document numbers ascending)
with precomputed float32 impacts. A query adds its weighted columns into a per-thread float64
score array in one compiled pass, which also lists the documents it touches (their number is
the ranking's total) and marks in a bit per column which terms each holds (documents holding
every one: `total_all`). A second pass over the touched documents counts them, keeps the best k
in a heap and clears the scratch.

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
def _worse(value: float, doc: int, other_value: float, other_doc: int) -> bool:
    return value < other_value or (value == other_value and doc > other_doc)


@kernel
def _sift_down(values: Any, docs: Any, filled: int, place: int) -> None:
    while True:
        low, left = place, 2 * place + 1
        for child in (left, left + 1):
            if child < filled and _worse(values[child], docs[child], values[low], docs[low]):
                low = child
        if low == place:
            return
        values[place], values[low] = values[low], values[place]
        docs[place], docs[low] = docs[low], docs[place]
        place = low


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
) -> tuple[int, int, int]:
    """Count the allowed touched documents (and those with every bit), keep the best len(docs)
    in a heap whose root is the worst kept, and clear the scratch."""
    n = 0
    with_every = 0
    filled = 0
    k = len(docs)
    for i in range(count):
        doc = touched[i]
        if not use_mask or mask[doc]:
            n += 1
            if (bits[doc] & every) == every:
                with_every += 1
            value = scores[doc]
            if filled < k:
                place = filled
                values[place], docs[place] = value, doc
                filled += 1
                while place > 0:
                    parent = (place - 1) // 2
                    if not _worse(values[place], docs[place], values[parent], docs[parent]):
                        break
                    values[place], values[parent] = values[parent], values[place]
                    docs[place], docs[parent] = docs[parent], docs[place]
                    place = parent
            elif k > 0 and _worse(values[0], docs[0], value, doc):
                values[0], docs[0] = value, doc
                _sift_down(values, docs, filled, 0)
        scores[doc] = 0.0
        bits[doc] = 0
    return n, with_every, filled


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
    docs = np.empty(max(min(k, count), 0), dtype=np.int32)
    values = np.empty(len(docs), dtype=np.float64)
    flags = _NO_MASK if mask is None else readonly(mask)
    every = _bits(range(len(columns)))
    total, with_every, kept = _collect(
        scores, bits, touched, count, flags, mask is not None, every, docs, values
    )
    order = np.lexsort((docs[:kept], -values[:kept]))
    counted = len(columns) <= MAX_COUNTED
    return TopK(docs[order].astype(np.int64), values[order], total, with_every if counted else None)


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
