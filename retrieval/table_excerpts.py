"""Excerpts and lead sentences of a page of documents from the sentence table: a lookup and a
small scoring pass instead of re-analysing each abstract per question.

Which query terms each sentence holds, and where the words holding them start, is read off the
index's forward array through the table's token ranges (`sentence_hits`, one pass over the
page's tokens). Sentences then carry only their
matched terms (built in the query's order, as `frozenset.intersection` with the query builds
them, so scores sum in the same order, to the last bit) and no words: `excerpts` analyses only
the 1-2 sentences it shows. A document the table does not cover, or whose record is unusable,
or whose fetched abstract is not the length analysed, gets None: the caller falls back to the
abstract.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from retrieval.excerpts import Sentence, Word, excerpt_and_lead_of
from retrieval.index import BM25Index
from retrieval.models import Excerpt
from retrieval.sentence_hits import sentence_hits
from retrieval.sentence_table import STATE_UNUSABLE, SentenceTable
from retrieval.text import word_at

_NONE: frozenset[str] = frozenset()
ExcerptAndLead = tuple[Excerpt, Excerpt, float]


@dataclass(frozen=True, slots=True)
class _Held:
    """What one sentence holds of the query: its terms (in the query's order) and where the
    words holding them start in the cleaned text."""

    terms: frozenset[str]
    word_starts: tuple[int, ...]


class _MatchedWords:
    """`WordsOf` for table sentences: the words holding a query term, found by their starts."""

    __slots__ = ("_clean", "_first", "_held")

    def __init__(self, clean: str, held: dict[int, _Held], first: int) -> None:
        self._clean = clean
        self._held = held  # by sentence number in the table; this document's start at `first`
        self._first = first

    def __call__(self, sentence: Sentence) -> list[Word]:
        found = self._held.get(self._first + sentence.position)
        if found is None:
            return []
        words = (word_at(self._clean, start) for start in found.word_starts)
        return [word for word in words if word is not None]


def excerpts_from_table(
    index: BM25Index,
    table: SentenceTable,
    docs: Sequence[int | None],
    abstracts: Sequence[str],
    query_terms: Mapping[str, float],
    budget: int,
) -> list[ExcerptAndLead | None]:
    """`excerpt_and_lead` of each document's abstract (`abstracts[i]` is `docs[i]`'s), or None
    where the table cannot give it (and for a None document)."""
    found: list[ExcerptAndLead | None] = [None] * len(docs)
    usable = [i for i, doc in enumerate(docs) if _covers(index, table, doc, abstracts[i])]
    if not usable:
        return found
    if budget <= 0:
        for i in usable:
            found[i] = (Excerpt(()), Excerpt(()), 0.0)
        return found
    page = np.asarray([docs[i] for i in usable], dtype=np.int64)
    first = table.first_sentence[page].tolist()
    last = table.first_sentence[page + 1].tolist()
    held = _held(index, table, page, first, last, query_terms)
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
    return found


def _covers(index: BM25Index, table: SentenceTable, doc: int | None, abstract: str) -> bool:
    """Whether the table holds a usable record of `doc`, made from this abstract and from the
    index document `doc` is now."""
    if doc is None or doc >= table.size or int(table.state[doc]) == STATE_UNUSABLE:
        return False
    if int(table.length[doc]) != len(abstract):
        return False
    tokens = int(table.first_token[doc + 1]) - int(table.first_token[doc])
    return tokens == int(index.doc_len[doc])


def _held(
    index: BM25Index,
    table: SentenceTable,
    page: npt.NDArray[np.int64],
    first: Sequence[int],
    last: Sequence[int],
    query_terms: Mapping[str, float],
) -> dict[int, _Held]:
    """Sentence number (in the table) -> what it holds of the query, for sentences holding any."""
    terms = [term for term in query_terms if term in index.term_ids]
    if not terms:
        return {}
    numbers = [index.term_ids[term] for term in terms]
    sentences, places, offsets = sentence_hits(index, table, page, first, last, numbers)
    held_places: dict[int, set[int]] = {}
    held_offsets: dict[int, set[int]] = {}
    for sentence, place, offset in zip(
        sentences.tolist(), places.tolist(), offsets.tolist(), strict=True
    ):
        if sentence not in held_places:
            held_places[sentence] = set()
            held_offsets[sentence] = set()
        held_places[sentence].add(place)
        held_offsets[sentence].add(offset)
    held = {}
    for sentence, found in held_places.items():
        start = int(table.span_start[sentence])
        held[sentence] = _Held(
            # Built in the query's order, as `frozenset.intersection` with the query builds them.
            frozenset(terms[place] for place in sorted(found)),
            tuple(start + offset for offset in sorted(held_offsets[sentence])),
        )
    return held
