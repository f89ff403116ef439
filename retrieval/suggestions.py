"""Autocomplete answers: ids and label words by prefix first, then full-text matches."""

from __future__ import annotations

import difflib

from retrieval import text as analysis
from retrieval.corpus import Corpus
from retrieval.ids import paper_key
from retrieval.models import ParsedQuery
from retrieval.ranking import RankOptions, rank


def suggest_papers(
    corpus: Corpus, text: str, limit: int, options: RankOptions
) -> list[tuple[str, str]]:
    """(paper id, label) pairs for what has been typed so far, at most `limit`."""
    found = corpus.autocomplete.suggest(text, limit)
    exact = corpus.papers.doc_of(paper_key(text) or "")
    if exact is not None and corpus.papers.entry(exact) not in found:
        # A typed id in any form ("ICML2026-07") is the first choice, whatever the prefixes say.
        found.insert(0, corpus.papers.entry(exact))
    if len(found) >= limit or not text.strip():
        return found[:limit] or corpus.papers.entries(0, limit)
    ranking = rank(corpus, ParsedQuery(text=text), options, analysis.analyze)
    seen = {paper_id for paper_id, _ in found}
    for doc in ranking.docs:
        entry = corpus.papers.entry(doc)
        if entry[0] not in seen:
            found.append(entry)
    return found[:limit]


# How alike a typed collection name must be to a loaded one ("icml2O26" -> icml2026).
SLUG_CUTOFF = 0.75


def closest_ids(corpus: Corpus, typed: str, limit: int = 3) -> list[str]:
    """Real ids plausibly meant by a typed one that does not exist: in the same collection (or
    one whose short name is a small typo away), the nearest numbers ('icml2026-999' ->
    icml2026-38, the last one); otherwise ids that start with what was typed. Nothing else:
    a paper whose label merely shares a word ('foo' -> a label with 'Foolproof') is no
    suggestion for an id."""
    key = paper_key(typed)
    if key is not None:
        slug, _, number = key.rpartition("-")
        numbers_by_slug = corpus.numbers_by_slug
        if slug not in numbers_by_slug:
            close = difflib.get_close_matches(slug, list(numbers_by_slug), 1, SLUG_CUTOFF)
            slug = close[0] if close else slug
        numbers = numbers_by_slug.get(slug)
        if numbers:
            wanted = int(number)
            nearest = sorted(numbers, key=lambda n: (abs(n - wanted), n))[:limit]
            return [f"{slug}-{n}" for n in nearest]
    prefix = typed.strip().lower()[:100]
    if not prefix:
        return []
    found = corpus.autocomplete.suggest(prefix, limit)
    return [paper_id for paper_id, _ in found if paper_id.startswith(prefix)]
