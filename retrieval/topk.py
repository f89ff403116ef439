"""Exact top-k over impact postings, with safe term-at-a-time pruning (MaxScore bounds).

A query is a list of postings lists (document numbers ascending, float32 impacts) with weights.
Lists are summed in a fixed order, highest possible contribution first, so every path adds a
document's contributions in the same order and gets bit-identical scores. After each list, the
k-th best partial score is a lower bound on the final k-th best score (impacts are >= 0). Once the
lists left can add less than that bound, no document outside the ones already seen can enter the
top k: the remaining lists are only looked up for the seen documents that can still make it, by
binary search, instead of being added in full. Ties: score descending, then document ascending.

The loop is compiled with numba when it is installed (numpy's exhaustive path is ~5x slower
at 100k documents); without it the same order of additions runs exhaustively in numpy.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from retrieval import compiled

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# Relative slack on the pruning bound: the sum of maxima is rounded differently from the sum
# of the impacts it bounds; 1e-9 is orders of magnitude above float64 rounding of a few terms.
_SLACK = 1e-9
# seen[] value of a document still in the running once the long lists are skipped (odd, so
# `| 1` keeps it).
_CANDIDATE = 255


@dataclass(frozen=True, slots=True)
class Postings:
    """One weighted postings list: `docs[start:end]` (ascending) and `impacts[start:end]`.

    `docs`/`impacts` are the index's flat arrays, or an extra list's own (acronym credit).
    """

    docs: npt.NDArray[np.int32]
    impacts: npt.NDArray[np.float32]
    start: int
    end: int
    weight: float
    bound: float  # >= weight * every impact in the list
    extra: bool = False  # from the extra arrays, not the index's


@dataclass(frozen=True, slots=True)
class TopK:
    docs: IntArray
    scores: FloatArray
    total: int  # documents holding any list's document and allowed by the mask


def ordered(lists: Sequence[Postings]) -> list[Postings]:
    """The summation order every path uses: highest bound first, then the caller's order."""
    return sorted(lists, key=lambda item: -item.bound)


def search_numpy(lists: Sequence[Postings], size: int, mask: Any, k: int) -> TopK:
    """Exhaustive reference: dense scores over all documents, same additions in the same order."""
    values = np.zeros(size, dtype=np.float64)
    matched = np.zeros(size, dtype=np.bool_)
    for item in ordered(lists):
        docs = item.docs[item.start : item.end]
        values[docs] += item.weight * item.impacts[item.start : item.end].astype(np.float64)
        matched[docs] = True
    if mask is not None:
        matched &= mask
    chosen = np.flatnonzero(matched)
    total = len(chosen)
    if k <= 0 or total == 0:
        return TopK(np.zeros(0, np.int64), np.zeros(0), total)
    if total > k:
        part = np.argpartition(-values[chosen], k - 1)[:k]
        chosen = chosen[values[chosen] >= values[chosen[part]].min()]
    order = np.lexsort((chosen, -values[chosen]))[:k]
    best = chosen[order].astype(np.int64)
    return TopK(best, values[best], total)


class _Scratch(threading.local):
    """Per-thread dense buffers, reset after each query (ranking runs in worker threads)."""

    def __init__(self) -> None:
        self.size = -1
        self.scores = np.zeros(0, dtype=np.float64)
        self.seen = np.zeros(0, dtype=np.uint8)
        self.found = np.zeros(0, dtype=np.int32)

    def ensure(self, size: int) -> None:
        if self.size != size:
            self.size = size
            self.scores = np.zeros(size, dtype=np.float64)
            self.seen = np.zeros(size, dtype=np.uint8)
            self.found = np.zeros(size, dtype=np.int32)


_scratch = _Scratch()


def _offer(
    buffer_docs: Any, buffer_scores: Any, filled: int, k: int, doc: int, value: float
) -> tuple[int, float]:
    """Add one document (offered in ascending order) to the best-k buffer; compact when full.

    Returns the new fill and the admission threshold: later documents must beat it strictly,
    since an equal score loses to the earlier documents already kept.
    """
    buffer_docs[filled] = doc
    buffer_scores[filled] = value
    filled += 1
    if filled < len(buffer_docs):
        return filled, -np.inf
    cut = np.partition(buffer_scores[:filled].copy(), filled - k)[filled - k]
    above = 0
    for i in range(filled):
        above += buffer_scores[i] > cut
    equal_room = k - above
    kept = 0
    for i in range(filled):
        value_i = buffer_scores[i]
        if value_i > cut or (value_i == cut and equal_room > 0):
            if value_i == cut:
                equal_room -= 1
            buffer_docs[kept] = buffer_docs[i]
            buffer_scores[kept] = value_i
            kept += 1
    return kept, cut


def _best(buffer_docs: Any, buffer_scores: Any, filled: int, k: int) -> tuple[Any, Any]:
    docs = buffer_docs[:filled]
    values = buffer_scores[:filled]
    order = np.argsort(docs, kind="mergesort")
    docs = docs[order]
    values = values[order]
    order = np.argsort(-values, kind="mergesort")[:k]
    return docs[order].astype(np.int64), values[order]


def _best_ascending(docs: Any, values: Any, filled: int, k: int) -> tuple[Any, Any]:
    """The best k of documents given in ascending order: a stable sort on the score alone
    breaks ties by document, after a partition drops all but the best k (and their ties)."""
    docs = docs[:filled]
    values = values[:filled]
    if filled > k:
        cut = np.partition(values.copy(), filled - k)[filled - k]
        keep = values >= cut
        docs = docs[keep]
        values = values[keep]
    order = np.argsort(-values, kind="mergesort")[:k]
    return docs[order], values[order]


# Documents sampled to bound the k-th best score from below before the full scan.
_SAMPLES = 4096


def _sampled_floor(scores: Any, seen: Any, mask: Any, use_mask: bool, k: int) -> float:
    """A score the k-th best matched document reaches: the k-th best of an evenly spaced
    sample of the matched documents (a subset's k-th best is never above the whole set's).
    -inf when the sample holds fewer than k matched documents."""
    stride = max(1, len(scores) // _SAMPLES)
    sample = np.empty(len(scores) // stride + 1, dtype=np.float64)
    n = 0
    for d in range(0, len(scores), stride):
        if seen[d] and (not use_mask or mask[d]):
            sample[n] = scores[d]
            n += 1
    if n < k:
        return -np.inf
    return float(np.partition(sample[:n], n - k)[n - k])


def _above(scores: Any, seen: Any, mask: Any, use_mask: bool, floor: float, found: Any) -> int:
    """Every matched document scoring at least `floor`, into `found` in ascending order: the
    best k are among them. Returns how many.

    The test on the score comes first and is false for nearly every document once the floor
    is above zero, so the scan runs at memory speed instead of paying a branch per document.
    `found` is preallocated for all documents: growing an array inside the loop makes numba
    count references on every iteration (about 50x slower, measured).
    """
    filled = 0
    for d in range(len(scores)):
        if scores[d] >= floor and seen[d] and (not use_mask or mask[d]):
            found[filled] = d
            filled += 1
    return filled


def _kernel(
    docs_all: Any,
    impacts_all: Any,
    extra_docs: Any,
    extra_impacts: Any,
    from_extra: Any,
    starts: Any,
    ends: Any,
    weights: Any,
    rest: Any,
    mask: Any,
    use_mask: bool,
    prune: bool,
    count_total: bool,
    k: int,
    scores: Any,
    seen: Any,
    found: Any,
) -> tuple[Any, Any, int]:
    # Dense accumulators and full scans: a scan of N scores is sequential and cheap, while
    # tracking which documents were touched costs a dependent branch per posting. Scans test
    # the score first: "above the threshold" is predictably false, "seen" is a coin toss.
    size = len(scores)
    n_lists = len(weights)
    capacity = max(4 * k, 256)
    buffer_docs = np.empty(capacity, dtype=np.int64)
    buffer_scores = np.empty(capacity, dtype=np.float64)
    remaining = np.zeros(n_lists + 1, dtype=np.int64)
    for j in range(n_lists - 1, -1, -1):
        remaining[j] = remaining[j + 1] + ends[j] - starts[j]
    pruned_from = n_lists
    candidates = np.empty(0, dtype=np.int64)
    best_partial = -np.inf
    mark = 1  # seen[d]: 0 unseen, 1 seen, higher: visited by the mark-th walk over read lists
    for j in range(n_lists):
        if from_extra[j]:
            d_arr = extra_docs[starts[j] : ends[j]]
            v_arr = extra_impacts[starts[j] : ends[j]]
        else:
            d_arr = docs_all[starts[j] : ends[j]]
            v_arr = impacts_all[starts[j] : ends[j]]
        w = weights[j]
        for p in range(len(d_arr)):
            d = d_arr[p]
            seen[d] = 1
            value = scores[d] + w * np.float64(v_arr[p])
            scores[d] = value
            best_partial = max(best_partial, value)
        # Try once, when the lists left are longer than the ones read and might be skipped: the
        # k-th best partial score so far (each document once) bounds the final k-th best.
        walked = remaining[0] - remaining[j + 1]
        if (
            prune
            and mark < 250
            and j + 1 < n_lists
            and rest[j] < best_partial
            and remaining[j + 1] > walked
        ):
            mark += 1
            filled = 0
            threshold = -np.inf
            for jj in range(j + 1):
                d_arr = (
                    extra_docs[starts[jj] : ends[jj]]
                    if from_extra[jj]
                    else docs_all[starts[jj] : ends[jj]]
                )
                for p in range(len(d_arr)):
                    d = d_arr[p]
                    if seen[d] != mark:
                        seen[d] = mark
                        if scores[d] > threshold and (not use_mask or mask[d]):
                            filled, cut = _offer(
                                buffer_docs, buffer_scores, filled, k, d, scores[d]
                            )
                            threshold = max(threshold, cut)
            if filled >= k:
                theta = np.partition(buffer_scores[:filled].copy(), filled - k)[filled - k]
                if rest[j] < theta - _SLACK * abs(theta):
                    bound = theta - rest[j]
                    bound -= _SLACK * abs(bound)
                    candidates = np.empty(walked, dtype=np.int64)
                    c = 0
                    mark += 1
                    for jj in range(j + 1):
                        d_arr = (
                            extra_docs[starts[jj] : ends[jj]]
                            if from_extra[jj]
                            else docs_all[starts[jj] : ends[jj]]
                        )
                        for p in range(len(d_arr)):
                            d = d_arr[p]
                            if seen[d] != mark and seen[d] != _CANDIDATE:
                                seen[d] = mark
                                if scores[d] >= bound and (not use_mask or mask[d]):
                                    seen[d] = _CANDIDATE
                                    candidates[c] = d
                                    c += 1
                    candidates = np.sort(candidates[:c])
                    pruned_from = j + 1
                    break
    for j in range(pruned_from, n_lists):
        if from_extra[j]:
            d_arr = extra_docs[starts[j] : ends[j]]
            v_arr = extra_impacts[starts[j] : ends[j]]
        else:
            d_arr = docs_all[starts[j] : ends[j]]
            v_arr = impacts_all[starts[j] : ends[j]]
        w = weights[j]
        if count_total or 16 * len(candidates) > len(d_arr):
            # Walk the list: mark it seen (for the total), add only where a candidate is.
            for p in range(len(d_arr)):
                d = d_arr[p]
                state = seen[d]
                seen[d] = state | 1
                if state == _CANDIDATE:
                    scores[d] += w * np.float64(v_arr[p])
        else:
            low = 0
            for i in range(len(candidates)):
                d = candidates[i]
                low = np.searchsorted(d_arr[low:], d) + low
                if low < len(d_arr) and d_arr[low] == d:
                    scores[d] += w * np.float64(v_arr[low])
    filled = 0
    threshold = -np.inf
    if pruned_from < n_lists:
        for i in range(len(candidates)):
            d = candidates[i]
            if scores[d] > threshold:
                filled, cut = _offer(buffer_docs, buffer_scores, filled, k, d, scores[d])
                threshold = max(threshold, cut)
        best, best_values = _best(buffer_docs, buffer_scores, filled, k)
    else:
        floor = _sampled_floor(scores, seen, mask, use_mask, k)
        filled = _above(scores, seen, mask, use_mask, floor, found)
        found_docs = found[:filled].astype(np.int64)
        best, best_values = _best_ascending(found_docs, scores[found_docs], filled, k)
    total = 0
    if count_total and use_mask:
        for d in range(size):
            total += (seen[d] != 0) & mask[d]
    elif count_total:
        for d in range(size):
            total += seen[d] != 0
    scores[:] = 0.0
    seen[:] = 0
    return best, best_values, total


# The kernel calls these compiled; numba compiles lazily, on the first search.
_offer = compiled.helper(_offer)
_best = compiled.helper(_best)
_sampled_floor = compiled.helper(_sampled_floor)
_above = compiled.helper(_above)
_best_ascending = compiled.helper(_best_ascending)
_compiled_kernel = compiled.compile_lazily(_kernel)
available = compiled.available


def _readonly(array: Any) -> Any:
    """A plain read-only view: numba compiles one variant for memory-mapped and built indexes."""
    view = np.asarray(array).view()
    view.setflags(write=False)
    return view


def warm() -> None:
    """Load (or compile) the kernel with one tiny search. It needs no corpus, so a starting
    process runs this while it reads the store: loading it costs ~0.6 s at the first search."""
    docs = np.arange(2, dtype=np.int32)
    search([Postings(docs, np.ones(2, dtype=np.float32), 0, 2, 1.0, 1.0)], 2, None, 1)


def search(
    lists: Sequence[Postings],
    size: int,
    mask: Any,
    k: int,
    *,
    prune: bool = False,
    count_total: bool = True,
) -> TopK:
    """The k best documents (score desc, doc asc), their scores and how many matched.

    `mask` (bool per document, or None) restricts both the top k and the total. Pruning needs
    every bound >= 0 (BM25 impacts with a non-negative IDF); otherwise all lists are summed.
    Without `count_total` the total is 0.

    Pruning is off by default: on 100k abstracts with conference titles as queries it was
    slower than the exhaustive pass (p50 0.45 vs 0.33 ms, benchmarks in the commit message):
    the candidates left after the rare terms are thousands, and the long lists must still be
    walked for them and for the total.
    """
    kernel = _compiled_kernel()
    if kernel is None:
        return search_numpy(lists, size, mask, k)
    if k <= 0 or not lists:
        found = search_numpy(lists, size, mask, 0)
        return TopK(found.docs, found.scores, found.total)
    items = ordered(lists)
    prune = prune and all(item.bound >= 0 and item.weight >= 0 for item in items)
    bounds = np.array([item.bound for item in items], dtype=np.float64)
    rest = np.concatenate([np.cumsum(bounds[::-1])[::-1][1:], [0.0]])
    own = [item for item in items if not item.extra] or items
    # The kernel reads from two pairs of arrays: the index's, and the extra lists laid end
    # to end (each is short next to the index, and copying it costs less than a dispatch).
    if len({id(item.docs) for item in own}) > 1:
        raise ValueError("postings lists come from more than one index")
    docs_all, impacts_all = _readonly(own[0].docs), _readonly(own[0].impacts)
    extras = [item for item in items if item.extra]
    starts = np.array([item.start for item in items], dtype=np.int64)
    ends = np.array([item.end for item in items], dtype=np.int64)
    if extras:
        extra_docs = _readonly(
            np.concatenate([item.docs[item.start : item.end] for item in extras])
        )
        extra_impacts = _readonly(
            np.concatenate([item.impacts[item.start : item.end] for item in extras])
        )
        placed = np.cumsum([0] + [item.end - item.start for item in extras])
        extra_at = [place for place, item in enumerate(items) if item.extra]
        starts[extra_at] = placed[:-1]
        ends[extra_at] = placed[1:]
    else:
        extra_docs, extra_impacts = docs_all, impacts_all
    from_extra = np.array([item.extra for item in items], dtype=np.bool_)
    weights = np.array([item.weight for item in items], dtype=np.float64)
    use_mask = mask is not None
    mask_array = mask if use_mask else np.zeros(1, dtype=np.bool_)
    _scratch.ensure(size)
    best, values, total = kernel(
        docs_all,
        impacts_all,
        extra_docs,
        extra_impacts,
        from_extra,
        starts,
        ends,
        weights,
        rest,
        mask_array,
        use_mask,
        prune,
        count_total,
        k,
        _scratch.scores,
        _scratch.seen,
        _scratch.found,
    )
    return TopK(best, values, int(total))
