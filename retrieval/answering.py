"""From a ranking to an Answer: the page of papers, their excerpts, the lead quote, did-you-mean.

The ranking is the ranking: the page keeps its order whatever the lead. The lead quote comes from
the top paper of the page unless one of the next papers (within `LEAD_WINDOW`, so the lead never
depends on how many results were asked for) has a clearly better sentence for the question; then
that paper is named as the source (`Answer.lead_paper_id`) and stays where it ranks.

Excerpts come from the corpus's sentence table (`snapshot/page_excerpts.py`: a lookup and a
small scoring pass, run on the event loop since it takes well under a millisecond for a page);
a page with papers the table does not hold yet (their abstracts are analysed) is done in a
worker thread.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from retrieval import text as analysis
from retrieval.corpus import Corpus
from retrieval.ids import paper_key
from retrieval.models import Answer, Excerpt, Hit, Paper, ParsedQuery
from retrieval.ranking import Ranking, RankOptions, close_terms
from retrieval.snapshot.page_excerpts import ExcerptAndLead, covers, page_excerpts
from retrieval.stores.protocol import PaperStore

MAX_SUGGESTION_WORDS = 12
# Papers read to find how a corrected word is written: enough to see its common forms.
SURFACE_SAMPLE = 20
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
    unmatched = {
        term: word
        for term, word in _typed_words(page.parsed.text, ranking.unknown).items()
        if not _names_a_collection(corpus, term)
    }
    corrections: tuple[tuple[str, str], ...] = ()
    if not ranking.docs:
        # The did-you-mean query already corrects every word it can (one difflib pass each).
        typed = _typed_words(page.parsed.text, ranking.suggestion_terms)
        suggestion = await _did_you_mean(store, corpus, ranking.suggestion_terms, typed)
    elif unmatched:
        corrections = await _corrections(store, corpus, unmatched)
    shown: Sequence[int | None] = docs
    if len(papers) != len(docs):  # a paper left the store since ranking: find each one's doc
        shown = [corpus.papers.doc_of(paper.id) for paper in papers]
    abstracts = [paper.abstract for paper in papers]
    index, table = corpus.index, corpus.sentences.table
    arguments = (index, table, shown, abstracts, ranking.weights, excerpt_chars)
    if all(covers(index, table, doc, text) for doc, text in zip(shown, abstracts, strict=True)):
        found = page_excerpts(*arguments)
    else:
        found = await asyncio.to_thread(page_excerpts, *arguments)
    hits, lead, lead_id = _excerpts(papers, found, ranking, offset)
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
        absent_here=tuple(
            word
            for term, word in _typed_words(page.parsed.text, ranking.absent).items()
            if not _names_a_collection(corpus, term)
        ),
        corrections=corrections,
    )


def _excerpts(
    papers: Sequence[Paper], found: Sequence[ExcerptAndLead], ranking: Ranking, offset: int
) -> tuple[tuple[Hit, ...], Excerpt | None, str | None]:
    """Hits with their excerpts and the lead quote."""
    hits = []
    best: list[tuple[float, Excerpt]] = []
    for position, paper in enumerate(papers):
        excerpt, sentence, score = found[position]
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
    papers: Sequence[str | Paper],
    weights: dict[str, float],
    budget: int,
    corpus: Corpus | None = None,
) -> list[Excerpt | None]:
    """Each paper's (or abstract's) best sentence for `weights`, or None where no word matches;
    with no weights at all, each one's opening sentence. The sentence table of `corpus` serves
    the papers it holds."""
    abstracts = [paper if isinstance(paper, str) else paper.abstract for paper in papers]
    index, table = (corpus.index, corpus.sentences.table) if corpus else (None, None)
    shown = [
        None if corpus is None or isinstance(paper, str) else corpus.papers.doc_of(paper.id)
        for paper in papers
    ]
    found = page_excerpts(index, table, shown, abstracts, weights, budget)
    # Without question words, the opening sentence says what the paper is about.
    return [lead if score > 0 or not weights else None for _, lead, score in found]


async def _did_you_mean(
    store: PaperStore, corpus: Corpus, terms: Sequence[str], typed: dict[str, str]
) -> str | None:
    """A did-you-mean built from real words of the corpus, or None if nothing is close."""
    close = await asyncio.to_thread(close_terms, corpus, terms, typed)
    if not close:
        return None
    words = []
    # A suggestion is a short query to click or retype, not an echo of a huge question.
    for term in list(dict.fromkeys(terms))[:MAX_SUGGESTION_WORDS]:
        candidates = close.get(term)
        closest = (
            await _closest_word(store, corpus, candidates, typed.get(term, term))
            if candidates
            else None
        )
        if closest is not None:
            words.append(closest)
        elif term in corpus.index:
            words.append(term)
        # A word no paper uses and nothing is close to is left out, not echoed back.
    return " ".join(words)


def _names_a_collection(corpus: Corpus, term: str) -> bool:
    """Whether `term` is a number or a word of a loaded collection's name: "which ICML 2026
    papers ..." names the list the papers are in, which no abstract mentions, and "2026" is no
    misspelling of "2025"."""
    return term.isdigit() or term in corpus.collection_name_terms


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
    close = await asyncio.to_thread(close_terms, corpus, list(unmatched), unmatched)
    pairs = []
    for term, word in unmatched.items():
        if term in close and paper_key(word) is None:  # an id is no misspelt word
            closest = await _closest_word(store, corpus, close[term], word)
            if closest is not None:
                pairs.append((word, closest))
    return tuple(pairs)


async def _closest_word(
    store: PaperStore, corpus: Corpus, candidates: Sequence[str], typed: str
) -> str | None:
    """Of the words papers write for the close `candidates` (stems), the one closest to what was
    `typed`; ties go to the word more papers use ("detecton" is one letter from "detection" and
    from "detector": the common word is the likelier meant), then to the closer stem. None when
    even the closest is no plausible typo of it."""
    words = [await _surface(store, corpus, term, typed) for term in candidates]
    wanted = typed.lower()
    papers = [len(corpus.index.postings(term)) for term in candidates]
    best = min(range(len(words)), key=lambda i: (edit_distance(wanted, words[i]), -papers[i], i))
    return words[best] if plausible_typo(typed, words[best]) else None


async def _surface(store: PaperStore, corpus: Corpus, term: str, typed: str) -> str:
    """The word papers write for the stem `term` that is closest to what was `typed` (edit
    distance, ties by how often papers write it): "genration" -> "generation", not the first
    form found ("generate"). Reads the first SURFACE_SAMPLE papers using the stem, in one go."""
    docs = corpus.index.postings(term)[:SURFACE_SAMPLE].tolist()
    if not docs:
        return term
    abstracts = await store.abstracts_by_key(corpus.keys_of(docs))
    forms: Counter[str] = Counter()
    for abstract in abstracts.values():
        for start, end, found in analysis.word_spans(abstract):
            if found == term:
                forms[abstract[start:end].lower()] += 1
    if not forms:
        return term
    wanted = typed.lower()
    return min(forms, key=lambda form: (edit_distance(wanted, form), -forms[form], form))


def corrected_question(question: str, corrections: Sequence[tuple[str, str]]) -> str:
    """`question` with each misspelt word replaced by its correction, as whole words: what the
    chat and `paperbot ask` search when no paper uses a typed word."""
    for typed, word in corrections:
        pattern = rf"(?<![\w-]){re.escape(typed)}(?![\w-])"
        question = re.sub(pattern, word, question, flags=re.IGNORECASE)
    return question


def edit_distance(a: str, b: str) -> int:
    """Edit distance where an insertion, a deletion, a substitution or two neighbouring letters
    swapped ("desing" -> "design") each cost 1 (optimal string alignment)."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def plausible_typo(typed: str, word: str) -> bool:
    """Whether `word` is close enough to what was `typed` to be what was meant: one edit in a
    short word, one per three letters in a longer one ("desing" is no typo of "des", "nah" of
    "nash")."""
    typed = typed.lower()
    if len(typed) <= 3:
        return False
    return edit_distance(typed, word) <= max(1, len(typed) // 3)
