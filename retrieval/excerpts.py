"""Excerpts: the 1-2 sentences of an abstract that best match a question, with matched words
marked, trimmed to a character budget; and the single best sentence for the lead answer.

Work happens on `clean_for_display(abstract)`, the text users see, so marks land on displayed
words; its terms equal the abstract's index terms. Cuts fall only at whitespace, so no word or
mark is ever split, and `len(excerpt.plain) <= budget` always holds.

Choosing and rendering need little of an abstract: each sentence's span and which query terms
it holds, and for the 1-2 sentences shown, the words that hold one (to place the marks). So
`excerpt_and_lead_of` takes sentences whose `terms` need only be those the query has and whose
words may come from a `WordsOf` on demand. Its one caller is `snapshot.page_excerpts`:
sentences from the sentence table saved beside the index (no analysis per question), or for a
paper the table does not hold yet, from `analyse` (which also decides what the table saves).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Final, NamedTuple

from retrieval.models import Excerpt, Span
from retrieval.sentences import split_sentences
from retrieval.text import clean_for_display, word_terms

ELLIPSIS: Final = "…"
_GAP: Final = f" {ELLIPSIS} "  # between sentences that are not adjacent
_LEAD: Final = f"{ELLIPSIS} "  # a sentence cut at its start
_TAIL: Final = f" {ELLIPSIS}"  # a sentence cut at its end
_CHUNK = re.compile(r"\S+")

Word = tuple[int, int, tuple[str, ...]]  # (start, end, terms), as `word_terms` gives them
_Length = Callable[[int, int], int]  # characters shown for chunks i..j, ellipses included
WordsOf = Callable[["Sentence"], Sequence[Word]]  # the words of a sentence that is shown


class Sentence(NamedTuple):
    """A sentence of the cleaned text: its position and span, its words (None when a `WordsOf`
    gives them) and its terms. Scoring is one set intersection with the query and marking looks
    only at words holding a query term, so `terms` may be just those of its terms the query
    has, and the words just those that hold one."""

    position: int  # its place among the abstract's sentences
    start: int
    end: int
    words: tuple[Word, ...] | None
    terms: frozenset[str]


def _own_words(sentence: Sentence) -> Sequence[Word]:
    return sentence.words or ()


class _Scored(NamedTuple):  # a tuple: made for every matching sentence of every excerpt
    sentence: Sentence
    matched: frozenset[str]
    score: float

    @property
    def length(self) -> int:
        return self.sentence.end - self.sentence.start


def analyse(text: str) -> tuple[str, tuple[Sentence, ...]]:
    """Cleaned text and its sentences with their words and terms: the one place that decides
    what a sentence of an abstract is (`sentence_records` saves the same for the table)."""
    clean = clean_for_display(text)
    words = word_terms(clean)
    sentences: list[Sentence] = []
    position = 0
    for index, (start, end) in enumerate(split_sentences(clean)):
        while position < len(words) and words[position][0] < start:
            position += 1
        first = position
        while position < len(words) and words[position][1] <= end:
            position += 1
        own = tuple(words[first:position])
        terms = frozenset(term for *_, of_word in own for term in of_word)
        sentences.append(Sentence(index, start, end, own, terms))
    return clean, tuple(sentences)


def _score(sentence: Sentence, query_terms: Mapping[str, float]) -> _Scored:
    matched = sentence.terms.intersection(query_terms)
    return _Scored(sentence, matched, sum(query_terms[term] for term in matched))


def _rank_key(scored: _Scored) -> tuple[float, int, int]:
    # Distinct-term weight first; then how many terms (coverage); then the earlier sentence.
    return (scored.score, len(scored.matched), -scored.sentence.position)


def excerpt_and_lead_of(
    clean: str,
    sentences: Sequence[Sentence],
    query_terms: Mapping[str, float],
    budget: int,
    words_of: WordsOf = _own_words,
) -> tuple[Excerpt, Excerpt, float]:
    """(excerpt, lead sentence, its score) of an abstract given as its cleaned text and its
    sentences: the best 1-2 sentences in text order and the single best one, matched words
    marked, each at most `budget` characters; without a match the opening, scored 0.0. The words
    of the sentences shown come from `words_of` (by default, each sentence's own)."""
    ranked = _ranked(clean, sentences, query_terms, budget, words_of)
    if ranked is None:
        return Excerpt(()), Excerpt(()), 0.0
    words, clean, sentences, hits = ranked
    two = _chosen(sentences, hits, query_terms, budget, 2)
    one = _chosen(sentences, hits, query_terms, budget, 1)
    excerpt = _render(words, clean, two, query_terms, budget)
    # The same sentences render the same: an excerpt of one sentence is the lead too.
    same = [s.sentence.position for s in one] == [s.sentence.position for s in two]
    lead = excerpt if same else _render(words, clean, one, query_terms, budget)
    return excerpt, lead, hits[0].score if hits else 0.0


_Ranked = tuple[WordsOf, str, Sequence[Sentence], list["_Scored"]]


def _ranked(
    clean: str,
    sentences: Sequence[Sentence],
    query_terms: Mapping[str, float],
    budget: int,
    words_of: WordsOf = _own_words,
) -> _Ranked | None:
    """The cleaned text, its sentences, and the ones holding a query term scored, best first."""
    if budget <= 0 or not sentences:
        return None
    scored = [_score(s, query_terms) for s in sentences if not s.terms.isdisjoint(query_terms)]
    hits = sorted(scored, key=_rank_key, reverse=True)
    return words_of, clean, sentences, hits


def _chosen(
    sentences: Sequence[Sentence],
    hits: list[_Scored],
    query_terms: Mapping[str, float],
    budget: int,
    max_sentences: int,
) -> list[_Scored]:
    """The sentences to show, in text order: the best and perhaps a second, else the opening."""
    if not hits:
        return _opening(sentences, budget, max_sentences)
    best = hits[0]
    chosen = [best]
    if max_sentences >= 2 and best.length <= budget:
        second = _second(best, hits[1:], query_terms, budget)
        if second is not None:
            chosen.append(second)
    chosen.sort(key=lambda s: s.sentence.position)
    return chosen


def _opening(sentences: Sequence[Sentence], budget: int, max_sentences: int) -> list[_Scored]:
    """The first sentences that fit (the first always), when none holds a query term."""
    scored = [_Scored(sentence, frozenset(), 0.0) for sentence in sentences[:max_sentences]]
    chosen = [scored[0]]
    used = scored[0].length
    for candidate in scored[1:max_sentences]:
        used += 1 + candidate.length
        if used > budget:
            break
        chosen.append(candidate)
    return chosen


def _second(
    best: _Scored, others: Sequence[_Scored], query_terms: Mapping[str, float], budget: int
) -> _Scored | None:
    """The sentence adding the most weight of terms `best` lacks, if both fit the budget whole."""
    chosen: tuple[float, tuple[float, int, int], _Scored] | None = None
    for other in others:
        gain = sum(query_terms[term] for term in other.matched - best.matched)
        adjacent = abs(other.sentence.position - best.sentence.position) == 1
        separator = 1 if adjacent else len(_GAP)
        if gain <= 0 or best.length + separator + other.length > budget:
            continue
        key = (gain, _rank_key(other))
        if chosen is None or key > chosen[:2]:
            chosen = (gain, _rank_key(other), other)
    return None if chosen is None else chosen[2]


def _render(
    words: WordsOf,
    clean: str,
    chosen: Sequence[_Scored],
    query_terms: Mapping[str, float],
    budget: int,
) -> Excerpt:
    """Spans for the chosen sentences; a single sentence over budget is cut to a window."""
    pieces: list[Span] = []
    if len(chosen) == 1 and chosen[0].length > budget:
        window = _window(clean, chosen[0].sentence, words(chosen[0].sentence), query_terms, budget)
        if window is None:
            return Excerpt((Span(ELLIPSIS),))
        start, end, lead, tail = window
        if lead:
            pieces.append(Span(_LEAD))
        pieces += _marked(clean, words(chosen[0].sentence), start, end, query_terms)
        if tail:
            pieces.append(Span(_TAIL))
        return Excerpt(_merge(pieces))
    previous: int | None = None
    for scored in chosen:
        sentence = scored.sentence
        if previous is not None:
            pieces.append(Span(" " if sentence.position == previous + 1 else _GAP))
        pieces += _marked(clean, words(sentence), sentence.start, sentence.end, query_terms)
        previous = sentence.position
    return Excerpt(_merge(pieces))


def _window(
    clean: str,
    sentence: Sentence,
    words: Sequence[Word],
    query_terms: Mapping[str, float],
    budget: int,
) -> tuple[int, int, bool, bool] | None:
    """(start, end, cut at start, cut at end) of the best whitespace-aligned window of the
    sentence within `budget`, or None if not even one of its words fits."""
    chunks = [m.span() for m in _CHUNK.finditer(clean, sentence.start, sentence.end)]
    count = len(chunks)
    if count == 0:
        return None
    weights = _chunk_weights(words, chunks, query_terms)

    def length(i: int, j: int) -> int:
        return (
            chunks[j][1]
            - chunks[i][0]
            + (len(_LEAD) if i else 0)
            + (len(_TAIL) if j < count - 1 else 0)
        )

    best = _best_window(count, weights, length, budget)
    if best is None:
        return None
    i, j = _recentre(best, weights, length, budget, count)
    return chunks[i][0], chunks[j][1], i > 0, j < count - 1


def _chunk_weights(
    words: Sequence[Word], chunks: Sequence[tuple[int, int]], query_terms: Mapping[str, float]
) -> list[dict[str, float]]:
    """Matched terms (with weights) of each whitespace chunk of the sentence."""
    found: list[dict[str, float]] = [{} for _ in chunks]
    index = 0
    for start, _end, terms in words:
        while index < len(chunks) and chunks[index][1] <= start:
            index += 1
        if index == len(chunks):
            break
        for term in terms:
            if term in query_terms:
                found[index][term] = query_terms[term]
    return found


def _best_window(
    count: int,
    weights: Sequence[dict[str, float]],
    length: _Length,
    budget: int,
) -> tuple[int, int] | None:
    """Two pointers over chunks: the widest fitting window at each start, scored by the weight
    of the distinct terms inside; the earliest best wins. Linear in the number of chunks."""
    inside: dict[str, int] = {}
    score = 0.0
    best: tuple[float, int, int] | None = None
    j = -1
    for i in range(count):
        if j < i - 1:
            j = i - 1
        while j + 1 < count and length(i, j + 1) <= budget:
            j += 1
            for term, weight in weights[j].items():
                inside[term] = inside.get(term, 0) + 1
                if inside[term] == 1:
                    score += weight
        if j >= i and (best is None or score > best[0]):
            best = (score, i, j)
        if j >= i:
            for term, weight in weights[i].items():
                inside[term] -= 1
                if inside[term] == 0:
                    score -= weight
    return None if best is None else (best[1], best[2])


def _recentre(
    window: tuple[int, int],
    weights: Sequence[dict[str, float]],
    length: _Length,
    budget: int,
    count: int,
) -> tuple[int, int]:
    """Regrow the window around its matched chunks so some context shows before the first
    match (about a third of the spare room) rather than the match opening the excerpt."""
    low, high = window
    matched = [k for k in range(low, high + 1) if weights[k]]
    if not matched:
        return window
    i, j = matched[0], matched[-1]
    spare = budget - length(i, j)
    lead_room = length(i, j) + spare // 3
    while i > 0 and length(i - 1, j) <= lead_room:
        i -= 1
    while j + 1 < count and length(i, j + 1) <= budget:
        j += 1
    while i > 0 and length(i - 1, j) <= budget:
        i -= 1
    return i, j


def _marked(
    clean: str, words: Sequence[Word], start: int, end: int, query_terms: Mapping[str, float]
) -> list[Span]:
    """clean[start:end] as spans; whole words whose terms meet the query are marked (all of a
    compound such as "Retrieval-Augmented" when any of its terms matches)."""
    spans: list[Span] = []
    position = start
    query = query_terms.keys()
    for word_start, word_end, terms in words:
        if word_start < start or word_end > end:
            continue
        if not query.isdisjoint(terms):
            if word_start > position:
                spans.append(Span(clean[position:word_start]))
            spans.append(Span(clean[word_start:word_end], match=True))
            position = word_end
    if end > position:
        spans.append(Span(clean[position:end]))
    return spans


def _merge(spans: Sequence[Span]) -> tuple[Span, ...]:
    """Adjacent spans with the same `match` joined, empty spans dropped."""
    merged: list[Span] = []
    for span in spans:
        if not span.text:
            continue
        if merged and merged[-1].match == span.match:
            merged[-1] = Span(merged[-1].text + span.text, span.match)
        else:
            merged.append(span)
    return tuple(merged)
