"""The BM25 index's arrays built a chunk of documents at a time, in memory close to the result's.

Building over a million abstracts in one piece held several full copies of the postings at
once (an int64 (term, document) pair per token, the sort's output, the merge's scatter
positions): 6.8 GB at 1M. Here each chunk of documents is numbered and sorted on its own and
kept compactly (chunk-local document numbers and term frequencies in the smallest unsigned
type that holds them); `arrays()` then counts each term's postings over all chunks and copies
every chunk into its place in preallocated postings, freeing the chunk as it goes.

The result is the one-piece build's, array for array: terms are numbered in order of first
occurrence over the documents in order, and a term's postings are its documents in ascending
order, because chunks hold consecutive documents and are placed in order. Extending an index
(`BM25Index.extend`) is the same build with the old index as the first chunk.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
Int32Array = npt.NDArray[np.int32]

# Tokens numbered at once: bounds the token strings alive (~60 bytes each) to ~60 MB.
_TOKEN_BATCH = 1 << 20


class IndexedArrays(Protocol):
    """What a build extends: an index's terms and its document-level arrays."""

    @property
    def terms(self) -> list[str]: ...
    @property
    def offsets(self) -> IntArray: ...
    @property
    def postings_docs(self) -> Int32Array: ...
    @property
    def postings_tf(self) -> Int32Array: ...
    @property
    def doc_len(self) -> IntArray: ...
    @property
    def keys(self) -> IntArray: ...
    @property
    def forward(self) -> Int32Array: ...


@dataclass(frozen=True, slots=True)
class IndexArrays:
    """An index's terms (by number) and the arrays BM25 statistics are computed from."""

    terms: list[str]
    offsets: IntArray
    postings_docs: Int32Array
    postings_tf: Int32Array
    doc_len: IntArray
    keys: IntArray
    forward: Int32Array


@dataclass(slots=True)
class _Chunk:
    """One chunk's postings sorted by (term, document): how many each term has (terms numbered
    before the chunk ended), chunk-local document numbers and term frequencies."""

    first_doc: int
    counts: IntArray
    docs: npt.NDArray[Any]
    tf: npt.NDArray[Any]


def number_tokens(
    documents: Iterable[Sequence[str]], keys: Sequence[int], term_ids: dict[str, int]
) -> tuple[Int32Array, IntArray]:
    """Every document's tokens as term numbers, end to end, and each document's length.

    New terms are added to `term_ids` with the next numbers, in order of first occurrence (as
    rank-bm25 fills its dictionaries). Tokens are numbered a batch at a time, so a generator
    of documents never has more than a batch of token strings alive.
    """
    numbered: list[Int32Array] = []
    lengths: list[int] = []
    batch: list[str] = []
    for document in documents:
        batch.extend(document)
        lengths.append(len(document))
        if len(batch) >= _TOKEN_BATCH:
            numbered.append(_numbers(batch, term_ids))
            batch = []
    numbered.append(_numbers(batch, term_ids))
    doc_len = np.array(lengths, dtype=np.int64)
    if len(doc_len) != len(keys):
        raise ValueError(f"{len(doc_len)} documents but {len(keys)} keys")
    numbers = numbered[0] if len(numbered) == 1 else np.concatenate(numbered)
    return numbers, doc_len


def _numbers(tokens: list[str], term_ids: dict[str, int]) -> Int32Array:
    """Term numbers of `tokens`, numbering new terms on in order of first occurrence.

    Known tokens are looked up in one pass at C speed (`map`); only the unknown ones are
    visited in Python, in order, so first occurrences keep their order.
    """
    numbers = np.fromiter(map(term_ids.get, tokens, repeat(-1)), np.int32, count=len(tokens))
    unknown = np.flatnonzero(numbers < 0).tolist()
    if unknown:
        for position in unknown:
            term_ids.setdefault(tokens[position], len(term_ids))
        numbers[unknown] = [term_ids[tokens[position]] for position in unknown]
    return numbers


class IndexBuilder:
    """Add documents a chunk at a time (`add`), then take the index's arrays (`arrays`).

    `base`, an existing index, holds the first documents: the build extends it without
    re-reading its documents, and leaves it unchanged.
    """

    def __init__(self, base: IndexedArrays | None = None) -> None:
        self._base = base
        # Base terms keep their numbers; new ones are numbered on from there.
        self._term_ids: dict[str, int] = {} if base is None else dict(_numbered(base.terms))
        self._size = 0 if base is None else len(base.keys)
        self._chunks: list[_Chunk] = []
        self._forward: list[Int32Array] = []
        self._doc_len: list[IntArray] = []
        self._keys: list[IntArray] = []

    @property
    def size(self) -> int:
        """Documents so far, the base's included."""
        return self._size

    def add(self, documents: Iterable[Sequence[str]], keys: Sequence[int]) -> None:
        """Append documents (token lists; a generator will do), `keys[i]` identifying the i-th."""
        tokens, doc_len = number_tokens(documents, keys, self._term_ids)
        if not len(doc_len):
            return
        self._chunks.append(_sorted_postings(tokens, doc_len, len(self._term_ids), self._size))
        self._forward.append(_own_pages(tokens))
        self._doc_len.append(doc_len)
        self._keys.append(np.asarray(keys, dtype=np.int64))
        self._size += len(doc_len)

    def arrays(self) -> IndexArrays:
        """The index's arrays over every document added; the builder is spent afterwards."""
        base = self._base
        term_count = len(self._term_ids)
        totals = np.zeros(term_count, dtype=np.int64)
        if base is not None:
            totals[: len(base.terms)] += np.diff(base.offsets)
        for chunk in self._chunks:
            totals[: len(chunk.counts)] += chunk.counts
        offsets = np.zeros(term_count + 1, dtype=np.int64)
        np.cumsum(totals, out=offsets[1:])
        del totals
        postings_docs = np.empty(int(offsets[-1]), dtype=np.int32)
        postings_tf = np.empty(int(offsets[-1]), dtype=np.int32)
        # Where each term's next postings go: after the ones placed so far (earlier documents).
        cursor = offsets[:-1].copy()
        if base is not None:
            counts = np.diff(base.offsets)
            slots = _slots(cursor, counts)
            postings_docs[slots] = base.postings_docs
            postings_tf[slots] = base.postings_tf
            cursor[: len(counts)] += counts
        while self._chunks:
            chunk = self._chunks.pop(0)
            slots = _slots(cursor, chunk.counts)
            docs = chunk.docs.astype(np.int32)
            docs += chunk.first_doc
            postings_docs[slots] = docs
            postings_tf[slots] = chunk.tf
            cursor[: len(chunk.counts)] += chunk.counts
            del chunk, slots, docs
        prefix = [] if base is None else [base]
        return IndexArrays(
            terms=list(self._term_ids),
            offsets=offsets,
            postings_docs=postings_docs,
            postings_tf=postings_tf,
            doc_len=_joined([p.doc_len for p in prefix], self._doc_len, np.int64),
            keys=_joined([p.keys for p in prefix], self._keys, np.int64),
            forward=_joined([p.forward for p in prefix], self._forward, np.int32),
        )


def _numbered(terms: list[str]) -> Iterator[tuple[str, int]]:
    """(term, number) for terms listed by number."""
    return zip(terms, range(len(terms)), strict=True)


def _sorted_postings(tokens: Int32Array, doc_len: IntArray, terms: int, first_doc: int) -> _Chunk:
    """A chunk's postings sorted by (term, document), run lengths being term frequencies."""
    width = len(doc_len)
    pair = tokens.astype(np.int64)
    pair *= width
    pair += np.repeat(np.arange(width, dtype=np.int64), doc_len)
    pair.sort()
    first = np.ones(len(pair), dtype=np.bool_)
    np.not_equal(pair[1:], pair[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    del first
    tf = np.diff(starts, append=len(pair))
    pairs = pair[starts]
    del pair, starts
    counts = np.bincount(pairs // width, minlength=terms).astype(np.int64)
    docs = pairs % width
    return _Chunk(first_doc, counts, _own_pages(_compact(docs)), _own_pages(_compact(tf)))


def _compact(values: IntArray) -> npt.NDArray[Any]:
    """`values` (non-negative) in the smallest unsigned type that holds them all."""
    largest = int(values.max()) if len(values) else 0
    return values.astype(np.min_scalar_type(largest))


def _own_pages(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A copy of `values` in an anonymous memory map of its own.

    The chunks are freed one by one while the final arrays fill. Freed from the C heap, their
    memory stayed with the process for reuse (about 1 GB at a million papers, on top of the
    final arrays); a map of its own goes back to the system when its chunk is freed.
    """
    if not values.nbytes:
        return values
    pages = mmap.mmap(-1, values.nbytes)
    copy = np.frombuffer(pages, dtype=values.dtype, count=len(values))
    copy[:] = values
    return copy


def _slots(cursor: IntArray, counts: IntArray) -> IntArray:
    """Positions in the postings of a run sorted by term with `counts` per term, each term's
    first going to `cursor[term]`."""
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    slots = np.arange(int(counts.sum()), dtype=np.int64)
    slots += np.repeat(cursor[: len(counts)] - starts, counts)
    return slots


def _joined(
    prefix: list[npt.NDArray[Any]], parts: list[npt.NDArray[Any]], dtype: type[Any]
) -> npt.NDArray[Any]:
    """`prefix` and then `parts` end to end; each part is released once copied."""
    total = sum(len(part) for part in prefix) + sum(len(part) for part in parts)
    joined = np.empty(total, dtype=dtype)
    at = 0
    for part in prefix:
        joined[at : at + len(part)] = part
        at += len(part)
    while parts:
        part = parts.pop(0)
        joined[at : at + len(part)] = part
        at += len(part)
        del part
    return joined
