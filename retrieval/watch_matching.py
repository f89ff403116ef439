"""Whether a new paper matches a watch (pure, CPU-bound: run it in a worker thread).

A paper matches when, ranked over the whole corpus for the watch's query (query syntax as
/search: phrases, -term, in:), it is among the top `top_k` AND its normalised score reaches
`threshold`. The normalised score is the BM25 score divided by the highest score the query's
words could give, (k1 + 1) * sum of their idf: a query-length-free number, ~1.0 when a paper
uses every query word often. Sharing one common word scores far below the calibrated
threshold (docs/watches.md has the calibration and its measured precision).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from retrieval import text as analysis
from retrieval.corpus import Corpus
from retrieval.questions import rank_question
from retrieval.ranking import RankOptions


def normaliser(corpus: Corpus, query_text: str, options: RankOptions) -> float:
    """(k1 + 1) x the idf sum of the query's distinct known words; 0.0 when none is known."""
    index = corpus.index
    terms = dict.fromkeys(analysis.analyze(query_text)[: options.max_terms])
    idf = sum(index.idf_of(term) for term in terms if term in index)
    return (index.params.k1 + 1.0) * idf


def scored_top(
    corpus: Corpus, options: RankOptions, query: str, top_k: int, max_chars: int
) -> list[tuple[int, float]]:
    """(document, normalised score) of the query's top `top_k` over the corpus, best first."""
    deep = replace(options, max_results=top_k)
    parsed, ranking, _ = rank_question(corpus, deep, query, None, max_chars)
    scale = normaliser(corpus, parsed.text, options)
    if scale <= 0:
        return []
    return [(doc, score / scale) for doc, score in zip(ranking.docs, ranking.scores, strict=True)]


def matching_docs(
    corpus: Corpus,
    options: RankOptions,
    query: str,
    new_docs: Collection[int],
    *,
    top_k: int,
    threshold: float,
    max_chars: int,
) -> list[tuple[int, float]]:
    """The new documents that match the watch, best first, with their normalised scores."""
    return [
        (doc, score)
        for doc, score in scored_top(corpus, options, query, top_k, max_chars)
        if doc in new_docs and score >= threshold
    ]
