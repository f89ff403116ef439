"""Where the sentences of a page of documents hold query terms: one entry per token of a query
term, read off the index's forward array through the sentence table's token ranges.

Each entry is (sentence number in the table, the term's place in the query, where the token's
word starts in its sentence), in document, sentence and token order. One compiled pass over
the page's tokens (a few microseconds).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from retrieval.snapshot.compiled import kernel, readonly
from retrieval.snapshot.matrix import BM25Index
from retrieval.snapshot.sentences import SentenceTable

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
    bound = int(np.asarray(index.doc_len)[page].sum())
    places = np.empty((2, bound), dtype=np.int64)
    offsets = np.empty((2, bound), dtype=np.int64)
    counts = _hits(
        readonly(index.forward),
        readonly(index.doc_start),
        readonly(table.first_token),
        readonly(table.token_start),
        readonly(table.token_end),
        readonly(table.word_offset),
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


@kernel
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
