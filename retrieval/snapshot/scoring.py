"""Eager BM25 scoring over the impact matrix: sum the query's columns, keep the best k.

The matrix (`BM25Index`) stores each term's column as postings (document numbers ascending)
with precomputed float32 impacts. A query adds its weighted columns into a per-thread float64
score array over every document and sets a bit per column in a parallel bit array (`_score`).
One sequential pass (`_select`) then counts the documents holding any column's term (the
ranking's total) and those holding every one (`total_all`), keeps the best k in a heap and
clears both arrays for the next query. Ties: score descending, then document ascending.

An acronym alternative (`Credit`) credits each paper holding the whole other form with
max(weight x other - written, 0), so the paper scores the better of the two forms (`_credit`):
the other form's shortest column leads, its other columns and the written form's are searched
for each of its papers (postings ascend: galloping), so only the papers holding every word of the
other form are visited and nothing is written but their scores. A paper holding only some words
of the other form gets nothing for them: "learning" alone is no "reinforcement learning", and
never stands in for "RL". A paper holding the whole other form counts as holding the written
words.
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
            # Read once: after the store to `scores` the compiler must assume it changed.
            doc = postings[p]
            scores[doc] += weight * impacts[p]
            bits[doc] |= bit


@kernel
def _seek(postings: Any, start: int, end: int, doc: int) -> int:
    """The first place in postings[start:end] (ascending) holding `doc` or a later document:
    galloping, so a short column walks a long one in a few steps per posting."""
    if start >= end or postings[start] >= doc:
        return start
    step = 1
    while start + step < end and postings[start + step] < doc:
        start += step
        step *= 2
    high = min(start + step, end)
    return start + 1 + int(np.searchsorted(postings[start + 1 : high], doc))


@kernel
def _credit(
    offsets: Any,
    postings: Any,
    impacts: Any,
    other: Any,
    weight: float,
    written: Any,
    written_bits: Any,
    scores: Any,
    bits: Any,
) -> None:
    """Credit every paper holding each term of `other` with max(weight x other - written, 0)
    and mark it as holding the written words: the shortest other-form column leads, the rest
    and the written columns are sought in it (all ascending), so only papers holding the whole
    other form are visited."""
    lead = 0
    for t in range(1, len(other)):
        if (
            offsets[other[t] + 1] - offsets[other[t]]
            < offsets[other[lead] + 1] - offsets[other[lead]]
        ):
            lead = t
    found = np.empty(len(other), dtype=np.int64)  # each other-form term's posting of `doc`
    place = np.empty(len(other), dtype=np.int64)  # where each column's search resumes
    for t in range(len(other)):
        place[t] = offsets[other[t]]
    seen = np.empty(len(written), dtype=np.int64)
    for w in range(len(written)):
        seen[w] = offsets[written[w]]
    for p in range(offsets[other[lead]], offsets[other[lead] + 1]):
        doc = postings[p]
        whole = True
        for t in range(len(other)):
            end = offsets[other[t] + 1]
            place[t] = _seek(postings, place[t], end, doc)
            if place[t] == end or postings[place[t]] != doc:
                whole = False
                break
            found[t] = place[t]
        if not whole:
            continue
        value = 0.0
        for t in range(len(other)):  # in term order: the same sum to the last bit
            value += weight * impacts[found[t]]
        for w in range(len(written)):
            end = offsets[written[w] + 1]
            seen[w] = _seek(postings, seen[w], end, doc)
            if seen[w] < end and postings[seen[w]] == doc:
                value -= impacts[seen[w]]
        if value > 0:
            scores[doc] += value
        bits[doc] |= written_bits


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
        if not (credit.complete and credit.other):
            continue  # no paper holds the whole other form: nothing to credit
        written_bits = _bits(place[term] for term in credit.written if term in place)
        _credit(
            offsets, postings, impacts, np.array(credit.other, dtype=np.int64), credit.weight,
            np.array(credit.written, dtype=np.int64), written_bits, scores, bits,
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
