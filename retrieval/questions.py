"""Questions to rankings over one corpus snapshot: length limit, collection filter, query
syntax, free text (evaluation) and similar papers. Synchronous: callers run them in threads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from retrieval import text as analysis
from retrieval.collection_names import resolve_collections
from retrieval.corpus import Corpus
from retrieval.errors import CollectionNotFound, QueryError
from retrieval.models import ParsedQuery
from retrieval.query import parse_query
from retrieval.ranking import Ranking, RankOptions, rank
from retrieval.similar_terms import similarity_terms
from retrieval.snapshot.matrix import BoolArray


def shorten(question: str, limit: int) -> tuple[str, str | None]:
    """The question cut to `limit` characters on a word boundary, and a notice if it was cut."""
    if len(question) <= limit:
        return question, None
    cut = question[:limit].rsplit(" ", 1)[0] or question[:limit]
    return cut, f"Your question was shortened to its first {len(cut):,} characters."


def collection_mask(corpus: Corpus, names: Sequence[str]) -> BoolArray | None:
    """Documents in any of the named collections (None: no filter). Names resolve through the
    one collection rule; an unknown name raises CollectionNotFound with the loaded names."""
    if not names:
        return None
    known = corpus.collection_infos
    mask = np.zeros(corpus.index.size, dtype=np.bool_)
    for name in names:
        found = resolve_collections(name, known)
        if not found:
            raise CollectionNotFound(name, [info.name for info in known])
        for info in found:
            mask |= corpus.collections[info.slug][1]
    return mask


def rank_question(
    corpus: Corpus, options: RankOptions, question: str, collection: str | None, max_chars: int
) -> tuple[ParsedQuery, Ranking, str | None]:
    """Parse and rank a question (query syntax honoured); a `collection` argument (one name, or
    slugs joined by commas: "neurips2023,neurips2024") replaces any `in:` filter written in it.
    Returns the parsed query, the ranking and a notice, if any."""
    text, notice = shorten(question, max_chars)
    parsed = parse_query(text)
    if collection:
        names = tuple(name.strip() for name in collection.split(",") if name.strip())
        parsed = replace(parsed, collections=names or (collection,))
    if not (parsed.text or parsed.phrases):
        raise QueryError("There is nothing to search for in that question.")
    allowed = collection_mask(corpus, parsed.collections)
    if parsed.collections:
        # The answer names where it searched as the collections are called ("ICLR 2024"),
        # however they were asked for ("iclr", "iclr2024", in:"ICLR 2024").
        known = corpus.collection_infos
        named = [
            info.name for name in parsed.collections for info in resolve_collections(name, known)
        ]
        parsed = replace(parsed, collections=tuple(dict.fromkeys(named)))
    return parsed, rank(corpus, parsed, options, analysis.analyze, allowed=allowed), notice


def rank_free_text(
    corpus: Corpus, options: RankOptions, text: str, depth: int, max_chars: int
) -> list[tuple[str, float]]:
    """(paper id, score), best first, `depth` deep, with no query operators parsed (a claim's
    "-" or quotes are plain words). The first `max_results` places equal what `ask` ranks."""
    text, _ = shorten(text, max_chars)
    deeper = replace(
        options,
        max_results=max(depth, options.max_results),
        rerank_depth=min(options.rerank_depth, options.max_results),
    )
    ranking = rank(corpus, ParsedQuery(text=text), deeper, analysis.analyze)
    return [
        (corpus.papers.paper_id(doc), score)
        for doc, score in zip(ranking.docs[:depth], ranking.scores[:depth], strict=True)
    ]


def rank_similar(
    corpus: Corpus, options: RankOptions, doc: int, collection: str | None = None
) -> Ranking:
    """Papers like document `doc`: its distinctive terms (generic prose left out, see
    `similar_terms`) as an exact query, itself excluded; only in `collection` (slugs joined by
    commas) when given."""
    names = tuple(name.strip() for name in (collection or "").split(",") if name.strip())
    mask = collection_mask(corpus, names)
    allowed = np.ones(corpus.index.size, dtype=np.bool_) if mask is None else mask
    allowed[doc] = False
    exact = replace(options, mode="exact")
    return rank(
        corpus,
        ParsedQuery(text=""),
        exact,
        analysis.analyze,
        allowed=allowed,
        extra_terms=similarity_terms(corpus, doc),
    )
