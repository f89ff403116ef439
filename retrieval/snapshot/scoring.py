"""Eager BM25 scoring over the impact matrix: sum the query's columns, keep the best k.

The matrix (`BM25Index`) stores each term's column as postings (document numbers ascending)
with precomputed float32 impacts. A query adds its weighted columns into a per-thread float64
score array in one compiled pass, which also lists the documents it touches: their number is
the ranking's total, and the best k are selected among them with an argpartition. An acronym
alternative credits each paper holding the other form with max(weight x other - written, 0):
the same pass into a second scratch array, then folded into the scores, so a paper scores the
better of the written and the other form. Ties: score descending, then document ascending.
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

# A column: (term number, weight). A credit: the other form's columns at the expansion weight
# (>= 0) and the written form's at -1.
Columns = Sequence[tuple[int, float]]


@dataclass(frozen=True, slots=True)
class TopK:
    docs: IntArray
    scores: FloatArray
    total: int  # documents holding any column's term (or an other form), allowed by the mask


@kernel
def _add(
    offsets: Any,
    postings: Any,
    impacts: Any,
    terms: Any,
    weights: Any,
    scores: Any,
    seen: Any,
    touched: Any,
    count: int,
) -> int:
    for t in range(len(terms)):
        weight = weights[t]
        for p in range(offsets[terms[t]], offsets[terms[t] + 1]):
            doc = postings[p]
            scores[doc] += weight * impacts[p]
            if not seen[doc]:
                seen[doc] = True
                touched[count] = doc
                count += 1
    return count


@kernel
def _fold(
    credit: Any,
    credit_seen: Any,
    credit_touched: Any,
    held: int,
    n: int,
    scores: Any,
    seen: Any,
    touched: Any,
    count: int,
) -> int:
    for i in range(n):
        doc = credit_touched[i]
        # Only the first `held` hold the other form: a paper with just the written form gains
        # nothing, even where its score is negative (a tiny corpus's negative IDF).
        if i < held:
            if credit[doc] > 0:
                scores[doc] += credit[doc]
            if not seen[doc]:
                seen[doc] = True
                touched[count] = doc
                count += 1
        credit[doc] = 0.0
        credit_seen[doc] = False
    return count


@kernel
def _collect(
    scores: Any,
    seen: Any,
    touched: Any,
    count: int,
    mask: Any,
    use_mask: bool,
    docs: Any,
    values: Any,
) -> int:
    n = 0
    for i in range(count):
        doc = touched[i]
        if not use_mask or mask[doc]:
            docs[n] = doc
            values[n] = scores[doc]
            n += 1
        scores[doc] = 0.0
        seen[doc] = False
    return n


class _Scratch(threading.local):
    """Per thread: score arrays over every document, kept zero between queries (a query
    clears only what it touched)."""

    def __init__(self) -> None:
        self.arrays: dict[str, Any] = {}

    def get(self, name: str, size: int) -> tuple[Any, Any, Any]:
        found = self.arrays.get(name)
        if found is None or len(found[0]) < size:
            found = (
                np.zeros(size, dtype=np.float64),
                np.zeros(size, dtype=np.bool_),
                np.empty(size, dtype=np.int32),
            )
            self.arrays[name] = found
        return found


_scratch = _Scratch()


def top_k(
    index: Any,
    columns: Columns,
    k: int,
    mask: BoolArray | None = None,
    credits: Sequence[Columns] = (),
) -> TopK:
    """The k best documents of `index` (a BM25Index) for weighted columns plus credits."""
    size = index.size
    scores, seen, touched = _scratch.get("scores", size)
    offsets, postings, impacts = index.kernel_arrays
    count = _add(offsets, postings, impacts, *_terms(columns), scores, seen, touched, 0)
    for credit in credits:
        value, held, listed = _scratch.get("credit", size)
        other = [(term, weight) for term, weight in credit if weight >= 0]
        written = [(term, weight) for term, weight in credit if weight < 0]
        n_other = _add(offsets, postings, impacts, *_terms(other), value, held, listed, 0)
        n = _add(offsets, postings, impacts, *_terms(written), value, held, listed, n_other)
        count = _fold(value, held, listed, n_other, n, scores, seen, touched, count)
    docs = np.empty(count, dtype=np.int32)
    values = np.empty(count, dtype=np.float64)
    use_mask = mask is not None
    flags = readonly(mask if mask is not None else _NO_MASK)
    total = _collect(scores, seen, touched, count, flags, use_mask, docs, values)
    return best(docs[:total], values[:total], k)


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


_NO_MASK = np.zeros(0, dtype=np.bool_)


def _terms(columns: Columns) -> tuple[IntArray, FloatArray]:
    terms = np.array([term for term, _ in columns], dtype=np.int64)
    weights = np.array([weight for _, weight in columns], dtype=np.float64)
    return terms, weights
