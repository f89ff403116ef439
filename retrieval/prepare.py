"""Parsed papers -> what the store keeps for each one: analyzed terms, label, hash, URLs, acronyms.

Pure and picklable, so the ingest process pool can run it on chunks in worker processes.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence

from retrieval import text as analysis
from retrieval.ids import content_hash
from retrieval.labels import derive_label, extract_urls
from retrieval.models import ParsedPaper
from retrieval.stores.protocol import NewPaper


def searchable_text(title: str | None, abstract: str) -> str:
    """What is indexed for a paper: its title (when the list has one) and its abstract."""
    return f"{title}\n{abstract}" if title else abstract


def prepare_papers(papers: Sequence[ParsedPaper]) -> list[NewPaper]:
    """Analyze, label and hash parsed papers: everything the store keeps for each one."""
    prepared = []
    for paper in papers:
        urls = extract_urls(paper.abstract)
        if paper.url and paper.url not in urls:
            urls = (paper.url, *urls)
        # Terms first: the labeler's key phrases analyse the same words, and find them cached.
        terms = " ".join(analysis.analyze(searchable_text(paper.title, paper.abstract)))
        prepared.append(
            NewPaper(
                abstract=paper.abstract,
                external_id=paper.external_id,
                label=derive_label(paper.abstract, paper.title),
                content_hash=content_hash(paper.abstract),
                terms=terms,
                title=paper.title,
                urls=urls,
                authors=paper.authors,
                acronyms=tuple(analysis.find_acronyms(paper.abstract)),
            )
        )
    return prepared


def prepare_pickled(papers: Sequence[ParsedPaper]) -> bytes:
    """`prepare_papers`, pickled in the worker: the parent spools the bytes as they are, and
    never builds the objects until the store reads them back."""
    return pickle.dumps(prepare_papers(papers), protocol=pickle.HIGHEST_PROTOCOL)
