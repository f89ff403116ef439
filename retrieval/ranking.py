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
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from retrieval.acronyms import AcronymTable
from retrieval.autocomplete import LabelIndex
from retrieval.index import BM25Index, BoolArray
from retrieval.models import ParsedQuery

Analyzer = Callable[[str], list[str]]


@dataclass(frozen=True, slots=True)
class RankOptions:
    mode: str = "enhanced"
    max_terms: int = 64
    max_results: int = 50
    expansion_weight: float = 0.5
    proximity_weight: float = 0.3
    rerank_depth: int = 100
    phrase_check_limit: int = 20_000


@dataclass(frozen=True)
class Corpus:
    """An immutable snapshot: the engine swaps in a new one after ingest, never edits this one."""

    index: BM25Index
    collections: dict[str, tuple[str, BoolArray]]
    acronyms: AcronymTable
    labels: LabelIndex
    doc_of_paper: dict[str, int]
    generation: int
    paper_of_doc: list[str] = field(default_factory=list)

    @cached_property
    def terms_by_initial(self) -> dict[str, list[str]]:
        """Vocabulary grouped by first character, frequent terms first, for did-you-mean."""
        grouped: dict[str, list[str]] = {}
        order = np.argsort(-np.diff(self.index.offsets), kind="stable")
        for number in order.tolist():
            term = self.index.terms[number]
            bucket = grouped.setdefault(term[:1], [])
            if len(bucket) < 20_000:
                bucket.append(term)
        return grouped


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
) -> tuple[list[tuple[str, float]], tuple[str, ...]]:
    """Weighted terms for the free text, and notes on acronym expansions."""
    terms = analyze(text)
    if options.mode == "exact":
        return [(term, 1.0) for term in terms[: options.max_terms]], ()
    unique = list(dict.fromkeys(terms))[: options.max_terms]
    weighted = [(term, 1.0) for term in unique]
    expansion = corpus.acronyms.expand(unique, options.expansion_weight)
    return weighted + list(expansion.terms), expansion.notes


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


def _proximity_bonus(index: BM25Index, doc: int, pairs: set[tuple[int, int]]) -> int:
    """How many distinct adjacent query-word pairs occur in the document, in query order."""
    sequence = index.document_terms(doc)
    if len(sequence) < 2:
        return 0
    found = set(zip(sequence[:-1].tolist(), sequence[1:].tolist(), strict=True)) & pairs
    return len(found)


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
    weighted, expansions = query_terms(parsed.text, corpus, options, analyze)
    weighted += list(extra_terms)
    phrase_terms = [analyze(phrase) for phrase in parsed.phrases]
    known = [term for term, _ in weighted if term in index]
    unknown = tuple(term for term, _ in weighted if term not in index)
    weights = {term: index.idf_of(term) * weight for term, weight in weighted if term in index}
    if not known or index.size == 0:
        return Ranking((), (), 0, weights, expansions, unknown, tuple(t for t, _ in weighted))

    scores = index.score(weighted)
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
    ids = [number for number in originals if number is not None]
    pairs = {(a, b) for a, b in itertools.pairwise(ids) if a != b}
    if not pairs:
        return order, values
    depth = min(options.rerank_depth, len(order))
    head = order[:depth]
    # The bonus is scaled by the best score so it means the same at any corpus size.
    scale = options.proximity_weight * float(values[0]) / len(pairs)
    boosted = values[:depth] + scale * np.array(
        [_proximity_bonus(index, int(doc), pairs) for doc in head], dtype=np.float64
    )
    resort = np.lexsort((head, -boosted))
    order = np.concatenate([head[resort], order[depth:]])
    values = np.concatenate([boosted[resort], values[depth:]])
    return order, values


def did_you_mean(corpus: Corpus, terms: Sequence[str]) -> dict[str, str]:
    """Closest vocabulary term for each unknown term, when one is close enough."""
    found: dict[str, str] = {}
    for term in terms:
        if term in corpus.index or len(term) < 3:
            continue
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
