"""Credit for the other forms of a query's acronyms, as extra postings lists for top-k.

A paper's score rises to the better of the written and the other form: for each alternative the
credit is max(other - written, 0), where `other` is the other form's BM25 score at the expansion
weight and `written` the written form's. It is kept only where an other form occurs, so a list
holds just those papers (every one counts as matched), less those with zero credit that hold
the written form (the written form's own list matches them). The same acronyms come back in
question after question ("LLM", "RAG"), so each snapshot keeps the list of each alternative it
computed, within a bound on memory. Compiled when numba is there; numpy is the reference.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from retrieval import compiled
from retrieval.acronyms import Alternative
from retrieval.index import BM25Index, BoolArray, FloatArray
from retrieval.topk import Postings

# Cached postings per snapshot, in documents: 12 bytes each, so at most ~24 MB.
CACHE_POSTINGS = 2_000_000


def credit_postings(
    index: BM25Index, alternatives: Sequence[Alternative], weight: float
) -> list[Postings]:
    """One credit list per alternative whose other form occurs in the corpus, in order."""
    cache = _cache_of(index)
    lists: list[Postings] = []
    for alternative in alternatives:
        key = (alternative.written, alternative.other, weight)
        found = cache.get(key)
        if found is None:
            found = (_alternative_credit(index, alternative, weight),)
            cache.put(key, found[0])
        if found[0] is not None:
            lists.append(found[0])
    return lists


def _numbers(index: BM25Index, terms: Sequence[str]) -> Any:
    numbers = [-1 if (number := index.term_number(term)) is None else number for term in terms]
    return np.array(numbers, dtype=np.int64)


def _alternative_credit(
    index: BM25Index, alternative: Alternative, weight: float
) -> Postings | None:
    kernel = _compiled_credit()
    if kernel is None:  # pragma: no cover - the numpy version is tested directly
        return _credit_numpy(index, alternative, weight)
    other = _numbers(index, alternative.other)
    if (other < 0).all():
        return None
    docs, credit = kernel(
        index.postings_docs,
        index.impacts,
        index.offsets,
        other,
        _numbers(index, alternative.written),
        weight,
        *_scratch.arrays(index.size),
    )
    return _postings(docs, credit)


def _postings(docs: Any, credit: Any) -> Postings | None:
    if len(docs) == 0:
        return None
    impacts = credit.astype(np.float32)
    return Postings(docs, impacts, 0, len(docs), 1.0, float(impacts.max()), extra=True)


def _credit(
    postings_docs: Any,
    impacts: Any,
    offsets: Any,
    other: Any,
    written: Any,
    weight: float,
    other_sum: Any,
    written_sum: Any,
    holds: Any,
) -> tuple[Any, Any]:
    size = len(holds)
    touched = 0
    for t in range(len(other)):
        if other[t] < 0:
            continue
        for p in range(offsets[other[t]], offsets[other[t] + 1]):
            d = postings_docs[p]
            touched += 1 - (holds[d] & 1)
            holds[d] |= 1
            other_sum[d] += weight * np.float64(impacts[p])
    for t in range(len(written)):
        if written[t] < 0:
            continue
        for p in range(offsets[written[t]], offsets[written[t] + 1]):
            d = postings_docs[p]
            if holds[d] & 1:
                written_sum[d] += 1.0 * np.float64(impacts[p])
                holds[d] |= 4
    # The papers holding the other form, ascending: a scan of the flags costs less than
    # sorting them once they are more than a few percent of the corpus.
    docs = np.empty(touched, dtype=np.int32)
    n = 0
    if 32 * touched > size:
        for d in range(size):
            if holds[d] & 1:
                docs[n] = d
                n += 1
    else:
        for t in range(len(other)):
            if other[t] < 0:
                continue
            for p in range(offsets[other[t]], offsets[other[t] + 1]):
                d = postings_docs[p]
                if holds[d] & 2 == 0:
                    holds[d] |= 2
                    docs[n] = d
                    n += 1
        docs.sort()
    # A paper whose credit is zero and that holds the written form adds nothing to a score
    # and is matched by the written form's own list: leaving it out is exact, and cheaper.
    credit = np.empty(touched, dtype=np.float64)
    kept = 0
    for i in range(touched):
        d = docs[i]
        value = max(other_sum[d] - written_sum[d], 0.0)
        if value > 0.0 or holds[d] & 4 == 0:
            docs[kept] = d
            credit[kept] = value
            kept += 1
        other_sum[d] = 0.0
        written_sum[d] = 0.0
        holds[d] = 0
    return docs[:kept], credit[:kept]


_compiled_credit = compiled.compile_lazily(_credit)


class _Scratch(threading.local):
    """Per-thread dense buffers the kernel leaves zeroed (ranking runs in worker threads)."""

    def __init__(self) -> None:
        self.size = -1
        self.buffers: tuple[Any, ...] = ()

    def arrays(self, size: int) -> tuple[Any, ...]:
        if self.size != size:
            self.size = size
            floats = (np.zeros(size, dtype=np.float64) for _ in range(2))
            self.buffers = (*floats, np.zeros(size, dtype=np.uint8))
        return self.buffers


_scratch = _Scratch()


class _BoundedCache:
    """Least recently used credit lists of one snapshot, at most CACHE_POSTINGS documents."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[Any, tuple[Postings | None]] = OrderedDict()
        self._held = 0

    def get(self, key: Any) -> tuple[Postings | None] | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: Any, postings: Postings | None) -> None:
        size = 0 if postings is None else postings.end
        if size > CACHE_POSTINGS:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (postings,)
            self._held += size
            while self._held > CACHE_POSTINGS:
                _, (evicted,) = self._entries.popitem(last=False)
                self._held -= 0 if evicted is None else evicted.end


_caches: weakref.WeakKeyDictionary[BM25Index, _BoundedCache] = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def _cache_of(index: BM25Index) -> _BoundedCache:
    with _caches_lock:
        cache = _caches.get(index)
        if cache is None:
            cache = _caches[index] = _BoundedCache()
        return cache


def credit_postings_numpy(
    index: BM25Index, alternatives: Sequence[Alternative], weight: float
) -> list[Postings]:
    """The same lists from dense numpy arrays over all documents, uncached."""
    lists = (_credit_numpy(index, alternative, weight) for alternative in alternatives)
    return [postings for postings in lists if postings is not None]


def _credit_numpy(index: BM25Index, alternative: Alternative, weight: float) -> Postings | None:
    other_terms = [(index.term_number(term), weight) for term in alternative.other]
    holds_other = np.zeros(index.size, dtype=np.bool_)
    other = _dense_scores(index, other_terms, holds_other)
    holds_written = np.zeros(index.size, dtype=np.bool_)
    written = _dense_scores(
        index, [(index.term_number(term), 1.0) for term in alternative.written], holds_written
    )
    # Only where the other form occurs: with a negative IDF (a tiny corpus) the written form's
    # score is negative, and a paper without the other form must not gain from it.
    docs = np.flatnonzero(holds_other).astype(np.int32)
    credit = np.maximum(other[docs] - written[docs], 0.0)
    # Zero credit where the written form is held: nothing to add, matched by its own list.
    keep = (credit > 0.0) | ~holds_written[docs]
    return _postings(docs[keep], credit[keep])


def _dense_scores(
    index: BM25Index, terms: Sequence[tuple[int | None, float]], holding: BoolArray | None
) -> FloatArray:
    """Weighted BM25 scores over all documents; marks the documents found in `holding`."""
    values = np.zeros(index.size, dtype=np.float64)
    for number, weight in terms:
        if number is None:
            continue
        start, end = int(index.offsets[number]), int(index.offsets[number + 1])
        docs = index.postings_docs[start:end]
        values[docs] += weight * index.impacts[start:end].astype(np.float64)
        if holding is not None:
            holding[docs] = True
    return values
