"""Eager BM25 scoring over the impact matrix: sum the query's columns, keep the best k.

The matrix (`BM25Index`) stores each term's column as postings (document numbers ascending)
with precomputed float32 impacts. A query adds its weighted columns into a per-thread float64
score array over every document and sets a bit per column in a parallel bit array (`_score`).
One sequential pass (`_select`) then counts the documents holding any column's term (the
ranking's total) and those holding every one (`total_all`), keeps the best k in a heap and
clears both arrays for the next query. Ties: score descending, then document ascending.

An acronym alternative (`Credit`) credits each paper holding the whole other form with
max(weight x other - written, 0), so the paper scores the better of the two forms: the other
form's columns go into a second scratch array (listing the papers they touch and counting the
words each holds), the written form's score of just those papers is subtracted (a short written
column walked, a long one searched) and the positive rest added (`_fold`). A paper holding only
some words of the other form gets nothing for them: "learning" alone is no "reinforcement
learning", and never stands in for "RL". A paper holding the whole other form counts as holding
the written words.
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
# Columns with a bit of their own for `total_all`; bit 31 marks a document holding any.
MAX_COUNTED = 31
_ANY = 1 << 31


@dataclass(frozen=True, slots=True)
class Credit:
    """An acronym alternative: the other form's term numbers at `weight`, the written form's;
    `complete` is False when the corpus lacks some other-form word (none holds it whole, so
    none is credited)."""

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
def _score(
    offsets: Any, postings: Any, impacts: Any, terms: Any, weights: Any, scores: Any, bits: Any
) -> None:
    for t in range(len(terms)):
        weight = weights[t]
        bit = np.uint32(1 << 31)
        if t < 31:
            bit |= np.uint32(1 << t)
        for p in range(offsets[terms[t]], offsets[terms[t] + 1]):
            scores[postings[p]] += weight * impacts[p]
            bits[postings[p]] |= bit


@kernel
def _listed(
    offsets: Any, postings: Any, impacts: Any, terms: Any, weight: float, credit: Any, held: Any
) -> Any:
    """The other form's score into `credit`, how many of its words each paper holds into
    `held`; the papers touched, in the order first reached."""
    touched = np.empty(offsets[terms[0] + 1] - offsets[terms[0]], dtype=np.int32)
    count = 0
    for t in range(len(terms)):
        for p in range(offsets[terms[t]], offsets[terms[t] + 1]):
            doc = postings[p]
            credit[doc] += weight * impacts[p]
            if held[doc] == 0:
                if count == len(touched):
                    touched = np.concatenate((touched, np.empty(len(touched), np.int32)))
                touched[count] = doc
                count += 1
            held[doc] += 1
    return touched[:count]


@kernel
def _fold(
    offsets: Any,
    postings: Any,
    impacts: Any,
    written: Any,
    credit: Any,
    held: Any,
    touched: Any,
    whole: int,
    written_bits: Any,
    scores: Any,
    bits: Any,
) -> None:
    n = len(touched)
    searched = np.zeros(len(written), dtype=np.bool_)
    for w in range(len(written)):
        start, end = offsets[written[w]], offsets[written[w] + 1]
        if end - start > 16 * n:
            searched[w] = True
            continue
        for p in range(start, end):
            if held[postings[p]] != 0:
                credit[postings[p]] -= impacts[p]
    for i in range(n):
        doc = touched[i]
        if held[doc] == whole:
            value = credit[doc]
            for w in range(len(written)):
                if searched[w]:
                    start, end = offsets[written[w]], offsets[written[w] + 1]
                    p = start + np.searchsorted(postings[start:end], doc)
                    if p < end and postings[p] == doc:
                        value -= impacts[p]
            if value > 0:
                scores[doc] += value
            bits[doc] |= written_bits
        credit[doc] = 0.0
        held[doc] = 0


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
def _select(
    scores: Any, bits: Any, mask: Any, use_mask: bool, every: Any, docs: Any, values: Any
) -> tuple[int, int, int]:
    """Count the allowed documents holding any column (and every one), keep the best len(docs)
    in a heap whose root is the worst kept, and clear the scratch, in one pass (a document
    holding no column has no bit and a zero score: nothing to clear)."""
    n = 0
    with_every = 0
    filled = 0
    k = len(docs)
    floor = -np.inf  # the root's value once the heap is full
    for doc in range(len(bits)):
        held = bits[doc]
        if held == 0:
            continue
        value = scores[doc]
        bits[doc] = 0
        scores[doc] = 0.0
        if use_mask and not mask[doc]:
            continue
        n += 1
        with_every += (held & every) == every
        if value < floor or k == 0:
            continue
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
            if filled == k:
                floor = values[0]
        elif _worse(values[0], docs[0], value, doc):
            values[0], docs[0] = value, doc
            _sift_down(values, docs, filled, 0)
            floor = values[0]
    return n, with_every, filled


class _Scratch(threading.local):
    """Per thread: a score array and a bit (or count) array over every document, zero between
    queries."""

    def __init__(self) -> None:
        self.arrays: dict[str, tuple[Any, Any]] = {}

    def get(self, name: str, size: int, dtype: Any) -> tuple[Any, Any]:
        found = self.arrays.get(name)
        if found is None or len(found[0]) != size:
            found = (np.zeros(size, dtype=np.float64), np.zeros(size, dtype=dtype))
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
    *,
    count_all: bool = True,
) -> TopK:
    """The k best documents of `index` (a BM25Index) for weighted columns plus credits;
    `count_all=False`: `total_all` is not wanted (None)."""
    scores, bits = _scratch.get("scores", index.size, np.uint32)
    try:
        total, with_every, kept, docs, values = _rank(
            index, columns, k, mask, credits, scores, bits
        )
    except BaseException:
        # Interrupted half way: the next question must find the scratch clean.
        _scratch.arrays.clear()
        raise
    order = np.lexsort((docs[:kept], -values[:kept]))
    counted = count_all and len(columns) <= MAX_COUNTED
    return TopK(docs[order].astype(np.int64), values[order], total, with_every if counted else None)


def _rank(
    index: Any,
    columns: Columns,
    k: int,
    mask: BoolArray | None,
    credits: Sequence[Credit],
    scores: Any,
    bits: Any,
) -> tuple[int, int, int, Any, Any]:
    offsets, postings, impacts = index.kernel_arrays
    terms = np.array([term for term, _ in columns], dtype=np.int64)
    weights = np.array([weight for _, weight in columns], dtype=np.float64)
    _score(offsets, postings, impacts, terms, weights, scores, bits)
    place = {term: t for t, (term, _) in enumerate(columns)}
    for credit in credits:
        if not credit.other:
            continue  # no paper holds the other form: nothing to credit
        value, held = _scratch.get("credit", index.size, np.uint8)
        other = np.array(credit.other[:255], dtype=np.int64)
        touched = _listed(offsets, postings, impacts, other, credit.weight, value, held)
        # A count no paper reaches when some other-form word is missing from the corpus.
        whole = len(other) if credit.complete else 256
        written_bits = _bits(place[term] for term in credit.written if term in place)
        written = np.array(credit.written, dtype=np.int64)
        _fold(
            offsets, postings, impacts, written, value, held, touched, whole, written_bits,
            scores, bits,
        )  # fmt: skip
    docs = np.empty(max(k, 0), dtype=np.int32)
    values = np.empty(len(docs), dtype=np.float64)
    flags = _NO_MASK if mask is None else readonly(mask)
    every = _bits(range(len(columns)))
    total, with_every, kept = _select(scores, bits, flags, mask is not None, every, docs, values)
    return total, with_every, kept, docs, values


def _bits(places: Any) -> np.uint32:
    found = _ANY
    for place in places:
        if place < MAX_COUNTED:
            found |= 1 << place
    return np.uint32(found)
