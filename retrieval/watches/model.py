"""How likely a new paper is to be about a watch's topic: a logistic regression over features
of the (watch query, paper) pair, all read from the query's words and the paper's index terms.

The query's words are grouped as the user wrote them: a compound ("retrieval-augmented") is one
group, held when the paper writes the compound or all of its parts; an acronym the corpus
defines stands for the words of its long form ("RAG" holds retrieval, augmented, generation).
Groups are weighted by idf, so a paper missing a common word ("networks" in "equivariant neural
networks") loses less than one missing the rare one.

The weights (`model.json`, beside this module) are fitted by `benchmarks/fit_watch_model.py`
on the calibration watch queries of `benchmarks/watch_threshold.py` only; docs/watches.md has the
cross-validation and the held-out measurement.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from retrieval import text as analysis
from retrieval.corpus import Corpus
from retrieval.logistic import FloatArray, LogisticModel

MODEL_FILE = Path(__file__).with_name("model.json")
LEAD_TERMS = 30  # about two sentences of index terms (docs/watches.md)
OPENING_TERMS = 15  # about the first sentence
FEEDBACK_DOCS = 20  # corpus papers ranked highest for the words, to find associated terms
FEEDBACK_TERMS = 20  # associated terms kept
RANK_CAP = 1000

FEATURES = (
    "held",  # idf-weighted share of the query's groups the paper holds
    "all_held",
    "missing_groups",
    "score",  # normalised BM25 over the main words
    "log_rank",  # rank in the whole corpus for the main words, log, capped
    "top10",
    "relative",  # BM25 over the best paper's BM25
    "log_count",  # idf-weighted mean of log(1 + occurrences) per group
    "twice",  # idf-weighted share of groups used at least twice
    "lead",  # idf-weighted share of groups among the first LEAD_TERMS terms
    "opening",  # idf-weighted share of groups among the first OPENING_TERMS terms
    "near",  # the held groups within (groups + 1) consecutive terms
    "phrase",  # the query's words in order, adjacent (or an acronym for all of them)
    "log_length",
    "associated",  # share (weighted) of the terms associated with the query the paper holds
    "single",  # the query has one group
    "top_held",  # a rarest group (highest idf; ties all count): held, log(1 + uses), lead, twice
    "top_count",
    "top_lead",
    "top_twice",
    "top_share",  # the rarest group's share of the query's weight
    "all_lead",  # every group among the first LEAD_TERMS terms
    "all_twice",  # every group used at least twice
    "density",  # uses of the query's groups per 100 terms
)


@dataclass(frozen=True)
class Group:
    """One word of the query as written: held when any alternative is (all of its terms)."""

    alternatives: tuple[tuple[frozenset[int], ...], ...]
    weight: float


@dataclass(frozen=True)
class QueryView:
    """What the features need of one watch query over one corpus snapshot."""

    groups: tuple[Group, ...]
    sequence: tuple[int, ...]  # the query's non-compound terms in order, for the phrase check
    acronym_terms: frozenset[int]  # an acronym standing for every word of the query
    values: FloatArray  # BM25 over the main words, per document
    order: FloatArray  # `values` ascending, for ranks
    scale: float  # (k1 + 1) x idf sum: normalised BM25 divides by it
    best: float
    associated: dict[int, float]


def _groups(words: Sequence[str], written: str) -> list[list[list[str]]]:
    """Per word of `written` holding a main word: its alternatives (each a list of terms)."""
    wanted = set(words)
    groups: list[list[list[str]]] = []
    seen: set[str] = set()
    for _, _, terms in analysis.word_terms(written):
        kept = [term for term in terms if term in wanted and term not in seen]
        if not kept:
            continue
        seen.update(kept)
        joined = len(terms) > 1 and terms[0].startswith(terms[1]) and terms[0] != terms[1]
        if joined and len(kept) == len(terms):
            groups.append([[terms[0]], list(terms[1:])])
        else:
            groups.extend([[term]] for term in kept)
    groups.extend([[word]] for word in words if word not in seen)
    return groups


def query_view(corpus: Corpus, words: Sequence[str], written: str) -> QueryView:
    """Groups, weights, corpus scores and associated terms of the query `written` (its main
    words `words`) over `corpus`."""
    index = corpus.index
    number = index.term_number
    by_term: dict[str, set[int]] = {}
    for word in words:
        found = number(word)
        by_term[word] = set() if found is None else {found}
    for alternative in corpus.acronyms.alternatives(list(words)):
        other = {n for n in (number(term) for term in alternative.other) if n is not None}
        for term in alternative.written:
            if term in by_term:
                by_term[term] |= other
    raw = _groups(words, written)
    # A word no paper uses is as rare as a word can be: the highest idf (not 0).
    rarest = float(index.idf.max()) if len(index.idf) else 1.0

    def idf(term: str) -> float:
        return index.idf_of(term) if term in index else rarest

    groups = []
    for alternatives in raw:
        # A compound weighs as its parts written apart; a word as its idf.
        weight = sum(idf(term) for term in alternatives[-1])
        groups.append(
            Group(
                tuple(tuple(frozenset(by_term.get(t, set())) for t in alt) for alt in alternatives),
                max(weight, 1e-6),
            )
        )
    sequence = tuple(
        n
        for alternatives in raw
        for n in (number(term) for term in alternatives[-1])
        if n is not None
    )
    acronyms = set().union(*(set(form) for form in by_term.values())) - {
        n for n in (number(word) for word in words) if n is not None
    }
    acronym_terms = {
        term for term in acronyms
        if all(
            any(all(term in form for form in alt) for alt in group.alternatives)
            for group in groups
        )
    }  # fmt: skip
    scale = (index.params.k1 + 1.0) * sum(index.idf_of(w) for w in words if w in index)
    values = index.score([(word, 1.0) for word in words]).values
    order = np.sort(values)
    best = float(order[-1]) if len(order) else 0.0
    return QueryView(
        tuple(groups),
        sequence,
        frozenset(acronym_terms),
        values,
        order,
        scale,
        best,
        _associated(corpus, words, values, by_term),
    )


def _associated(
    corpus: Corpus, words: Sequence[str], values: FloatArray, by_term: dict[str, set[int]]
) -> dict[int, float]:
    """Terms that many of the corpus's best papers for the words use and the corpus rarely
    does (pseudo-relevance feedback), weighted by share of those papers x idf."""
    index = corpus.index
    matched = np.flatnonzero(values > 0)
    if not len(matched):
        return {}
    top = matched[np.argsort(-values[matched], kind="stable")[:FEEDBACK_DOCS]]
    own = set().union(*by_term.values()) if by_term else set()
    counts: dict[int, int] = {}
    for doc in top:
        for term in np.unique(index.document_terms(int(doc))).tolist():
            if term not in own:
                counts[term] = counts.get(term, 0) + 1
    least = max(2, math.ceil(0.15 * len(top)))
    scored = {
        term: count / len(top) * float(index.idf[term])
        for term, count in counts.items()
        if count >= least
    }
    kept = sorted(scored, key=lambda term: (-scored[term], term))[:FEEDBACK_TERMS]
    return {term: scored[term] for term in kept}


def holds_rarest(corpus: Corpus, view: QueryView) -> npt.NDArray[np.bool_]:
    """Per document, whether it holds one of the query's rarest groups (the `top_held`
    feature, from the postings: the same answer without reading each document)."""
    index = corpus.index
    heaviest = max((group.weight for group in view.groups), default=0.0)
    mask = np.zeros(index.size, dtype=np.bool_)
    for group in view.groups:
        if group.weight < heaviest - 1e-9:
            continue
        for alternative in group.alternatives:
            held = np.ones(index.size, dtype=np.bool_)
            for form in alternative:
                some = np.zeros(index.size, dtype=np.bool_)
                for number in form:
                    start, end = index.offsets[number], index.offsets[number + 1]
                    some[index.postings_docs[start:end]] = True
                held &= some
            mask |= held
    return mask


def _positions(terms: npt.NDArray[np.int32], alternative: tuple[frozenset[int], ...]) -> list[int]:
    """Where an alternative (all its terms) occurs: each occurrence of its rarest-placed term,
    or nothing when one of its terms is missing."""
    found = [np.flatnonzero(np.isin(terms, list(form))) if form else np.zeros(0, np.int64)
             for form in alternative]  # fmt: skip
    if any(len(one) == 0 for one in found):
        return []
    # A compound's parts: count the part used least, placed where the last part first occurs.
    fewest = min(found, key=len)
    start = max(int(one[0]) for one in found)
    return sorted({start, *fewest.tolist()})


def span(where: list[list[int]]) -> int:
    """Fewest consecutive terms holding one occurrence of every list in `where`."""
    events = sorted((p, w) for w, found in enumerate(where) for p in found)
    count: dict[int, int] = {}
    best, low = 10**9, 0
    for position, word in events:
        count[word] = count.get(word, 0) + 1
        while len(count) == len(where):
            best = min(best, position - events[low][0] + 1)
            first = events[low][1]
            count[first] -= 1
            if not count[first]:
                del count[first]
            low += 1
    return best


def features(corpus: Corpus, view: QueryView, doc: int) -> list[float]:
    """The feature vector of (query, `doc`) in `FEATURES` order."""
    terms = corpus.index.document_terms(doc)
    total = sum(group.weight for group in view.groups) or 1.0
    held = twice = lead = opening = log_count = 0.0
    missing = 0
    where: list[list[int]] = []
    # The rarest groups (several when their idf ties, e.g. two words no paper used before).
    heaviest = max((group.weight for group in view.groups), default=0.0)
    tops = {n for n, group in enumerate(view.groups) if group.weight >= heaviest - 1e-9}
    top_found: list[int] = []
    uses = 0
    all_lead = all_twice = True
    for number, group in enumerate(view.groups):
        share = group.weight / total
        best: list[int] = []
        for alternative in group.alternatives:
            found = _positions(terms, alternative)
            if len(found) > len(best) or (found and best and found[0] < best[0]):
                best = found
        if number in tops and len(best) > len(top_found):
            top_found = best
        all_lead &= bool(best) and best[0] < LEAD_TERMS
        all_twice &= len(best) >= 2
        if not best:
            missing += 1
            continue
        uses += len(best)
        where.append(best)
        held += share
        twice += share * (len(best) >= 2)
        lead += share * (best[0] < LEAD_TERMS)
        opening += share * (best[0] < OPENING_TERMS)
        log_count += share * math.log1p(len(best))
    value = float(view.values[doc])
    rank = len(view.order) - int(np.searchsorted(view.order, value, side="right")) + 1
    present = set(np.unique(terms).tolist())
    acronym = bool(view.acronym_terms & present)
    phrase = acronym or _in_order(terms, view.sequence)
    near = len(where) >= 1 and (len(where) == 1 or span(where) <= len(where) + 1)
    weights = sum(view.associated.values()) or 1.0
    associated = sum(w for term, w in view.associated.items() if term in present) / weights
    return [
        held,
        float(missing == 0),
        float(missing),
        value / view.scale if view.scale > 0 else 0.0,
        math.log(min(rank, RANK_CAP)),
        float(rank <= 10),
        value / view.best if view.best > 0 else 0.0,
        log_count,
        twice,
        lead,
        opening,
        float(near),
        float(phrase),
        math.log1p(len(terms)),
        associated,
        float(len(view.groups) == 1),
        float(bool(top_found)),
        math.log1p(len(top_found)),
        float(bool(top_found) and top_found[0] < LEAD_TERMS),
        float(len(top_found) >= 2),
        heaviest / total,
        float(all_lead and bool(view.groups)),
        float(all_twice and bool(view.groups)),
        100.0 * uses / max(len(terms), 1),
    ]


def _in_order(terms: npt.NDArray[np.int32], sequence: tuple[int, ...]) -> bool:
    """Whether `sequence` occurs as consecutive terms of the document."""
    if not sequence:
        return False
    starts = np.flatnonzero(terms[: len(terms) - len(sequence) + 1] == sequence[0])
    return any(
        all(int(terms[start + offset]) == term for offset, term in enumerate(sequence))
        for start in starts.tolist()
    )


@dataclass(frozen=True)
class WatchModel:
    """The fitted logistic regression over `FEATURES` rows."""

    fitted: LogisticModel

    @property
    def threshold(self) -> float:
        """The probability the fitting chose (the setting's default)."""
        return self.fitted.threshold

    def probability(self, rows: Sequence[Sequence[float]]) -> FloatArray:
        """P(about the watch's topic) per row of `features` (all of `FEATURES`)."""
        return self.fitted.probability(rows, FEATURES)


@cache
def load_model(path: Path = MODEL_FILE) -> WatchModel:
    """The fitted model (read once per process)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return WatchModel(LogisticModel.from_json(data, FEATURES))
