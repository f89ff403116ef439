"""`engine.exports`: gathers the papers of a reading list or a collection and renders them with
`retrieval.exports.formats` (shells call this; the formats themselves are pure functions there)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from retrieval.corpus import Corpus
from retrieval.exports.formats import export_papers
from retrieval.models import Paper
from retrieval.questions import collection_mask
from retrieval.stores.protocol import ReadingListStore


class ExportService:
    def __init__(self, store: ReadingListStore, corpus: Callable[[], Corpus]) -> None:
        self._store = store
        self._corpus = corpus

    async def saved(self, user_id: int, fmt: str) -> tuple[str, bytes, int]:
        """A user's reading list as a file: (name, bytes, number of papers)."""
        papers = await self._store.saved(user_id)
        name, data = export_papers(papers, fmt, title="Reading list")
        return name, data, len(papers)

    async def papers(self, collection: str | None, fmt: str) -> tuple[str, bytes, int]:
        """Every paper (or every member of one collection), by key: (name, bytes, count)."""
        papers = await self.collection_papers(collection)
        title = f"{collection} papers" if collection else "papers"
        name, data = export_papers(papers, fmt, title=title)
        return name, data, len(papers)

    async def collection_papers(self, collection: str | None) -> list[Paper]:
        corpus = self._corpus()
        if collection is None:
            docs = list(range(corpus.index.size))
        else:
            # The one collection rule, as search and chat read it: "iclr" is every loaded ICLR.
            mask = collection_mask(corpus, [collection])
            assert mask is not None
            docs = np.flatnonzero(mask).tolist()
        return await self._store.papers_by_key(corpus.keys_of(docs))
