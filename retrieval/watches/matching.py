"""Whether a new paper matches a watch (pure, CPU-bound: run it in a worker thread).

Two matchers. The default, `model_matching_docs`: the fitted watch model
(`retrieval.watches.model`) gives each new paper holding the query's rarest word a probability of
being about the watch's topic; it fires at `min_probability`, and the corpus's first-ranked
paper holding every main word always fires.

The words rule (`matching_docs`, PAPERBOT_WATCH_MATCHER=words): a new paper matches when it
passes the query's filters (query syntax as /search: phrases, -term, in:), holds EVERY main
word of the query (its distinct index terms; a word also counts as held through an acronym the
corpus defines, "MoE" for "mixture of experts"), and either
- ranks among the top `top_k` papers of the whole corpus for the query, or
- reaches `min_score` in normalised BM25: the paper's BM25 score for the query's words divided
  by the most they could give, (k1 + 1) x the sum of their idf. That is the idf-weighted mean
  of tf / (tf + k1 * length norm) over the words: ~0.45 for each word used once in an abstract
  of average length, more the more often the words are used. It does not grow with the
  query's length or the corpus's size;
and, unless it ranks FIRST in the corpus, is about the words rather than using them in
passing: every main word occurs at least `MIN_MENTIONS` times, or every one occurs among the
paper's first `LEAD_TERMS` index terms (its title, when it has one, and about two sentences).

So, under either matcher, a paper that ranks first for the watch's words and contains all of
them always fires (whatever the threshold). Under the rule a paper sharing one word with the
query never does, and a large ingest is not cut to the corpus's top K when many new papers are
about the topic (the score path). docs/watches.md has the calibration: precision and recall on
two query lists, for both.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np

from retrieval import text as analysis
from retrieval.corpus import Corpus
from retrieval.models import ParsedQuery
from retrieval.query import parse_query
from retrieval.questions import collection_mask, rank_question, shorten
from retrieval.ranking import RankOptions, docs_with_all, rank
from retrieval.snapshot.matrix import BoolArray
from retrieval.watches import model as watch_model

MIN_MENTIONS = 2  # a word used once, outside the lead, is usually a passing mention
LEAD_TERMS = 30  # index terms in about two sentences (median 31 on NeurIPS 2023 abstracts)


def main_words(options: RankOptions, text: str) -> list[str]:
    """The query's distinct index terms, as ranking uses them (stopwords dropped)."""
    return list(dict.fromkeys(analysis.analyze(text)))[: options.max_terms]


def watch_words(options: RankOptions, parsed: ParsedQuery) -> list[str]:
    """The words a new paper must hold to match: the query's main words, or with only phrases,
    the phrases' words. Empty when every word is a stopword: such a watch could never fire."""
    words = main_words(options, parsed.text)
    if not words:
        # Only phrases: ranking already requires every phrase word of every match.
        words = main_words(options, " ".join(parsed.phrases))
    return words


def normaliser(corpus: Corpus, words: Sequence[str], k1: float) -> float:
    """(k1 + 1) x the idf sum of the known `words`; 0.0 when none is known."""
    index = corpus.index
    return (k1 + 1.0) * sum(index.idf_of(word) for word in words if word in index)


def holds_all(corpus: Corpus, words: Sequence[str]) -> BoolArray:
    """Documents holding every word; a run of words an acronym stands for (or the acronym, for
    its long form) may be written the other way."""
    index = corpus.index
    mask = np.ones(index.size, dtype=np.bool_)
    if not words:
        return ~mask
    covered: set[str] = set()
    for alternative in corpus.acronyms.alternatives(words):
        written = [word for word in alternative.written if word in words]
        if not written or covered.intersection(written):
            continue
        either = docs_with_all(corpus.index, alternative.written) | docs_with_all(
            corpus.index, alternative.other
        )
        mask &= either
        covered.update(written)
    return mask & docs_with_all(corpus.index, [word for word in words if word not in covered])


def _word_forms(corpus: Corpus, words: Sequence[str]) -> list[set[int]]:
    """Per main word, the term numbers that count as an occurrence of it: the word, and the
    other form of an acronym alternative covering it (as `holds_all` counts them)."""
    index = corpus.index
    forms: dict[str, set[int]] = {}
    for word in words:
        number = index.term_number(word)
        forms[word] = set() if number is None else {number}
    covered: set[str] = set()
    for alternative in corpus.acronyms.alternatives(words):
        written = [word for word in alternative.written if word in forms]
        if not written or covered.intersection(written):
            continue
        other = {index.term_number(term) for term in alternative.other}
        for word in written:
            forms[word].update(number for number in other if number is not None)
        covered.update(written)
    return list(forms.values())


def about_words(corpus: Corpus, words: Sequence[str], doc: int) -> bool:
    """Whether `doc` uses every word at least MIN_MENTIONS times, or every word among its first
    LEAD_TERMS index terms: a paper about the words, not one naming them in passing."""
    terms = corpus.index.document_terms(doc)
    where = [np.flatnonzero(np.isin(terms, list(form))) for form in _word_forms(corpus, words)]
    if all(len(found) >= MIN_MENTIONS for found in where):
        return True
    return all(len(found) > 0 and int(found[0]) < LEAD_TERMS for found in where)


def normalised_scores(corpus: Corpus, words: Sequence[str], docs: Sequence[int]) -> list[float]:
    """Each document's BM25 score for `words` over the most those words could give."""
    index = corpus.index
    scale = normaliser(corpus, words, index.params.k1)
    if scale <= 0 or not docs:
        return [0.0 for _ in docs]
    values = index.score([(word, 1.0) for word in words]).values
    return [float(values[doc]) / scale for doc in docs]


def scored_top(
    corpus: Corpus, options: RankOptions, query: str, top_k: int, max_chars: int
) -> list[tuple[int, float]]:
    """(document, normalised BM25 score) of the query's top `top_k` over the corpus, best
    first (the order of /search)."""
    deep = replace(options, max_results=top_k)
    parsed, ranking, _ = rank_question(corpus, deep, query, None, max_chars)
    docs = list(ranking.docs)
    words = main_words(options, parsed.text)
    return list(zip(docs, normalised_scores(corpus, words, docs), strict=True))


def _candidates(
    corpus: Corpus, options: RankOptions, parsed: ParsedQuery, new: Sequence[int]
) -> list[int]:
    """The new documents that pass the query's filters and hold a query word, as /search
    would list them if the corpus were only the new papers."""
    allowed = np.zeros(corpus.index.size, dtype=np.bool_)
    allowed[list(new)] = True
    restrict = collection_mask(corpus, parsed.collections)
    if restrict is not None:
        allowed &= restrict
    wide = replace(options, max_results=max(len(new), 1), proximity_weight=0.0)
    return list(rank(corpus, parsed, wide, analysis.analyze, allowed=allowed).docs)


def matching_docs(
    corpus: Corpus,
    options: RankOptions,
    query: str,
    new_docs: Collection[int],
    *,
    top_k: int,
    min_score: float,
    max_chars: int,
) -> list[tuple[int, float]]:
    """The new documents that match the watch with their normalised BM25 scores, best first."""
    text, _ = shorten(query, max_chars)
    ranked = [doc for doc, _ in scored_top(corpus, options, text, top_k, max_chars)]
    top, first = set(ranked), ranked[0] if ranked else None
    new = sorted(doc for doc in new_docs if 0 <= doc < corpus.index.size)
    if not new:
        return []
    parsed = parse_query(text)
    words = watch_words(options, parsed)
    holding = holds_all(corpus, words)
    docs = [
        doc for doc in _candidates(corpus, options, parsed, new)
        if holding[doc] and (doc == first or about_words(corpus, words, doc))
    ]  # fmt: skip
    scored = zip(docs, normalised_scores(corpus, words, docs), strict=True)
    found = [(doc, score) for doc, score in scored if doc in top or score >= min_score]
    return sorted(found, key=lambda pair: (-pair[1], pair[0]))


@dataclass(frozen=True)
class Candidates:
    """The new documents a watch could announce, with what the model and the rule need."""

    docs: list[int]  # passing the filters and holding a main word, /search order
    rows: list[list[float]]  # watch_model.features of each
    holding: list[bool]  # holds every main word (acronyms counted)
    first: int | None  # the corpus's first-ranked document for the query


def candidates(
    corpus: Corpus,
    options: RankOptions,
    query: str,
    new_docs: Collection[int],
    max_chars: int,
    *,
    rarest_only: bool = False,
) -> Candidates:
    """Every new document holding a main word of the watch, with its features; with
    `rarest_only`, only those holding the query's rarest word (the others cannot fire, and
    features are what matching costs)."""
    text, _ = shorten(query, max_chars)
    ranked = [doc for doc, _ in scored_top(corpus, options, text, 1, max_chars)]
    first = ranked[0] if ranked else None
    new = sorted(doc for doc in new_docs if 0 <= doc < corpus.index.size)
    if not new:
        return Candidates([], [], [], first)
    parsed = parse_query(text)
    words = main_words(options, parsed.text)
    written = parsed.text
    if not words:
        words = main_words(options, " ".join(parsed.phrases))
        written = " ".join(parsed.phrases)
    holding = holds_all(corpus, words)
    docs = _candidates(corpus, options, parsed, new)
    view = watch_model.query_view(corpus, words, written)
    if rarest_only:
        rarest = watch_model.holds_rarest(corpus, view)
        docs = [doc for doc in docs if rarest[doc]]
    rows = [watch_model.features(corpus, view, doc) for doc in docs]
    return Candidates(docs, rows, [bool(holding[doc]) for doc in docs], first)


def model_matching_docs(
    corpus: Corpus,
    options: RankOptions,
    query: str,
    new_docs: Collection[int],
    *,
    min_probability: float | None,
    max_chars: int,
    model: watch_model.WatchModel | None = None,
) -> list[tuple[int, float]]:
    """The new documents the fitted model announces for the watch, with its probability, best
    first: probability >= `min_probability` (None: the model's fitted threshold), or the
    corpus's first-ranked paper for the words holding every one of them (always). A paper
    without the query's rarest word (highest idf; a compound counts by its parts) never fires
    otherwise: "quantum" alone does not announce a paper to "zorblax quantum gardening"."""
    found = candidates(corpus, options, query, new_docs, max_chars, rarest_only=True)
    model = model or watch_model.load_model()
    least = model.threshold if min_probability is None else min_probability
    chances = model.probability(found.rows)
    rarest = watch_model.FEATURES.index("top_held")
    kept = [
        (doc, float(chance))
        for doc, row, chance, holds in zip(
            found.docs, found.rows, chances, found.holding, strict=True
        )
        if (chance >= least and row[rarest] > 0) or (holds and doc == found.first)
    ]
    return sorted(kept, key=lambda pair: (-pair[1], pair[0]))
