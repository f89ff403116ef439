"""Exact top-k over impact postings, with safe term-at-a-time pruning (MaxScore bounds).

A query is a list of postings lists (document numbers ascending, float32 impacts) with weights,
plus the credit of each acronym alternative (`Credit`, a list described by its terms and only
computed where it is needed). Lists are summed in a fixed order, highest bound first, so every
path adds a document's contributions in the same order and gets bit-identical scores. After a
list, the k-th best partial score is a lower bound on the final k-th best score (impacts are
>= 0). Once the lists left can add less than that bound, no document outside the ones already
seen can enter the top k: the remaining lists are only looked up for the seen documents that
can still make it, by binary search, instead of being added in full. Ties: score descending,
then document ascending.

How many documents match (the union of all lists, for "N matching papers") is counted in a
bitmap: a skipped list is OR-ed in from its term's precomputed bitmap (`dense_bits`) when it has
one, else its documents are set one by one (a walk without the scoring). The scores live in a
dense per-thread array; when the walked lists are short next to the corpus, selection and reset
walk them again instead of scanning every document.

The loop is compiled with numba when it is installed; without it the same order of additions
runs exhaustively in numpy (`search_numpy`, the reference the kernel is tested against).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from retrieval import compiled
from retrieval.dense_bits import DenseBits, words_for

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# Relative slack on the pruning bound: the sum of maxima is rounded differently from the sum
# of the impacts it bounds; 1e-9 is orders of magnitude above float64 rounding of a few terms.
_SLACK = 1e-9
# A credit is rounded to float32 (as the list of impacts it stands for): its bound is raised
# by more than float32's relative rounding (6e-8).
CREDIT_BOUND_SLACK = 1e-6
# A pruning attempt is made only when the lists left hold this many times the postings walked:
# an attempt costs a pass over those walked, and at 100k papers the lists skipped after a late
# success save less than the passes cost (p90 0.98 vs 0.68 ms with any excess, measured).
_WORTH = 2
# Attempts at finding the pruning point per query (each costs a pass over the lists walked).
_ATTEMPTS = 8
# Kinds of list the kernel reads.
_INDEX, _EXTRA, _CREDIT = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Postings:
    """One weighted postings list: `docs[start:end]` (ascending) and `impacts[start:end]`.

    `docs`/`impacts` are the index's flat arrays (`term` its term number), or an extra list's
    own (`extra`).
    """

    docs: npt.NDArray[np.int32]
    impacts: npt.NDArray[np.float32]
    start: int
    end: int
    weight: float
    bound: float  # >= weight * every impact in the list
    extra: bool = False  # from the extra arrays, not the index's
    term: int = -1  # the index's term number, when known (for its bitmap)


@dataclass(frozen=True, slots=True)
class Credit:
    """The credit list of one acronym alternative, described by its terms' postings.

    For each document holding an `other` term: other = sum of `weight` * impact over the other
    terms (in order), written = sum of the `written` terms' impacts, credit = max(other -
    written, 0) rounded to float32, added with weight 1. A document is in the list when its
    credit is above zero or it holds no written term (one that does is matched by the written
    term's own list, which the query holds). Each term is (start, end, term number) in the
    index's arrays `docs`/`impacts`.
    """

    docs: npt.NDArray[np.int32]
    impacts: npt.NDArray[np.float32]
    other: tuple[tuple[int, int, int], ...]
    written: tuple[tuple[int, int, int], ...]
    weight: float
    bound: float  # >= every credit: weight * the other terms' largest impacts, raised a little
    built: Postings | None = None  # the list itself, when it was built ahead (`build`)


@dataclass(frozen=True, slots=True)
class TopK:
    docs: IntArray
    scores: FloatArray
    total: int  # documents holding any list's document and allowed by the mask


Item = Postings | Credit


def ordered(items: Sequence[Item]) -> list[Item]:
    """The summation order every path uses: postings lists highest bound first (then in the
    caller's order), each credit before the first list that costs more postings per unit of
    bound than it does, or last when it covers more postings than all the lists. A short
    credit with a high bound is walked early like a rare term; a credit over common words,
    whose bound is loose, comes late, where pruning usually leaves it computed only for the
    few candidates."""
    placed: list[Item] = sorted(
        (item for item in items if isinstance(item, Postings)), key=lambda item: -item.bound
    )
    credits = sorted(
        (item for item in items if isinstance(item, Credit)), key=lambda item: -item.bound
    )
    lists_cost = sum(_cost(item) for item in placed)
    for credit in credits:
        ratio = _cost(credit) / max(credit.bound, 1e-12)
        at = len(placed)
        if _cost(credit) > lists_cost:
            # Over more papers than all the query's lists ("CLIP" -> "contrastive language-image
            # pre-training"): its bound is loosest there; last, it is skipped when it can be.
            placed.append(credit)
            continue
        for place, item in enumerate(placed):
            if isinstance(item, Postings) and _cost(item) / max(item.bound, 1e-12) > ratio:
                at = place
                break
        placed.insert(at, credit)
    return placed


def _cost(item: Item) -> int:
    """Postings walked to add the item in full."""
    if isinstance(item, Credit):
        return sum(end - start for start, end, _ in item.other)
    return item.end - item.start


def materialize(credit: Credit, size: int) -> Postings | None:
    """The credit as a list of its own (numpy, over all `size` documents): the reference."""
    other = np.zeros(size, dtype=np.float64)
    holds_other = np.zeros(size, dtype=np.bool_)
    for start, end, _ in credit.other:
        docs = credit.docs[start:end]
        other[docs] += credit.weight * credit.impacts[start:end].astype(np.float64)
        holds_other[docs] = True
    written = np.zeros(size, dtype=np.float64)
    holds_written = np.zeros(size, dtype=np.bool_)
    for start, end, _ in credit.written:
        docs = credit.docs[start:end]
        written[docs] += 1.0 * credit.impacts[start:end].astype(np.float64)
        holds_written[docs] = True
    # Only where the other form occurs: with a negative IDF (a tiny corpus) the written form's
    # score is negative, and a paper without the other form must not gain from it.
    docs = np.flatnonzero(holds_other).astype(np.int32)
    value = np.maximum(other[docs] - written[docs], 0.0)
    keep = (value > 0.0) | ~holds_written[docs]
    if not keep.any():
        return None
    impacts = value[keep].astype(np.float32)
    return Postings(docs[keep], impacts, 0, int(keep.sum()), 1.0, credit.bound, extra=True)


def build(credit: Credit) -> Postings | None:
    """The credit as a list of its own, computed only over the papers holding the other form
    (compiled; `materialize` is the reference it equals)."""
    function = _compiled_credit_list()
    if function is None:  # pragma: no cover - the numpy path
        built = materialize(credit, int(credit.docs.max()) + 1 if len(credit.docs) else 0)
    else:
        docs = np.unique(np.concatenate([credit.docs[a:b] for a, b, _ in credit.other]))
        parts = [(a, b, True) for a, b, _ in credit.other] + [
            (a, b, False) for a, b, _ in credit.written
        ]
        out_docs = np.empty(len(docs), dtype=np.int32)
        out_values = np.empty(len(docs), dtype=np.float32)
        n = function(
            _readonly(credit.docs),
            _readonly(credit.impacts),
            np.array([part[0] for part in parts], dtype=np.int64),
            np.array([part[1] for part in parts], dtype=np.int64),
            np.array([part[2] for part in parts], dtype=np.bool_),
            credit.weight,
            docs.astype(np.int64),
            out_docs,
            out_values,
        )
        built = (
            Postings(out_docs[:n], out_values[:n], 0, n, 1.0, credit.bound, extra=True)
            if n
            else None
        )
    return built


def _credit_list(
    docs_all: Any,
    impacts_all: Any,
    part_start: Any,
    part_end: Any,
    part_other: Any,
    weight: float,
    docs: Any,
    out_docs: Any,
    out_values: Any,
) -> int:
    lows = part_start.copy()
    n = 0
    for i in range(len(docs)):
        inside, value = _credit_for(
            docs_all, impacts_all, part_start, part_end, part_other, lows, 0, len(part_start),
            weight, docs[i],
        )  # fmt: skip
        if inside:
            out_docs[n] = docs[i]
            out_values[n] = np.float32(value)
            n += 1
    return n


def search_numpy(
    lists: Sequence[Postings], size: int, mask: Any, k: int, credits: Sequence[Credit] = ()
) -> TopK:
    """Exhaustive reference: dense scores over all documents, same additions in the same order."""
    values = np.zeros(size, dtype=np.float64)
    matched = np.zeros(size, dtype=np.bool_)
    for entry in ordered([*lists, *credits]):
        item = materialize(entry, size) if isinstance(entry, Credit) else entry
        if item is None:
            continue
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
    """Per-thread buffers, left zeroed after each query (ranking runs in worker threads)."""

    def __init__(self) -> None:
        self.size = -1
        self.buffers: tuple[Any, ...] = ()

    def ensure(self, size: int) -> tuple[Any, ...]:
        if self.size != size:
            self.size = size
            words = words_for(size)
            union = np.zeros(words, dtype=np.uint64)
            visited = np.zeros(words, dtype=np.uint64)
            self.buffers = (
                np.zeros(size, dtype=np.float64),  # scores
                union,
                union.view(np.uint8),
                visited.view(np.uint8),
                np.zeros(size, dtype=np.float64),  # a credit's other-form sums
                np.zeros(size, dtype=np.float64),  # a credit's written-form sums
                np.zeros(size, dtype=np.uint8),  # a credit's flags per document
                np.zeros(size, dtype=np.int32),  # documents selected
            )
        return self.buffers


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


# Set bits per byte value: counts the union bitmap a byte at a time.
_BIT_COUNTS = np.array([bin(value).count("1") for value in range(256)], dtype=np.int64)
# The set bits of each byte value, lowest first.
_BIT_PLACES = np.array(
    [[bit for bit in range(8) if value >> bit & 1] + [0] * (8 - bin(value).count("1"))
     for value in range(256)],
    dtype=np.int64,
)  # fmt: skip


def _visit(
    mode: int,
    upto: int,
    kind: Any,
    starts: Any,
    ends: Any,
    docs_all: Any,
    extra_docs: Any,
    part_start: Any,
    part_end: Any,
    part_other: Any,
    scores: Any,
    visited: Any,
    mask: Any,
    use_mask: bool,
    value: float,
    out: Any,
    k: int,
    buffer_docs: Any,
    buffer_scores: Any,
    union: Any,
    matched_only: bool,
) -> int:
    """One pass over the documents of lists 0..upto-1 (a credit's: its other-form terms').

    mode 0: offer each document scoring above `value` once (allowed by the mask) to the best-k
    buffer; returns the fill. mode 1: each document once with a score >= `value` into `out`;
    returns how many.
    mode 2: zero the documents' scores. mode 3: mark each document (allowed by the mask) with
    a score >= `value` in `visited`; returns how many. Modes 0 and 1 mark documents in
    `visited`, and with
    `matched_only` skip those not in the `union` bitmap (a credit's other form alone).
    """
    n = 0
    threshold = value if mode == 0 else -np.inf
    for j in range(upto):
        is_credit = kind[j] == _CREDIT
        low, high = (starts[j], ends[j]) if is_credit else (0, 1)
        for q in range(low, high):
            if is_credit:
                if not part_other[q]:
                    continue
                arr = docs_all[part_start[q] : part_end[q]]
            elif kind[j] == _EXTRA:
                arr = extra_docs[starts[j] : ends[j]]
            else:
                arr = docs_all[starts[j] : ends[j]]
            for p in range(len(arr)):
                d = arr[p]
                if mode == 2:
                    scores[d] = 0.0
                    continue
                # The score test first: it is false for most documents, the bitmap's is not.
                if mode == 0 and not scores[d] > threshold:
                    continue
                bit = np.uint8(1 << (d & 7))
                if mode == 3:
                    fresh = scores[d] >= value and not visited[d >> 3] & bit
                    if fresh and (not use_mask or mask[d]):
                        visited[d >> 3] |= bit
                        n += 1
                    continue
                if visited[d >> 3] & bit:
                    continue
                visited[d >> 3] |= bit
                if use_mask and not mask[d]:
                    continue
                if matched_only and not (union[d >> 3] >> (d & 7)) & 1:
                    continue
                if mode == 0:
                    n, cut = _offer(buffer_docs, buffer_scores, n, k, d, scores[d])
                    threshold = max(threshold, cut)
                elif scores[d] >= value:
                    out[n] = d
                    n += 1
    return n


def _credit_in_full(
    docs_all: Any,
    impacts_all: Any,
    part_start: Any,
    part_end: Any,
    part_other: Any,
    low: int,
    high: int,
    weight: float,
    scores: Any,
    union: Any,
    other_sum: Any,
    written_sum: Any,
    holds: Any,
    best_partial: float,
    flags: Any,
    flagged_only: bool,
) -> float:
    """Add a credit list (parts low..high-1) to every document in it and mark them in `union`;
    returns the best partial score so far. With `flagged_only`, only the documents flagged in
    `flags` are computed, and the caller marks the union. holds[d]: 1 other form held, 2 done,
    4 written form held."""
    for q in range(low, high):
        if part_other[q]:
            for p in range(part_start[q], part_end[q]):
                d = docs_all[p]
                if flagged_only and not (flags[d >> 3] >> (d & 7)) & 1:
                    continue
                holds[d] |= 1
                other_sum[d] += weight * np.float64(impacts_all[p])
    # The written form ("vision language model" for VLM) may be far commoner than the other:
    # then each paper holding the other form looks it up instead of walking its postings.
    other_cost = 0
    written_cost = 0
    for q in range(low, high):
        if part_other[q]:
            other_cost += part_end[q] - part_start[q]
        else:
            written_cost += part_end[q] - part_start[q]
    look_up = 16 * other_cost < written_cost
    lows = part_start.copy()
    for q in range(low, high):
        if not part_other[q] and not look_up:
            for p in range(part_start[q], part_end[q]):
                d = docs_all[p]
                if holds[d] & 1:
                    written_sum[d] += 1.0 * np.float64(impacts_all[p])
                    holds[d] |= 4
    for q in range(low, high):
        if part_other[q]:
            for p in range(part_start[q], part_end[q]):
                d = docs_all[p]
                # The flag first: a bitmap in cache, where `holds` is a byte per document.
                if flagged_only and not (flags[d >> 3] >> (d & 7)) & 1:
                    continue
                if holds[d] & 3 == 1:
                    holds[d] |= 2
                    if look_up:
                        for r in range(low, high):
                            if part_other[r]:
                                continue
                            # Ascending within this other-form part: search on from the last
                            # place (a fresh binary search over 500k postings misses cache).
                            if lows[r] > part_end[r] or (
                                lows[r] > part_start[r] and docs_all[lows[r] - 1] >= d
                            ):
                                lows[r] = part_start[r]
                            at = _gallop(docs_all, lows[r], part_end[r], d)
                            lows[r] = at
                            if at < part_end[r] and docs_all[at] == d:
                                written_sum[d] += 1.0 * np.float64(impacts_all[at])
                                holds[d] |= 4
                    credit = max(other_sum[d] - written_sum[d], 0.0)
                    if credit > 0.0 or holds[d] & 4 == 0:
                        if not flagged_only:
                            union[d >> 3] |= np.uint8(1 << (d & 7))
                        value = scores[d] + 1.0 * np.float64(np.float32(credit))
                        scores[d] = value
                        best_partial = max(best_partial, value)
    for q in range(low, high):
        if part_other[q]:
            for p in range(part_start[q], part_end[q]):
                d = docs_all[p]
                if flagged_only and not (flags[d >> 3] >> (d & 7)) & 1:
                    continue
                if holds[d]:
                    other_sum[d] = 0.0
                    written_sum[d] = 0.0
                    holds[d] = 0
    return best_partial


def _credit_for(
    docs_all: Any,
    impacts_all: Any,
    part_start: Any,
    part_end: Any,
    part_other: Any,
    lows: Any,
    low: int,
    high: int,
    weight: float,
    d: int,
) -> tuple[bool, float]:
    """One document's credit (documents asked in ascending order; `lows` remembers where each
    part's search left off): whether it is in the list, and its float32-rounded value."""
    other = 0.0
    held = False
    for q in range(low, high):
        if part_other[q]:
            at = _gallop(docs_all, lows[q], part_end[q], d)
            lows[q] = at
            if at < part_end[q] and docs_all[at] == d:
                other += weight * np.float64(impacts_all[at])
                held = True
    if not held:
        return False, 0.0
    written = 0.0
    holds_written = False
    for q in range(low, high):
        if not part_other[q]:
            at = _gallop(docs_all, lows[q], part_end[q], d)
            lows[q] = at
            if at < part_end[q] and docs_all[at] == d:
                written += 1.0 * np.float64(impacts_all[at])
                holds_written = True
    credit = max(other - written, 0.0)
    return credit > 0.0 or not holds_written, np.float64(np.float32(credit))


def _gallop(docs: Any, low: int, high: int, d: int) -> int:
    """The first place in docs[low:high] (ascending) holding d or more: steps doubling from
    `low`, then a binary search over the last step, so a near target costs a few reads."""
    step = 1
    while low + step < high and docs[low + step] < d:
        step *= 2
    if low < high and docs[low] >= d:
        return low
    start = low + step // 2
    end = min(low + step, high)
    return start + int(np.searchsorted(docs[start:end], d))


def _keep_flagged(flags: Any, scores: Any, cut: float, counts: Any, places: Any) -> int:
    """Unflag the flagged documents scoring below `cut`; returns how many stay flagged. Only
    set bits are visited (`places[byte]` lists them), not all eight of every byte."""
    kept = 0
    for byte in range(len(flags)):
        bits = flags[byte]
        if bits == 0:
            continue
        for t in range(counts[bits]):
            bit = places[bits, t]
            if scores[8 * byte + bit] >= cut:
                kept += 1
            else:
                flags[byte] &= np.uint8(~(1 << bit) & 255)
    return kept


def _flagged(flags: Any, out: Any, counts: Any, places: Any) -> None:
    """The flagged documents into `out`, ascending (`out` holds exactly as many)."""
    n = 0
    for byte in range(len(flags)):
        bits = flags[byte]
        if bits == 0:
            continue
        for t in range(counts[bits]):
            out[n] = 8 * byte + places[bits, t]
            n += 1


def _mark(docs: Any, row: int, dense: Any, union_words: Any, union: Any) -> None:
    """Add a list's documents to the union: its bitmap when it has one, else one by one."""
    if row >= 0:
        for w in range(len(union_words)):
            union_words[w] |= dense[row, w]
    else:
        for p in range(len(docs)):
            d = docs[p]
            union[d >> 3] |= np.uint8(1 << (d & 7))


def _sampled_floor(scores: Any, union: Any, mask: Any, use_mask: bool, k: int) -> float:
    """A score the k-th best matched document reaches: the k-th best of an evenly spaced
    sample of the matched documents (a subset's k-th best is never above the whole set's).
    -inf when the sample holds fewer than k matched documents."""
    stride = max(1, len(scores) // _SAMPLES)
    sample = np.empty(len(scores) // stride + 1, dtype=np.float64)
    n = 0
    for d in range(0, len(scores), stride):
        if (union[d >> 3] >> (d & 7)) & 1 and (not use_mask or mask[d]):
            sample[n] = scores[d]
            n += 1
    if n < k:
        return -np.inf
    return float(np.partition(sample[:n], n - k)[n - k])


def _above(scores: Any, union: Any, mask: Any, use_mask: bool, floor: float, found: Any) -> int:
    """Every matched document scoring at least `floor`, into `found` in ascending order: the
    best k are among them. Returns how many.

    The test on the score comes first and is false for nearly every document once the floor
    is above zero, so the scan runs at memory speed instead of paying a branch per document.
    `found` is preallocated for all documents: growing an array inside the loop makes numba
    count references on every iteration (about 50x slower, measured).
    """
    filled = 0
    for d in range(len(scores)):
        if scores[d] >= floor and (union[d >> 3] >> (d & 7)) & 1 and (not use_mask or mask[d]):
            found[filled] = d
            filled += 1
    return filled


def _kernel(
    docs_all: Any,
    impacts_all: Any,
    extra_docs: Any,
    extra_impacts: Any,
    kind: Any,
    starts: Any,
    ends: Any,
    weights: Any,
    rows: Any,
    part_start: Any,
    part_end: Any,
    part_other: Any,
    part_row: Any,
    rest: Any,
    mask: Any,
    mask_bits: Any,
    use_mask: bool,
    prune: bool,
    count_total: bool,
    k: int,
    dense: Any,
    bit_counts: Any,
    bit_places: Any,
    scores: Any,
    union_words: Any,
    union: Any,
    visited: Any,
    other_sum: Any,
    written_sum: Any,
    holds: Any,
    found: Any,
) -> tuple[Any, Any, int]:
    size = len(scores)
    n_lists = len(weights)
    capacity = max(4 * k, 256)
    buffer_docs = np.empty(capacity, dtype=np.int64)
    buffer_scores = np.empty(capacity, dtype=np.float64)
    # Postings each list walks (a credit: its terms'), and what is left after list j.
    cost = np.zeros(n_lists, dtype=np.int64)
    for j in range(n_lists):
        if kind[j] == _CREDIT:
            for q in range(starts[j], ends[j]):
                cost[j] += part_end[q] - part_start[q]
        else:
            cost[j] = ends[j] - starts[j]
    remaining = np.zeros(n_lists + 1, dtype=np.int64)
    for j in range(n_lists - 1, -1, -1):
        remaining[j] = remaining[j + 1] + cost[j]
    pruned_from = n_lists
    candidates = np.empty(0, dtype=np.int64)
    n_candidates = 0
    best_partial = -np.inf
    walked = 0
    attempts = 0
    tried_at = 0
    theta = -np.inf
    for j in range(n_lists):
        if kind[j] == _CREDIT:
            best_partial = _credit_in_full(
                docs_all, impacts_all, part_start, part_end, part_other, starts[j], ends[j],
                weights[j], scores, union, other_sum, written_sum, holds, best_partial,
                visited, False,
            )  # fmt: skip
        else:
            if kind[j] == _EXTRA:
                d_arr = extra_docs[starts[j] : ends[j]]
                v_arr = extra_impacts[starts[j] : ends[j]]
            else:
                d_arr = docs_all[starts[j] : ends[j]]
                v_arr = impacts_all[starts[j] : ends[j]]
            w = weights[j]
            if rows[j] >= 0:
                _mark(d_arr, rows[j], dense, union_words, union)
                for p in range(len(d_arr)):
                    d = d_arr[p]
                    value = scores[d] + w * np.float64(v_arr[p])
                    scores[d] = value
                    best_partial = max(best_partial, value)
            else:
                for p in range(len(d_arr)):
                    d = d_arr[p]
                    union[d >> 3] |= np.uint8(1 << (d & 7))
                    value = scores[d] + w * np.float64(v_arr[p])
                    scores[d] = value
                    best_partial = max(best_partial, value)
        walked += cost[j]
        # Try when the lists left are longer than the ones read and might be skipped: the
        # k-th best partial score so far (each document once) bounds the final k-th best.
        # A failed attempt is a pass over the lists walked: the next one waits until they
        # are twice as long, so the attempts cost at most about one more such pass.
        if (
            prune
            and attempts < _ATTEMPTS
            and j + 1 < n_lists
            and rest[j] < best_partial
            and remaining[j + 1] > _WORTH * walked
            and walked >= 2 * tried_at
        ):
            attempts += 1
            tried_at = walked
            filled = _visit(
                0, j + 1, kind, starts, ends, docs_all, extra_docs, part_start, part_end,
                part_other, scores, visited, mask, use_mask, rest[j], found, k, buffer_docs,
                buffer_scores, union, False,
            )  # fmt: skip
            visited[:] = 0
            if filled < k:
                continue
            theta = np.partition(buffer_scores[:filled].copy(), filled - k)[filled - k]
            if rest[j] < theta - _SLACK * abs(theta):
                bound = theta - rest[j]
                bound -= _SLACK * abs(bound)
                # The candidates are flagged in `visited`: a list of them in document order
                # is only made once they are few (sorting 100k+ of them cost ~15 ms).
                n_candidates = _visit(
                    3, j + 1, kind, starts, ends, docs_all, extra_docs, part_start, part_end,
                    part_other, scores, visited, mask, use_mask, bound, found, k, buffer_docs,
                    buffer_scores, union, False,
                )  # fmt: skip
                pruned_from = j + 1
                break
    listed = False  # whether `candidates` lists the flagged documents
    for j in range(pruned_from, n_lists):
        if j > pruned_from:
            # Candidates that cannot reach theta with the lists left drop out.
            cut = theta - rest[j - 1]
            cut -= _SLACK * abs(cut)
            if listed:
                kept = 0
                for i in range(n_candidates):
                    d = candidates[i]
                    if scores[d] >= cut:
                        candidates[kept] = d
                        kept += 1
                    else:
                        visited[d >> 3] &= np.uint8(~(1 << (d & 7)) & 255)
                n_candidates = kept
            else:
                n_candidates = _keep_flagged(visited, scores, cut, bit_counts, bit_places)
        if 8 * n_candidates > cost[j]:
            # Many candidates: walk the list, adding where a candidate is (flag in `visited`).
            if kind[j] == _CREDIT:
                for q in range(starts[j], ends[j]):
                    if part_other[q]:
                        _mark(
                            docs_all[part_start[q] : part_end[q]], part_row[q], dense,
                            union_words, union,
                        )  # fmt: skip
                _credit_in_full(
                    docs_all, impacts_all, part_start, part_end, part_other, starts[j], ends[j],
                    weights[j], scores, union, other_sum, written_sum, holds, -np.inf, visited,
                    True,
                )  # fmt: skip
                continue
            if kind[j] == _EXTRA:
                d_arr = extra_docs[starts[j] : ends[j]]
                v_arr = extra_impacts[starts[j] : ends[j]]
            else:
                d_arr = docs_all[starts[j] : ends[j]]
                v_arr = impacts_all[starts[j] : ends[j]]
            w = weights[j]
            if rows[j] >= 0:
                _mark(d_arr, rows[j], dense, union_words, union)
            for p in range(len(d_arr)):
                d = d_arr[p]
                bit = np.uint8(1 << (d & 7))
                if rows[j] < 0:
                    union[d >> 3] |= bit
                if visited[d >> 3] & bit:
                    scores[d] += w * np.float64(v_arr[p])
            continue
        if not listed:
            candidates = np.empty(n_candidates, dtype=np.int64)
            _flagged(visited, candidates, bit_counts, bit_places)
            listed = True
        if kind[j] == _CREDIT:
            lows = part_start.copy()
            for q in range(starts[j], ends[j]):
                if part_other[q]:
                    _mark(
                        docs_all[part_start[q] : part_end[q]], part_row[q], dense, union_words,
                        union,
                    )  # fmt: skip
            for i in range(n_candidates):
                d = candidates[i]
                inside, value = _credit_for(
                    docs_all, impacts_all, part_start, part_end, part_other, lows, starts[j],
                    ends[j], weights[j], d,
                )  # fmt: skip
                if inside:
                    scores[d] += 1.0 * value
            continue
        if kind[j] == _EXTRA:
            d_arr = extra_docs[starts[j] : ends[j]]
            v_arr = extra_impacts[starts[j] : ends[j]]
        else:
            d_arr = docs_all[starts[j] : ends[j]]
            v_arr = impacts_all[starts[j] : ends[j]]
        w = weights[j]
        _mark(d_arr, rows[j], dense, union_words, union)
        low = 0
        for i in range(n_candidates):
            d = candidates[i]
            low = _gallop(d_arr, low, len(d_arr), d)
            if low < len(d_arr) and d_arr[low] == d:
                scores[d] += w * np.float64(v_arr[low])
    if pruned_from < n_lists and not listed:
        candidates = np.empty(n_candidates, dtype=np.int64)
        _flagged(visited, candidates, bit_counts, bit_places)
    visited[:] = 0
    if pruned_from < n_lists:
        filled = 0
        threshold = -np.inf
        for i in range(n_candidates):
            d = candidates[i]
            if scores[d] > threshold:
                filled, cut = _offer(buffer_docs, buffer_scores, filled, k, d, scores[d])
                threshold = max(threshold, cut)
        best, best_values = _best(buffer_docs, buffer_scores, filled, k)
    elif 4 * walked < size:
        # Short lists: select from their documents rather than scanning every document.
        filled = _visit(
            0, n_lists, kind, starts, ends, docs_all, extra_docs, part_start, part_end,
            part_other, scores, visited, mask, use_mask, -np.inf, found, k, buffer_docs,
            buffer_scores, union, True,
        )  # fmt: skip
        visited[:] = 0
        floor = -np.inf
        if filled >= k:
            floor = np.partition(buffer_scores[:filled].copy(), filled - k)[filled - k]
        c = _visit(
            1, n_lists, kind, starts, ends, docs_all, extra_docs, part_start, part_end,
            part_other, scores, visited, mask, use_mask, floor, found, k, buffer_docs,
            buffer_scores, union, True,
        )  # fmt: skip
        visited[:] = 0
        chosen = np.sort(found[:c].astype(np.int64))
        best, best_values = _best_ascending(chosen, scores[chosen], c, k)
    else:
        floor = _sampled_floor(scores, union, mask, use_mask, k)
        filled = _above(scores, union, mask, use_mask, floor, found)
        found_docs = found[:filled].astype(np.int64)
        best, best_values = _best_ascending(found_docs, scores[found_docs], filled, k)
    total = 0
    if count_total and use_mask:
        for i in range(len(union)):
            total += bit_counts[union[i] & mask_bits[i]]
    elif count_total:
        for i in range(len(union)):
            total += bit_counts[union[i]]
    if 4 * walked < size:
        _visit(
            2, pruned_from, kind, starts, ends, docs_all, extra_docs, part_start, part_end,
            part_other, scores, visited, mask, use_mask, 0.0, found, k, buffer_docs,
            buffer_scores, union, False,
        )  # fmt: skip
    else:
        scores[:] = 0.0
    union[:] = 0
    return best, best_values, total


# The kernel calls these compiled; numba compiles lazily, on the first search.
_offer = compiled.helper(_offer)
_best = compiled.helper(_best)
_best_ascending = compiled.helper(_best_ascending)
_visit = compiled.helper(_visit)
_credit_in_full = compiled.helper(_credit_in_full)
_credit_for = compiled.helper(_credit_for)
_gallop = compiled.helper(_gallop)
_mark = compiled.helper(_mark)
_keep_flagged = compiled.helper(_keep_flagged)
_flagged = compiled.helper(_flagged)
_sampled_floor = compiled.helper(_sampled_floor)
_above = compiled.helper(_above)
_compiled_kernel = compiled.compile_lazily(_kernel)
_compiled_credit_list = compiled.compile_lazily(_credit_list)
available = compiled.available


def _readonly(array: Any) -> Any:
    """A plain read-only view: numba compiles one variant for memory-mapped and built indexes."""
    view = np.asarray(array).view()
    view.setflags(write=False)
    return view


_NO_DENSE = np.zeros((0, 1), dtype=np.uint64)


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
    credits: Sequence[Credit] = (),
    dense: DenseBits | None = None,
    prune: bool = True,
    count_total: bool = True,
) -> TopK:
    """The k best documents (score desc, doc asc), their scores and how many matched.

    `mask` (bool per document, or None) restricts both the top k and the total. `credits` are
    summed as lists of their own (the written form of each must be among `lists`: a paper
    left out of a credit list for a zero credit is matched by it). `dense` (the index's term
    bitmaps) makes counting the total of long lists cheap. Pruning needs every bound >= 0
    (BM25 impacts with a non-negative IDF); otherwise all lists are summed. Without
    `count_total` the total is 0.
    """
    kernel = _compiled_kernel()
    if kernel is None:
        return search_numpy(lists, size, mask, k, credits)
    if k <= 0 or not (lists or credits):
        found = search_numpy(lists, size, mask, 0, credits)
        return TopK(found.docs, found.scores, found.total)
    items = ordered([*lists, *credits])
    prune = prune and all(item.bound >= 0 and item.weight >= 0 for item in items)
    bounds = np.array([item.bound for item in items], dtype=np.float64)
    rest = np.concatenate([np.cumsum(bounds[::-1])[::-1][1:], [0.0]])
    own = [item for item in items if not (isinstance(item, Postings) and item.extra)]
    # The kernel reads from two pairs of arrays: the index's, and the extra lists laid end
    # to end (each is short next to the index, and copying it costs less than a dispatch).
    if len({id(item.docs) for item in own}) > 1:
        raise ValueError("postings lists come from more than one index")
    first = own[0] if own else items[0]
    docs_all, impacts_all = _readonly(first.docs), _readonly(first.impacts)
    count = len(items)
    kind = np.zeros(count, dtype=np.int64)
    starts = np.zeros(count, dtype=np.int64)
    ends = np.zeros(count, dtype=np.int64)
    weights = np.zeros(count, dtype=np.float64)
    rows = np.full(count, -1, dtype=np.int64)
    parts: list[tuple[int, int, bool, int]] = []
    extras: list[Postings] = []
    placed = 0
    row_of = dense.row_of if dense is not None else None
    for place, item in enumerate(items):
        weights[place] = item.weight
        if isinstance(item, Credit) and item.built is not None:
            item = item.built  # the same list, read instead of computed
            weights[place] = item.weight
        if isinstance(item, Credit):
            kind[place] = _CREDIT
            starts[place] = len(parts)
            parts += [(start, end, True, term) for start, end, term in item.other]
            parts += [(start, end, False, term) for start, end, term in item.written]
            ends[place] = len(parts)
        elif item.extra:
            kind[place] = _EXTRA
            extras.append(item)
            starts[place] = placed
            placed += item.end - item.start
            ends[place] = placed
        else:
            starts[place], ends[place] = item.start, item.end
            if row_of is not None and item.term >= 0:
                rows[place] = row_of[item.term]
    if extras:
        extra_docs = _readonly(np.concatenate([e.docs[e.start : e.end] for e in extras]))
        extra_impacts = _readonly(np.concatenate([e.impacts[e.start : e.end] for e in extras]))
    else:
        extra_docs, extra_impacts = docs_all, impacts_all
    part_start = np.array([part[0] for part in parts], dtype=np.int64)
    part_end = np.array([part[1] for part in parts], dtype=np.int64)
    part_other = np.array([part[2] for part in parts], dtype=np.bool_)
    part_row = np.full(len(parts), -1, dtype=np.int64)
    if row_of is not None and parts:
        part_row[:] = row_of[[part[3] for part in parts]]
    scratch = _scratch.ensure(size)
    use_mask = mask is not None
    if use_mask:
        mask_bits = np.zeros(len(scratch[2]), dtype=np.uint8)
        packed = np.packbits(mask, bitorder="little")
        mask_bits[: len(packed)] = packed
        mask_array = mask
    else:
        mask_bits = np.zeros(1, dtype=np.uint8)
        mask_array = np.zeros(1, dtype=np.bool_)
    dense_words = dense.words if dense is not None and len(dense.words) else _NO_DENSE
    best, values, total = kernel(
        docs_all,
        impacts_all,
        extra_docs,
        extra_impacts,
        kind,
        starts,
        ends,
        weights,
        rows,
        part_start,
        part_end,
        part_other,
        part_row,
        rest,
        mask_array,
        mask_bits,
        use_mask,
        prune,
        count_total,
        k,
        dense_words,
        _BIT_COUNTS,
        _BIT_PLACES,
        *scratch,
    )
    return TopK(best, values, int(total))
