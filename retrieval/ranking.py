"""From a parsed question to ranked document numbers over one corpus snapshot (pure, synchronous).

Two modes. `exact` scores with plain BM25Okapi over the analyzed question, duplicates and all, so
comparisons with rank-bm25 stay honest. `enhanced` (the default) de-duplicates terms, adds the
corpus's own acronym expansions at a lower weight, and re-ranks the head of the list with a small
bonus for query words that stand next to each other in the paper, as they do in titles and phrases.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from retrieval.acronyms import Alternative
from retrieval.corpus import Corpus
from retrieval.index import BM25Index, BoolArray, FloatArray, Scores
from retrieval.models import ParsedQuery

Analyzer = Callable[[str], list[str]]


@dataclass(frozen=True, slots=True)
class RankOptions:
    """How to rank. The first five come from Settings (`retrieval.parameters`), nowhere else;
    the rest are structural limits, not tuning knobs."""

    mode: str
    max_terms: int
    max_results: int
    expansion_weight: float
    proximity_weight: float
    proximity_window: int = 3
    rerank_depth: int = 100
    phrase_check_limit: int = 20_000


@dataclass(frozen=True, slots=True)
class Ranking:
    docs: tuple[int, ...]
    scores: tuple[float, ...]
    total: int
    weights: dict[str, float]
    expansions: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    suggestion_terms: tuple[str, ...] = ()


def query_terms(
    text: str, corpus: Corpus, options: RankOptions, analyze: Analyzer
) -> tuple[list[tuple[str, float]], tuple[Alternative, ...]]:
    """Weighted terms for the free text, and the acronym forms to credit as alternatives."""
    terms = analyze(text)
    if options.mode == "exact":
        return [(term, 1.0) for term in terms[: options.max_terms]], ()
    unique = list(dict.fromkeys(terms))[: options.max_terms]
    known = [term for term in unique if term in corpus.index]
    alternatives = corpus.acronyms.alternatives(known) if options.expansion_weight > 0 else ()
    return [(term, 1.0) for term in unique], alternatives


def _credit_alternatives(
    index: BM25Index, scores: Scores, alternatives: Sequence[Alternative], weight: float
) -> None:
    """Raise each paper's score to the better of the written and the other form, in place."""
    for alternative in alternatives:
        written = index.score([(term, 1.0) for term in alternative.written])
        other = index.score([(term, weight) for term in alternative.other])
        scores.values[:] += np.maximum(other.values - written.values, 0.0)
        scores.matched[:] |= other.matched


def _docs_with_all(index: BM25Index, terms: Sequence[str]) -> BoolArray:
    mask = np.ones(index.size, dtype=np.bool_)
    for term in terms:
        holding = np.zeros(index.size, dtype=np.bool_)
        holding[index.postings(term)] = True
        mask &= holding
    return mask


def _has_sequence(sequence: np.ndarray, wanted: Sequence[int]) -> bool:
    starts = np.flatnonzero(sequence[: len(sequence) - len(wanted) + 1] == wanted[0])
    for offset, number in enumerate(wanted[1:], start=1):
        if len(starts) == 0:
            return False
        starts = starts[sequence[starts + offset] == number]
    return len(starts) > 0


def proximity_bonuses(
    index: BM25Index, docs: np.ndarray, query: Sequence[int], window: int
) -> FloatArray:
    """Sequential-dependence style evidence that the query's words stand together, per document.

    Half is the share of adjacent query-word pairs found adjacent and in order (phrases, titles),
    half the share of all query-word pairs found within `window` words in any order. One
    vectorised pass over the query words of all `docs` at once.
    """
    distinct = sorted(set(query))
    width = len(distinct)
    bonuses = np.zeros(len(docs), dtype=np.float64)
    if width < 2 or len(docs) == 0:
        return bonuses
    local = np.full(len(index.terms), -1, dtype=np.int64)
    local[distinct] = np.arange(width)
    starts = index.doc_start[docs]
    lengths = index.doc_start[docs + 1] - starts
    first = np.repeat(np.cumsum(lengths) - lengths, lengths)
    places = np.arange(int(lengths.sum())) - first
    terms = local[index.forward[np.repeat(starts, lengths) + places]]
    owners = np.repeat(np.arange(len(docs)), lengths)
    keep = terms >= 0
    places, terms, owners = places[keep], terms[keep], owners[keep]

    square = width * width
    adjacent = {(local[a], local[b]) for a, b in itertools.pairwise(query) if a != b}
    adjacent_codes = np.array([a * width + b for a, b in adjacent], dtype=np.int64)
    nearby: list[np.ndarray] = []
    ordered = np.zeros(0, dtype=np.int64)
    # Query words within `window` positions are at most `window` entries apart in this list.
    for step in range(1, window + 1):
        left, right = terms[:-step], terms[step:]
        together = (owners[step:] == owners[:-step]) & (left != right)
        gap = places[step:] - places[:-step]
        near = together & (gap <= window)
        low, high = np.minimum(left, right), np.maximum(left, right)
        nearby.append(owners[:-step][near] * square + low[near] * width + high[near])
        if step == 1:
            pair = left * width + right
            hit = together & (gap == 1) & np.isin(pair, adjacent_codes)
            ordered = owners[:-step][hit] * square + pair[hit]
    found_near = np.bincount(np.unique(np.concatenate(nearby)) // square, minlength=len(docs))
    found_ordered = np.bincount(np.unique(ordered) // square, minlength=len(docs))
    in_order = found_ordered / len(adjacent) if adjacent else np.zeros(len(docs))
    all_pairs = width * (width - 1) // 2
    return np.asarray(0.5 * (in_order + found_near / all_pairs), dtype=np.float64)


def rank(
    corpus: Corpus,
    parsed: ParsedQuery,
    options: RankOptions,
    analyze: Analyzer,
    *,
    allowed: BoolArray | None = None,
    extra_terms: Sequence[tuple[str, float]] = (),
) -> Ranking:
    """Rank every paper that holds a query term; honour phrases, exclusions and the mask."""
    index = corpus.index
    weighted, alternatives = query_terms(parsed.text, corpus, options, analyze)
    weighted += list(extra_terms)
    expansions = tuple(alternative.note for alternative in alternatives)
    phrase_terms = [analyze(phrase) for phrase in parsed.phrases]
    known = [term for term, _ in weighted if term in index]
    unknown = tuple(term for term, _ in weighted if term not in index)
    weights = {term: index.idf_of(term) * weight for term, weight in weighted if term in index}
    for alternative in alternatives:
        for term in alternative.other:
            weights.setdefault(term, index.idf_of(term) * options.expansion_weight)
    if not known or index.size == 0:
        return Ranking((), (), 0, weights, expansions, unknown, tuple(t for t, _ in weighted))

    scores = index.score(weighted)
    _credit_alternatives(index, scores, alternatives, options.expansion_weight)
    candidates = scores.matched.copy()
    if allowed is not None:
        candidates &= allowed
    for excluded in parsed.excluded:
        words = analyze(excluded)
        if words:
            candidates &= ~_docs_with_all(index, words)
    phrase_ids: list[list[int]] = []
    for words in phrase_terms:
        if not words:
            continue
        candidates &= _docs_with_all(index, words)
        phrase_ids.append([index.term_ids[word] for word in words if word in index])

    if phrase_ids:
        # Only documents holding every phrase word remain; check word order on the best ones.
        checked = index.top(scores.values, candidates, options.phrase_check_limit)
        kept = [
            doc
            for doc in checked.tolist()
            if all(_has_sequence(index.document_terms(doc), ids) for ids in phrase_ids)
        ]
        order = np.array(kept, dtype=np.int64)
        total = len(kept)
    else:
        total = int(candidates.sum())
        order = index.top(scores.values, candidates, options.max_results)

    values = scores.values[order].copy() if len(order) else np.zeros(0)
    if options.mode == "enhanced" and len(order) > 1 and options.proximity_weight > 0:
        order, values = _rerank_by_proximity(index, order, values, weighted, options)
    limit = options.max_results
    return Ranking(
        tuple(order[:limit].tolist()),
        tuple(values[:limit].tolist()),
        total,
        weights,
        expansions,
        unknown,
    )


def _rerank_by_proximity(
    index: BM25Index,
    order: np.ndarray,
    values: np.ndarray,
    weighted: Sequence[tuple[str, float]],
    options: RankOptions,
) -> tuple[np.ndarray, np.ndarray]:
    originals = [index.term_number(term) for term, weight in weighted if weight == 1.0]
    query = [number for number in originals if number is not None]
    if len(set(query)) < 2:
        return order, values
    depth = min(options.rerank_depth, len(order))
    head = order[:depth]
    # The bonus is scaled by the best score so it means the same at any corpus size.
    scale = options.proximity_weight * float(values[0])
    boosted = values[:depth] + scale * proximity_bonuses(
        index, head, query, options.proximity_window
    )
    resort = np.lexsort((head, -boosted))
    order = np.concatenate([head[resort], order[depth:]])
    values = np.concatenate([boosted[resort], values[depth:]])
    return order, values


# Each lookup runs difflib over up to 20,000 terms (~50 ms): a question of many unknown words
# must not cost seconds, and suggestions for more words than this help nobody.
MAX_SUGGESTED_TERMS = 6


def did_you_mean(corpus: Corpus, terms: Sequence[str]) -> dict[str, str]:
    """Closest vocabulary term for each of the first few unknown terms, when one is close enough."""
    found: dict[str, str] = {}
    looked = 0
    for term in dict.fromkeys(terms):
        if term in corpus.index or len(term) < 3:
            continue
        if looked == MAX_SUGGESTED_TERMS:
            break
        looked += 1
        pool = corpus.terms_by_initial.get(term[:1], [])
        close = difflib.get_close_matches(term, pool, n=1, cutoff=0.75)
        if close:
            found[term] = close[0]
    return found


def distinctive_terms(corpus: Corpus, doc: int, count: int = 25) -> list[tuple[str, float]]:
    """A paper's most characteristic terms (tf x idf), for "more like this"."""
    index = corpus.index
    numbers, tf = np.unique(index.document_terms(doc), return_counts=True)
    weight = tf * index.idf[numbers]
    best = numbers[np.argsort(-weight, kind="stable")[:count]]
    return [(index.terms[number], 1.0) for number in best.tolist() if index.idf[number] > 0]
