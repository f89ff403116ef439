"""From a parsed question to ranked document numbers over one corpus snapshot (pure, synchronous).

Two modes. `exact` scores with plain BM25Okapi over the analyzed question, duplicates and all, so
comparisons with rank-bm25 stay honest. `enhanced` (the default) de-duplicates terms, adds the
corpus's own acronym expansions at a lower weight, and re-ranks the head of the list with a small
bonus for query words that stand next to each other in the paper, as they do in titles and phrases.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from retrieval.acronyms import Alternative
from retrieval.corpus import Corpus
from retrieval.models import ParsedQuery
from retrieval.snapshot.matrix import BM25Index, BoolArray
from retrieval.snapshot.proximity import proximity_bonuses
from retrieval.snapshot.scoring import Credit, top_k

Analyzer = Callable[[str], list[str]]


@dataclass(frozen=True, slots=True)
class RankOptions:
    """How to rank. The first six come from Settings (`retrieval.parameters`), nowhere else;
    the rest are structural limits, not tuning knobs."""

    mode: str
    max_terms: int
    max_results: int
    expansion_weight: float
    proximity_weight: float
    every_word_weight: float = 0.0
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
    # Known terms no allowed document holds (a collection filter left them without a paper).
    absent: tuple[str, ...] = ()
    # Documents holding every main word (an acronym or its long form counts as the word); None
    # when not counted (phrases, exact mode, a single word: then it is `total`).
    total_all: int | None = None


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


def docs_with_all(index: BM25Index, terms: Sequence[str]) -> BoolArray:
    """A mask of the documents holding every one of `terms`."""
    mask = np.ones(index.size, dtype=np.bool_)
    for term in terms:
        holding = np.zeros(index.size, dtype=np.bool_)
        holding[index.postings(term)] = True
        mask &= holding
    return mask


def _and(mask: BoolArray | None, other: BoolArray) -> BoolArray:
    return other if mask is None else mask & other


def _has_sequence(sequence: np.ndarray, wanted: Sequence[int]) -> bool:
    starts = np.flatnonzero(sequence[: len(sequence) - len(wanted) + 1] == wanted[0])
    for offset, number in enumerate(wanted[1:], start=1):
        if len(starts) == 0:
            return False
        starts = starts[sequence[starts + offset] == number]
    return len(starts) > 0


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
    # One note per written form: "RAG → retrieval-augmented generation" once, not once per
    # spelling of its long form ("retrieval-augmentation generation").
    first_notes = {alternative.written: alternative.note for alternative in reversed(alternatives)}
    expansions = tuple(dict.fromkeys(first_notes[a.written] for a in alternatives))
    phrase_terms = [analyze(phrase) for phrase in parsed.phrases]
    # One lookup per term: each term's number (None when the corpus lacks it).
    numbered = [(term, index.term_number(term), weight) for term, weight in weighted]
    unknown = tuple(term for term, number, _ in numbered if number is None)
    idf = index.idf
    weights = {
        term: float(idf[number]) * weight for term, number, weight in numbered if number is not None
    }
    for alternative in alternatives:
        for term in alternative.other:
            weights.setdefault(term, index.idf_of(term) * options.expansion_weight)
    if len(unknown) == len(numbered) or index.size == 0:
        return Ranking((), (), 0, weights, expansions, unknown, tuple(t for t, _ in weighted))

    columns = [(number, weight) for _, number, weight in numbered if number is not None and weight]
    credits = _credits(index, alternatives, options.expansion_weight) if alternatives else []
    mask = None if allowed is None else allowed.copy()
    for excluded in parsed.excluded:
        words = analyze(excluded)
        if words:
            mask = _and(mask, ~docs_with_all(index, words))
            # "-LLM" also leaves out what ranking would credit as LLM: the papers holding every
            # word of "large language models" (the same rule as for a searched acronym).
            for alternative in query_terms(excluded, corpus, options, analyze)[1]:
                if all(term in index for term in alternative.other):
                    mask = _and(mask, ~docs_with_all(index, alternative.other))
    phrase_ids: list[list[int]] = []
    for words in phrase_terms:
        if not words:
            continue
        mask = _and(mask, docs_with_all(index, words))
        phrase_ids.append([index.term_ids[word] for word in words if word in index])

    count_all = (
        options.mode == "enhanced"
        and not phrase_ids
        and not extra_terms
        and _concepts(numbered, alternatives) >= 2
    )
    if phrase_ids:
        # Only documents holding every phrase word remain; check word order on the best ones.
        found = top_k(index, columns, options.phrase_check_limit, mask, credits, count_all=False)
        kept = [
            place
            for place, doc in enumerate(found.docs.tolist())
            if all(_has_sequence(index.document_terms(doc), ids) for ids in phrase_ids)
        ]
        order = found.docs[kept]
        values = found.scores[kept]
        total = len(kept)
    else:
        found = top_k(index, columns, options.max_results, mask, credits, count_all=count_all)
        order, values, total = found.docs, found.scores, found.total

    if (
        options.mode == "enhanced"
        and len(order) > 1
        and (options.proximity_weight > 0 or options.every_word_weight > 0)
    ):
        order, values = _rerank(index, order, values, weighted, options)
    limit = options.max_results
    # Documents holding every main word; None for one word (that is `total`).
    total_all = found.total_all if count_all else None
    absent: tuple[str, ...] = ()
    # Papers holding every word in the filter prove no word absent: the common case reads no
    # posting list again.
    if allowed is not None and not total_all:
        absent = tuple(
            term
            for term, number, _ in numbered
            if number is not None and not allowed[index.postings(term)].any()
        )
    return Ranking(
        tuple(order[:limit].tolist()),
        tuple(values[:limit].tolist()),
        total,
        weights,
        expansions,
        unknown,
        total_all=total_all,
        absent=absent,
    )


def _credits(index: BM25Index, alternatives: Sequence[Alternative], weight: float) -> list[Credit]:
    """One credit per alternative whose other form occurs in the corpus (`scoring.Credit`)."""
    found: list[Credit] = []
    for alternative in alternatives:
        other = [index.term_number(term) for term in alternative.other]
        written = [index.term_number(term) for term in alternative.written]
        known = tuple(number for number in other if number is not None)
        if known:
            found.append(
                Credit(
                    known,
                    tuple(number for number in written if number is not None),
                    weight,
                    complete=len(known) == len(other),
                )
            )
    return found


def _concepts(
    numbered: Sequence[tuple[str, int | None, float]], alternatives: Sequence[Alternative]
) -> int:
    """Main words of a question: an acronym and its long form count as one."""
    covered = {term for alternative in alternatives for term in alternative.written}
    plain = {term for term, number, _ in numbered if number is not None and term not in covered}
    return len(alternatives) + len(plain)


def _rerank(
    index: BM25Index,
    order: np.ndarray,
    values: np.ndarray,
    weighted: Sequence[tuple[str, float]],
    options: RankOptions,
) -> tuple[np.ndarray, np.ndarray]:
    """The best `rerank_depth` papers with two bonuses, each a share of the best score (so it
    means the same at any corpus size): the query's words close together, and every one of them
    present, so that a paper missing the rare word of "diffusion policy robot manipulation"
    does not lead the ones that hold it."""
    originals = [index.term_number(term) for term, weight in weighted if weight == 1.0]
    query = [number for number in originals if number is not None]
    if len(set(query)) < 2:
        return order, values
    depth = min(options.rerank_depth, len(order))
    head = order[:depth]
    best = float(values[0])
    boosted = values[:depth] + options.proximity_weight * best * proximity_bonuses(
        index, head, query, options.proximity_window
    )
    if options.every_word_weight > 0:
        holds = np.ones(depth, dtype=np.bool_)
        for term in {term for term, weight in weighted if weight == 1.0 and term in index}:
            # Postings are ascending: a binary search per head paper, not a sort of a list
            # that holds most of the corpus for a common word.
            postings = index.postings(term)
            places = np.minimum(np.searchsorted(postings, head), len(postings) - 1)
            holds &= postings[places] == head
        boosted = boosted + options.every_word_weight * best * holds
    resort = np.lexsort((head, -boosted))
    order = np.concatenate([head[resort], order[depth:]])
    values = np.concatenate([boosted[resort], values[depth:]])
    return order, values


# Each lookup runs difflib over up to 20,000 terms (~50 ms): a question of many unknown words
# must not cost seconds, and suggestions for more words than this help nobody.
MAX_SUGGESTED_TERMS = 6


def did_you_mean(corpus: Corpus, terms: Sequence[str]) -> dict[str, str]:
    """Closest vocabulary term for each of the first few unknown terms, when one is close enough."""
    return {term: close[0] for term, close in close_terms(corpus, terms).items()}


CLOSE_STEMS = 6


def close_terms(
    corpus: Corpus, terms: Sequence[str], typed: Mapping[str, str] | None = None
) -> dict[str, list[str]]:
    """Up to CLOSE_STEMS close vocabulary terms (and three more for the word as typed), closest
    stem first, for each of the first few unknown terms that has one. Stems are compared, so
    the caller compares the words papers write: "hallucinaton" is closer to the stem
    "hallucinatori" than to "hallucin", but to the word "hallucination" than to "hallucinatory"."""
    found: dict[str, list[str]] = {}
    looked = 0
    for term in dict.fromkeys(terms):
        if term in corpus.index or len(term) < 3:
            continue
        if looked == MAX_SUGGESTED_TERMS:
            break
        looked += 1
        pool = corpus.terms_by_initial.get(term[:1], [])
        # A typo rarely drops two letters: "blorf" is no misspelling of the acronym "blo".
        # (Longer vocabulary terms are stems, shorter than the word typed: "hallucin".)
        # A long typo sits further from a short stem by ratio: "halucinatoin" is 0.70 from
        # "hallucin" (hallucination), 0.88 from "hallucinatori"; the words decide later.
        cutoff = 0.7 if len(term) >= 8 else 0.75
        # Six, not three: glued words of the corpus ("segmentationbas") and other stems can
        # crowd out the stem meant ("segmentaton" -> "segment", sixth), and the words papers
        # write decide among them later ("segmentation", one letter away).
        close = [
            word
            for word in difflib.get_close_matches(term, pool, n=CLOSE_STEMS, cutoff=cutoff)
            if len(word) > 3 or len(word) >= len(term) - 1
        ]
        # The word as typed too: stemming a typo can move it away from the word meant
        # ("desing" stems to "dese", far from "design").
        written = (typed or {}).get(term, "").lower()
        if written and written != term:
            close += [
                word
                for word in difflib.get_close_matches(written, pool, n=3, cutoff=0.6)
                if word not in close
            ]
        if close:
            found[term] = close
    return found


def distinctive_terms(corpus: Corpus, doc: int, count: int = 25) -> list[tuple[str, float]]:
    """A paper's most characteristic terms, for "more like this", each weighted by its tf x idf
    over the first one's: the words a paper is about lead the query, and twenty words it uses
    once ("zero-shot", "text", "encoder") cannot outweigh the one it is about ("molecule")."""
    index = corpus.index
    numbers, tf = np.unique(index.document_terms(doc), return_counts=True)
    weight = tf * index.idf[numbers]
    order = np.argsort(-weight, kind="stable")[:count]
    top = float(weight[order[0]]) if len(order) else 0.0
    return [
        (index.terms[number], float(weight[place]) / top)
        for place, number in zip(order.tolist(), numbers[order].tolist(), strict=True)
        if index.idf[number] > 0
    ]
