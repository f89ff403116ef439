"""What the sentence table keeps of one abstract: its sentences' character spans in the cleaned
text and their token ranges in the abstract's index document, checked against that document.

Computed once per paper (when the table is built or extended), never per question. The
sentences are `excerpts.analyse`'s own, so they are the reference's by construction; a record is
usable only if the terms of its words, sentence after sentence, are exactly the last tokens of
the paper's index document (the title's come first): then "which query terms does sentence i
hold" is "which query term numbers lie in its token range" of the index's forward array.
Anything else (an analyzer quirk, terms from another analyzer) yields an unverified record, and
excerpts of that paper are made from its abstract as before. Pure and picklable: a process pool
can build records for a large corpus.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from retrieval.excerpts import analyse

# Where each token's word starts is kept relative to its sentence, in 16 bits.
MAX_SENTENCE_CHARS: Final = 65_535


@dataclass(frozen=True, slots=True)
class SentenceRecord:
    """One abstract's sentences for the table. `title_tokens` < 0: not verified (not usable)."""

    length: int  # len(abstract): a paper fetched later is checked to be the one analysed
    tokens: int  # tokens of the index document (title and abstract)
    clean: str | None  # the cleaned text, None when it equals the abstract (most do)
    spans: tuple[tuple[int, int], ...]  # each sentence's (start, end) in the cleaned text
    token_counts: tuple[int, ...]  # index tokens of each sentence's words
    word_offsets: tuple[int, ...]  # per abstract token: where its word starts in its sentence
    title_tokens: int  # index tokens before the abstract's first


def sentence_record(abstract: str, document: Sequence[str]) -> SentenceRecord:
    """The record of `abstract`, whose index document (title terms, then abstract terms) is
    `document`."""
    clean, sentences = analyse(abstract)
    unusable = SentenceRecord(len(abstract), len(document), None, (), (), (), -1)
    # A word written as a command ("\\alpha") starts after its backslash, not where its match
    # does, which `word_at` needs; cleaned text keeps none in practice.
    if "\\" in clean or any(s.end - s.start > MAX_SENTENCE_CHARS for s in sentences):
        return unusable
    counts = []
    tokens: list[str] = []
    offsets: list[int] = []
    for sentence in sentences:
        before = len(tokens)
        for start, _end, terms in sentence.words or ():
            tokens.extend(terms)
            offsets.extend([start - sentence.start] * len(terms))
        counts.append(len(tokens) - before)
    title_tokens = len(document) - len(tokens)
    if title_tokens < 0 or list(document[title_tokens:]) != tokens:
        return unusable
    return SentenceRecord(
        length=len(abstract),
        tokens=len(document),
        clean=None if clean == abstract else clean,
        spans=tuple((sentence.start, sentence.end) for sentence in sentences),
        token_counts=tuple(counts),
        word_offsets=tuple(offsets),
        title_tokens=title_tokens,
    )


def sentence_records(papers: Sequence[tuple[str, Sequence[str]]]) -> list[SentenceRecord]:
    """`sentence_record` of each (abstract, index document): one task of a worker process."""
    return [sentence_record(abstract, document) for abstract, document in papers]
