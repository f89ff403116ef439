"""Where the sentences of a page of documents hold query terms: one entry per token of a query
term, read off the index's forward array through the sentence table's token ranges.

Each entry is (sentence number in the table, the term's place in the query, where the token's
word starts in its sentence), in document, sentence and token order. Compiled when numba is
there (one pass over the page's tokens, a few microseconds); the numpy version is the reference
it is tested against and the path without numba.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from retrieval import compiled
from retrieval.index import BM25Index
from retrieval.sentence_table import SentenceTable

IntArray = npt.NDArray[np.int64]
# (sentence, query place) pairs, then (sentence, word offset) pairs: each sorted, no repeats.
Hits = tuple[IntArray, IntArray, IntArray, IntArray]


def sentence_hits(
    index: BM25Index,
    table: SentenceTable,
    page: IntArray,
    first: Sequence[int],
    last: Sequence[int],
    numbers: Sequence[int],
) -> Hits:
    """The hits of query term `numbers` (distinct, in query order) in sentences
    `first[i]..last[i]-1` of document `page[i]`; `page` ascending, without repeats."""
    kernel = _compiled_hits()
    if kernel is None:  # pragma: no cover - the numpy version is tested directly
        return sentence_hits_numpy(index, table, page, first, last, numbers)
    bound = int(np.asarray(index.doc_len)[page].sum())
    places = np.empty((2, bound), dtype=np.int64)
    offsets = np.empty((2, bound), dtype=np.int64)
    counts = kernel(
        index.forward,
        index.doc_start,
        table.first_token,
        table.token_start,
        table.token_end,
        table.word_offset,
        page,
        np.asarray(first, dtype=np.int64),
        np.asarray(last, dtype=np.int64),
        np.asarray(numbers, dtype=np.int64),
        _scratch.local_numbers(len(index.terms)),
        places,
        offsets,
    )
    held, starts = counts
    return places[0, :held], places[1, :held], offsets[0, :starts], offsets[1, :starts]


class _Scratch(threading.local):
    """Per thread: term number -> place in the query (-1 elsewhere); the kernel sets and
    clears only the query's entries, so a question costs nothing per vocabulary term."""

    def __init__(self) -> None:
        self.local = np.full(0, -1, dtype=np.int64)

    def local_numbers(self, vocabulary: int) -> Any:
        if len(self.local) != vocabulary:
            self.local = np.full(vocabulary, -1, dtype=np.int64)
        return self.local


_scratch = _Scratch()


def _hits(
    forward: Any,
    doc_start: Any,
    first_token: Any,
    token_start: Any,
    token_end: Any,
    word_offset: Any,
    page: Any,
    first: Any,
    last: Any,
    numbers: Any,
    local: Any,
    places: Any,
    offsets: Any,
) -> tuple[int, int]:
    width = len(numbers)
    for place in range(width):
        local[numbers[place]] = place
    seen = np.zeros(width, dtype=np.bool_)
    held = 0
    starts = 0
    for n in range(len(page)):
        doc = page[n]
        base = doc_start[doc]
        entry = first_token[doc]
        for sentence in range(first[n], last[n]):
            previous = -1
            found = 0
            for token in range(token_start[sentence], token_end[sentence]):
                place = local[forward[base + token]]
                if place < 0:
                    continue
                found += 1
                seen[place] = True
                # A sentence's tokens come in text order, so its word starts never decrease.
                offset = word_offset[entry + token]
                if offset != previous:
                    offsets[0, starts] = sentence
                    offsets[1, starts] = offset
                    starts += 1
                    previous = offset
            if found:
                for place in range(width):
                    if seen[place]:
                        places[0, held] = sentence
                        places[1, held] = place
                        held += 1
                        seen[place] = False
    for place in range(width):
        local[numbers[place]] = -1
    return held, starts


_compiled_hits = compiled.compile_lazily(_hits)


def sentence_hits_numpy(
    index: BM25Index,
    table: SentenceTable,
    page: IntArray,
    first: Sequence[int],
    last: Sequence[int],
    numbers: Sequence[int],
) -> Hits:
    """The same hits, vectorised over every token of the page's sentences."""
    counts = np.asarray(last, dtype=np.int64) - np.asarray(first, dtype=np.int64)
    nothing = np.zeros(0, dtype=np.int64)
    if not len(numbers) or not counts.sum():
        return nothing, nothing, nothing, nothing
    query = np.asarray(numbers, dtype=np.int64)
    order = np.argsort(query)
    ordered = query[order]
    sentences = np.concatenate(
        [np.arange(begin, end, dtype=np.int64) for begin, end in zip(first, last, strict=True)]
    )
    owners = np.repeat(np.arange(len(page)), counts)
    starts = np.asarray(table.token_start)[sentences].astype(np.int64)
    lengths = np.asarray(table.token_end)[sentences].astype(np.int64) - starts
    # Every token of the page's sentences by its place in its document: in the forward array
    # from the document's start, in `word_offset` from the document's first entry.
    within = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
    doc_start = np.asarray(index.doc_start)[page][owners]
    tokens = np.asarray(index.forward)[within + np.repeat(doc_start, lengths)]
    slot = np.minimum(np.searchsorted(ordered, tokens), len(ordered) - 1)
    hit = np.flatnonzero(ordered[slot] == tokens)
    entries = within[hit] + np.repeat(np.asarray(table.first_token)[page][owners], lengths)[hit]
    sentence = np.repeat(sentences, lengths)[hit]
    place = np.unique(sentence * len(query) + order[slot[hit]])
    span = 1 << 16  # word offsets are 16-bit
    offset = np.unique(sentence * span + np.asarray(table.word_offset)[entries].astype(np.int64))
    return place // len(query), place % len(query), offset // span, offset % span
