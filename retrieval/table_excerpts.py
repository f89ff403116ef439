"""Excerpts and lead sentences of a page of documents from the sentence table: a lookup and a
small scoring pass instead of re-analysing each abstract per question.

Which query terms each sentence holds is read off the index's forward array: the page's
sentences' token ranges are gathered into one array, and one sorted search against the query's
term numbers finds every (sentence, query term) pair at once. Sentences then carry only their
matched terms (built in the query's order, as `frozenset.intersection` with the query builds
them, so scores sum in the same order, to the last bit) and no words: `excerpts` analyses only
the 1-2 sentences it shows. A document the table does not cover, or whose record is unusable,
or whose fetched abstract is not the length analysed, gets None: the caller falls back to the
abstract.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from retrieval.excerpts import Sentence, excerpt_and_lead_of
from retrieval.index import BM25Index
from retrieval.models import Excerpt
from retrieval.sentence_table import STATE_UNUSABLE, SentenceTable

_NONE: frozenset[str] = frozenset()
ExcerptAndLead = tuple[Excerpt, Excerpt, float]


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
    usable = [
        i
        for i, doc in enumerate(docs)
        if doc is not None
        and doc < table.size
        and int(table.state[doc]) != STATE_UNUSABLE
        and int(table.length[doc]) == len(abstracts[i])
    ]
    if not usable:
        return found
    if budget <= 0:
        for i in usable:
            found[i] = (Excerpt(()), Excerpt(()), 0.0)
        return found
    page = np.asarray([docs[i] for i in usable], dtype=np.int64)
    first = table.first_sentence[page].tolist()
    last = table.first_sentence[page + 1].tolist()
    matched = _matched_terms(index, table, page, first, last, query_terms)
    for i, doc, begin, end in zip(usable, page.tolist(), first, last, strict=True):
        starts = table.span_start[begin:end].tolist()
        ends = table.span_end[begin:end].tolist()
        sentences = [
            Sentence(number, start, stop, None, matched.get(begin + number, _NONE))
            for number, (start, stop) in enumerate(zip(starts, ends, strict=True))
        ]
        clean = table.clean_text(doc, abstracts[i])
        found[i] = excerpt_and_lead_of(clean, sentences, query_terms, budget)
    return found


def _matched_terms(
    index: BM25Index,
    table: SentenceTable,
    page: np.ndarray,
    first: Sequence[int],
    last: Sequence[int],
    query_terms: Mapping[str, float],
) -> dict[int, frozenset[str]]:
    """Sentence number (in the table) -> the query terms it holds, in the query's order."""
    terms = [term for term in query_terms if term in index.term_ids]
    if not terms:
        return {}
    numbers = np.asarray([index.term_ids[term] for term in terms], dtype=np.int64)
    order = np.argsort(numbers)
    sorted_numbers = numbers[order]
    sentences = np.concatenate(
        [np.arange(begin, end, dtype=np.int64) for begin, end in zip(first, last, strict=True)]
    )
    if not len(sentences):
        return {}
    starts = table.token_start[sentences].astype(np.int64)
    lengths = table.token_end[sentences].astype(np.int64) - starts
    owners = np.repeat(np.arange(len(page)), np.asarray(last) - np.asarray(first))
    # Every token of the page's sentences: its position in the forward array, its sentence.
    absolute = starts + index.doc_start[page][owners]
    total = int(lengths.sum())
    shift = np.repeat(absolute - np.cumsum(lengths) + lengths, lengths)
    tokens = np.asarray(index.forward[shift + np.arange(total)], dtype=np.int64)
    slot = np.minimum(np.searchsorted(sorted_numbers, tokens), len(sorted_numbers) - 1)
    hit = sorted_numbers[slot] == tokens
    # (sentence, position of the term in the query), deduplicated and sorted: by sentence,
    # then in the query's order.
    pairs = np.unique(np.repeat(sentences, lengths)[hit] * len(terms) + order[slot[hit]])
    held: dict[int, list[str]] = {}
    for sentence, term in zip(
        (pairs // len(terms)).tolist(), (pairs % len(terms)).tolist(), strict=True
    ):
        held.setdefault(sentence, []).append(terms[term])
    return {sentence: frozenset(found) for sentence, found in held.items()}
