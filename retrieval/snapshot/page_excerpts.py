"""Excerpts and lead sentences of a page of documents, the one way answers, explanations and
digests get them: from the sentence table, a lookup and a small scoring pass instead of
re-analysing each abstract per question.

Which query terms each sentence holds, and where the words holding them start, is read off the
index's forward array through the table's token ranges (`sentence_hits`, one pass over the
page's tokens). Sentences then carry only their
matched terms (built in the query's order, as `frozenset.intersection` with the query builds
them, so scores sum in the same order, to the last bit) and no words: `excerpts` analyses only
the 1-2 sentences it shows. A document the table does not cover, or whose record is unusable,
or whose fetched abstract is not the length analysed (or a paper without a document), has its
abstract analysed here instead (`excerpts.analyse`, the sentences the table saves), so the
choice and the rendering are the same code either way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from retrieval.excerpts import Sentence, Word, analyse, excerpt_and_lead_of
from retrieval.models import Excerpt
from retrieval.snapshot.matrix import BM25Index
from retrieval.snapshot.sentence_hits import sentence_hits
from retrieval.snapshot.sentences import STATE_UNUSABLE, SentenceTable
from retrieval.text import word_at

_NONE: frozenset[str] = frozenset()
ExcerptAndLead = tuple[Excerpt, Excerpt, float]
# Papers the table does not hold yet (just ingested) are often asked about again.
_analysed = lru_cache(maxsize=512)(analyse)


class _Held(NamedTuple):
    """What one sentence holds of the query: its terms (in the query's order) and where the
    words holding them start in the cleaned text."""

    terms: frozenset[str]
    word_starts: tuple[int, ...]


class _MatchedWords:
    """`WordsOf` for table sentences: the words holding a query term, found by their starts."""

    __slots__ = ("_clean", "_first", "_found", "_held")

    def __init__(self, clean: str, held: dict[int, _Held], first: int) -> None:
        self._clean = clean
        self._held = held  # by sentence number in the table; this document's start at `first`
        self._first = first
        self._found: dict[int, list[Word]] = {}  # the excerpt and the lead share sentences

    def __call__(self, sentence: Sentence) -> list[Word]:
        words = self._found.get(sentence.position)
        if words is None:
            held = self._held.get(self._first + sentence.position)
            starts = () if held is None else held.word_starts
            found = (word_at(self._clean, start) for start in starts)
            words = self._found[sentence.position] = [word for word in found if word is not None]
        return words


def page_excerpts(
    index: BM25Index | None,
    table: SentenceTable | None,
    docs: Sequence[int | None],
    abstracts: Sequence[str],
    query_terms: Mapping[str, float],
    budget: int,
) -> list[ExcerptAndLead]:
    """(excerpt, lead sentence, its score) of each abstract for `query_terms` (term -> weight):
    the best 1-2 sentences in text order with matched words marked and the single best one,
    each at most `budget` characters (without a match: the opening, scored 0.0). `abstracts[i]`
    is document `docs[i]`'s (None: a paper the index does not hold; all of them without a
    table)."""
    if budget <= 0:
        return [(Excerpt(()), Excerpt(()), 0.0)] * len(docs)
    found: list[ExcerptAndLead | None] = [None] * len(docs)
    usable = [i for i, doc in enumerate(docs) if covers(index, table, doc, abstracts[i])]
    if usable and index is not None and table is not None:
        page = np.asarray([docs[i] for i in usable], dtype=np.int64)
        first = table.first_sentence[page].tolist()
        last = table.first_sentence[page + 1].tolist()
        held = _held(index, table, page, query_terms)
        for i, doc, begin, end in zip(usable, page.tolist(), first, last, strict=True):
            starts = table.span_start[begin:end].tolist()
            ends = table.span_end[begin:end].tolist()
            sentences = []
            for number, (start, stop) in enumerate(zip(starts, ends, strict=True)):
                mine = held.get(begin + number)
                terms = _NONE if mine is None else mine.terms
                sentences.append(Sentence(number, start, stop, None, terms))
            clean = table.clean_text(doc, abstracts[i])
            words = _MatchedWords(clean, held, begin)
            found[i] = excerpt_and_lead_of(clean, sentences, query_terms, budget, words)
    return [
        made if made is not None else excerpt_and_lead_of(*_analysed(abstract), query_terms, budget)
        for made, abstract in zip(found, abstracts, strict=True)
    ]


def covers(
    index: BM25Index | None, table: SentenceTable | None, doc: int | None, abstract: str
) -> bool:
    """Whether the table holds a usable record of `doc`, made from this abstract and from the
    index document `doc` is now."""
    if index is None or table is None or doc is None:
        return False
    if doc >= table.size or int(table.state[doc]) == STATE_UNUSABLE:
        return False
    if int(table.length[doc]) != len(abstract):
        return False
    tokens = int(table.first_token[doc + 1]) - int(table.first_token[doc])
    return tokens == int(index.doc_len[doc])


def _held(
    index: BM25Index,
    table: SentenceTable,
    page: npt.NDArray[np.int64],
    query_terms: Mapping[str, float],
) -> dict[int, _Held]:
    """Sentence number (in the table) -> what it holds of the query, for sentences holding any."""
    terms = [term for term in query_terms if term in index.term_ids]
    if not terms:
        return {}
    numbers = [index.term_ids[term] for term in terms]
    docs = np.unique(page)
    first = table.first_sentence[docs].tolist()
    last = table.first_sentence[docs + 1].tolist()
    by_term, places, by_word, offsets = sentence_hits(index, table, docs, first, last, numbers)
    # Where each word starts in the cleaned text: its sentence's start plus its offset in it.
    starts = (table.span_start[by_word] + offsets).tolist()
    places_of = places.tolist()
    # Terms in the query's order, as `frozenset.intersection` with the query adds them.
    held_terms = {
        sentence: frozenset([terms[place] for place in places_of[low:high]])
        for sentence, low, high in _runs(by_term)
    }
    return {
        sentence: _Held(held_terms[sentence], tuple(starts[low:high]))
        for sentence, low, high in _runs(by_word)
    }


def _runs(values: npt.NDArray[np.int64]) -> list[tuple[int, int, int]]:
    """(value, start, end) of each run of equal values in `values`."""
    cuts = (np.flatnonzero(values[1:] != values[:-1]) + 1).tolist()
    lows, highs = [0, *cuts], [*cuts, len(values)]
    return list(zip(values[lows].tolist(), lows, highs, strict=True)) if len(values) else []
