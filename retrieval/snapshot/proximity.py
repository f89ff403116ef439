"""Word-proximity evidence for the re-rank of the head of a ranking (sequential dependence).

For each document: half the share of the query's adjacent word pairs found adjacent and in order
(phrases, titles), half the share of all its distinct word pairs found within `window` words in
any order. One compiled pass over the head's documents (tens of microseconds for 100).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from retrieval.snapshot.compiled import kernel, readonly
from retrieval.snapshot.matrix import BM25Index, FloatArray


def proximity_bonuses(
    index: BM25Index, docs: np.ndarray, query: Sequence[int], window: int
) -> FloatArray:
    """The bonus in [0, 1] of each of `docs` for the query's term numbers (in query order)."""
    distinct = sorted(set(query))
    if len(distinct) < 2 or len(docs) == 0:
        return np.zeros(len(docs), dtype=np.float64)
    local = _scratch.local_numbers(len(index.terms))
    return np.asarray(
        _bonuses(
            readonly(index.forward),
            readonly(index.doc_start),
            np.asarray(docs, dtype=np.int64),
            np.array(distinct, dtype=np.int64),
            np.array(query, dtype=np.int64),
            window,
            local,
        ),
        dtype=np.float64,
    )


class _Scratch(threading.local):
    """Per thread: term number -> position among the query's distinct terms (-1 elsewhere).
    The kernel sets and clears only the query's entries, so a query costs nothing per term of
    the vocabulary."""

    def __init__(self) -> None:
        self.local = np.full(0, -1, dtype=np.int32)

    def local_numbers(self, vocabulary: int) -> Any:
        if len(self.local) != vocabulary:
            self.local = np.full(vocabulary, -1, dtype=np.int32)
        return self.local


_scratch = _Scratch()


@kernel
def _bonuses(
    forward: Any,
    doc_start: Any,
    docs: Any,
    distinct: Any,
    query: Any,
    window: int,
    local: Any,
) -> Any:
    width = len(distinct)
    for i in range(width):
        local[distinct[i]] = i
    square = width * width
    adjacent = np.zeros(square, dtype=np.bool_)
    n_adjacent = 0
    for i in range(len(query) - 1):
        first, second = local[query[i]], local[query[i + 1]]
        if first != second and not adjacent[first * width + second]:
            adjacent[first * width + second] = True
            n_adjacent += 1
    all_pairs = width * (width - 1) // 2
    near = np.zeros(square, dtype=np.bool_)
    in_order = np.zeros(square, dtype=np.bool_)
    touched = np.empty(2 * square, dtype=np.int64)
    bonuses = np.zeros(len(docs), dtype=np.float64)
    for n in range(len(docs)):
        start, end = doc_start[docs[n]], doc_start[docs[n] + 1]
        found_near = 0
        found_in_order = 0
        marked = 0
        for i in range(start, end):
            first = local[forward[i]]
            if first < 0:
                continue
            for j in range(i + 1, min(end, i + window + 1)):
                second = local[forward[j]]
                if second < 0 or second == first:
                    continue
                code = min(first, second) * width + max(first, second)
                if not near[code]:
                    near[code] = True
                    found_near += 1
                    touched[marked] = code
                    marked += 1
                pair = first * width + second
                if j == i + 1 and adjacent[pair] and not in_order[pair]:
                    in_order[pair] = True
                    found_in_order += 1
                    touched[marked] = pair
                    marked += 1
        for m in range(marked):
            near[touched[m]] = False
            in_order[touched[m]] = False
        share_in_order = found_in_order / n_adjacent if n_adjacent else 0.0
        bonuses[n] = 0.5 * (share_in_order + found_near / all_pairs)
    for i in range(width):
        local[distinct[i]] = -1
    return bonuses
