"""Word-proximity evidence for the re-rank of the head of a ranking (sequential dependence).

For each document: half the share of the query's adjacent word pairs found adjacent and in order
(phrases, titles), half the share of all its distinct word pairs found within `window` words in
any order. Compiled when numba is there (tens of microseconds for 50 documents); the numpy
version is the reference it is tested against and the path without numba.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from retrieval import compiled
from retrieval.index import BM25Index, FloatArray


def proximity_bonuses(
    index: BM25Index, docs: np.ndarray, query: Sequence[int], window: int
) -> FloatArray:
    """The bonus in [0, 1] of each of `docs` for the query's term numbers (in query order)."""
    distinct = sorted(set(query))
    if len(distinct) < 2 or len(docs) == 0:
        return np.zeros(len(docs), dtype=np.float64)
    kernel = _compiled_bonuses()
    if kernel is None:  # pragma: no cover - the numpy version is tested directly
        return proximity_bonuses_numpy(index, docs, query, window)
    local = _scratch.local_numbers(len(index.terms))
    return np.asarray(
        kernel(
            index.forward,
            index.doc_start,
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


_compiled_bonuses = compiled.compile_lazily(_bonuses)


def proximity_bonuses_numpy(
    index: BM25Index, docs: np.ndarray, query: Sequence[int], window: int
) -> FloatArray:
    """The same bonuses in one vectorised numpy pass over the query words of all `docs`."""
    distinct = sorted(set(query))
    width = len(distinct)
    bonuses = np.zeros(len(docs), dtype=np.float64)
    if width < 2 or len(docs) == 0:
        return bonuses
    local = np.full(len(index.terms), -1, dtype=np.int64)
    local[distinct] = np.arange(width)
    starts = index.doc_start[docs]
    lengths = index.doc_start[docs + 1] - starts
    first = np.repeat(np.cumsum(lengths) - lengths, lengths)
    places = np.arange(int(lengths.sum())) - first
    terms = local[index.forward[np.repeat(starts, lengths) + places]]
    owners = np.repeat(np.arange(len(docs)), lengths)
    keep = terms >= 0
    places, terms, owners = places[keep], terms[keep], owners[keep]

    square = width * width
    adjacent = {(local[a], local[b]) for a, b in itertools.pairwise(query) if a != b}
    adjacent_codes = np.array([a * width + b for a, b in adjacent], dtype=np.int64)
    nearby: list[np.ndarray] = []
    ordered = np.zeros(0, dtype=np.int64)
    # Query words within `window` positions are at most `window` entries apart in this list.
    for step in range(1, window + 1):
        left, right = terms[:-step], terms[step:]
        together = (owners[step:] == owners[:-step]) & (left != right)
        gap = places[step:] - places[:-step]
        near = together & (gap <= window)
        low, high = np.minimum(left, right), np.maximum(left, right)
        nearby.append(owners[:-step][near] * square + low[near] * width + high[near])
        if step == 1:
            pair = left * width + right
            hit = together & (gap == 1) & np.isin(pair, adjacent_codes)
            ordered = owners[:-step][hit] * square + pair[hit]
    found_near = np.bincount(np.unique(np.concatenate(nearby)) // square, minlength=len(docs))
    found_ordered = np.bincount(np.unique(ordered) // square, minlength=len(docs))
    in_order = found_ordered / len(adjacent) if adjacent else np.zeros(len(docs))
    all_pairs = width * (width - 1) // 2
    return np.asarray(0.5 * (in_order + found_near / all_pairs), dtype=np.float64)
