"""From a ranking to an Answer: the page of papers, their excerpts, the lead quote, did-you-mean.

The ranking is the ranking: the page keeps its order whatever the lead. The lead quote comes from
the top paper of the page unless one of the next papers (within `LEAD_WINDOW`, so the lead never
depends on how many results were asked for) has a clearly better sentence for the question; then
that paper is named as the source (`Answer.lead_paper_id`) and stays where it ranks.

Excerpts come from the corpus's sentence table (`table_excerpts`: a lookup and a small scoring
pass, run on the event loop since it takes well under a millisecond for a page); papers the
table does not cover yet are analysed from their abstracts, in a worker thread.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass

from retrieval import text as analysis
from retrieval.corpus import Corpus
from retrieval.excerpts import best_sentence, excerpt_and_lead
from retrieval.models import Answer, Excerpt, Hit, Paper, ParsedQuery
from retrieval.ranking import Ranking, RankOptions, did_you_mean
from retrieval.stores.protocol import PaperStore
from retrieval.table_excerpts import ExcerptAndLead, excerpts_from_table

MAX_SUGGESTION_WORDS = 12
# Another paper's sentence leads only when it scores this much better than the top paper's best.
LEAD_MARGIN = 1.5
# The lead is chosen among the first papers of the page only: the smallest page the bot shows.
LEAD_WINDOW = 3


@dataclass(frozen=True, slots=True)
class Page:
    """Which slice of a ranking to show, and what to say about the question."""

    question: str
    parsed: ParsedQuery
    limit: int
    offset: int
    notice: str | None
    started: float


async def build_answer(
    store: PaperStore, corpus: Corpus, ranking: Ranking, page: Page, excerpt_chars: int
) -> Answer:
    offset = max(0, page.offset)
    docs = ranking.docs[offset : offset + page.limit]
    papers = await store.papers_by_key(corpus.keys_of(docs))
    suggestion = None
    unmatched = _typed_words(page.parsed.text, ranking.unknown)
    corrections: tuple[tuple[str, str], ...] = ()
    if not ranking.docs:
        # The did-you-mean query already corrects every word it can (one difflib pass each).
        suggestion = await _did_you_mean(store, corpus, ranking.suggestion_terms)
    elif unmatched:
        corrections = await _corrections(store, corpus, unmatched)
    shown: Sequence[int | None] = docs
    if len(papers) != len(docs):  # a paper left the store since ranking: find each one's doc
        shown = [corpus.papers.doc_of(paper.id) for paper in papers]
    abstracts = [paper.abstract for paper in papers]
    table = corpus.sentences.table
    found = excerpts_from_table(
        corpus.index, table, shown, abstracts, ranking.weights, excerpt_chars
    )
    if all(result is not None for result in found):
        hits, lead, lead_id = _excerpts(papers, found, ranking, offset, excerpt_chars)
    else:
        hits, lead, lead_id = await asyncio.to_thread(
            _excerpts, papers, found, ranking, offset, excerpt_chars
        )
    return Answer(
        question=page.question,
        query=page.parsed,
        hits=hits,
        total=ranking.total,
        took_ms=(time.perf_counter() - page.started) * 1000,
        lead=lead,
        lead_paper_id=lead_id,
        suggestion=suggestion,
        notice=page.notice,
        expansions=ranking.expansions,
        total_all=ranking.total_all,
        unmatched=tuple(unmatched.values()),
        corrections=corrections,
    )


def _excerpts(
    papers: Sequence[Paper],
    found: Sequence[ExcerptAndLead | None],
    ranking: Ranking,
    offset: int,
    budget: int,
) -> tuple[tuple[Hit, ...], Excerpt | None, str | None]:
    """Hits with excerpts (`found`'s, else made from the abstract) and the lead quote."""
    hits = []
    best: list[tuple[float, Excerpt]] = []
    for position, paper in enumerate(papers):
        made = found[position]
        if made is None:
            made = excerpt_and_lead(paper.abstract, ranking.weights, budget)
        excerpt, sentence, score = made
        hits.append(
            Hit(
                paper=paper,
                score=ranking.scores[offset + position],
                rank=offset + position + 1,
                excerpt=excerpt,
            )
        )
        best.append((score, sentence))
    if not hits:
        return (), None, None
    chosen = _lead_position(best[:LEAD_WINDOW])
    if chosen is None:
        return tuple(hits), None, None
    return tuple(hits), best[chosen][1], hits[chosen].paper.id


def _lead_position(best: Sequence[tuple[float, Excerpt]]) -> int | None:
    """The top paper's sentence, unless another's is clearly better (LEAD_MARGIN times)."""
    top_score = best[0][0]
    challenger = max(range(len(best)), key=lambda i: best[i][0])
    if best[challenger][0] <= 0:
        return None
    if top_score > 0 and best[challenger][0] < LEAD_MARGIN * top_score:
        return 0
    return challenger


def query_weights(corpus: Corpus, question: str, options: RankOptions) -> dict[str, float]:
    """Term -> weight (its idf) for a question, as ranking would weigh its words."""
    terms = analysis.analyze(question)[: options.max_terms]
    index = corpus.index
    return {term: index.idf_of(term) for term in dict.fromkeys(terms) if term in index}


def best_sentences(
    abstracts: Sequence[str], weights: dict[str, float], budget: int
) -> list[Excerpt | None]:
    """Each abstract's best sentence for `weights`, or None where no word matches; with no
    weights at all, each abstract's opening sentence."""
    found: list[Excerpt | None] = []
    for abstract in abstracts:
        sentence, score = best_sentence(abstract, weights, budget)
        # Without question words, the opening sentence says what the paper is about.
        found.append(sentence if score > 0 or not weights else None)
    return found


async def _did_you_mean(store: PaperStore, corpus: Corpus, terms: Sequence[str]) -> str | None:
    """A did-you-mean built from real words of the corpus, or None if nothing is close."""
    close = await asyncio.to_thread(did_you_mean, corpus, terms)
    if not close:
        return None
    words = []
    # A suggestion is a short query to click or retype, not an echo of a huge question.
    for term in list(dict.fromkeys(terms))[:MAX_SUGGESTION_WORDS]:
        replacement = close.get(term)
        words.append(await _surface(store, corpus, replacement) if replacement else term)
    return " ".join(words)


def _typed_words(text: str, terms: Sequence[str]) -> dict[str, str]:
    """Each of `terms` (analyzed) -> the word as the user typed it, in question order."""
    wanted = set(terms)
    typed: dict[str, str] = {}
    for start, end, term in analysis.word_spans(text):
        if term in wanted and term not in typed:
            typed[term] = text[start:end]
    return typed


async def _corrections(
    store: PaperStore, corpus: Corpus, unmatched: dict[str, str]
) -> tuple[tuple[str, str], ...]:
    """(typed word, the closest word papers use) for each unmatched word that has one."""
    close = await asyncio.to_thread(did_you_mean, corpus, list(unmatched))
    pairs = []
    for term, word in unmatched.items():
        if term in close:
            pairs.append((word, await _surface(store, corpus, close[term])))
    return tuple(pairs)


async def _surface(store: PaperStore, corpus: Corpus, term: str) -> str:
    """A word as papers write it ('retrieval' rather than the stem 'retriev')."""
    docs = corpus.index.postings(term)[:1].tolist()
    if not docs:
        return term
    abstracts = await store.abstracts_by_key(corpus.keys_of(docs))
    for abstract in abstracts.values():
        for start, end, found in analysis.word_spans(abstract):
            if found == term:
                return abstract[start:end].lower()
    return term
