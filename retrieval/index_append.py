"""An index plus new documents, equal to a fresh build over all of them, without re-reading the old.

After an ingest the new papers come after every indexed one (store keys ascend), so the old
documents keep their numbers and their terms keep theirs: only the new documents are analyzed,
and their postings are placed after the old ones per term (`index_build`, the old index being
the build's first chunk). The constructor then recomputes what depends on the whole corpus (N,
average length, IDF, impacts), exactly as a build does, so BM25 statistics stay those of the
whole corpus and scores are bit-identical.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from retrieval.index import BM25Index
from retrieval.index_build import IndexBuilder


def append_documents(
    base: BM25Index, documents: Iterable[Sequence[str]], keys: Sequence[int]
) -> BM25Index:
    """A new index holding `base`'s documents, then `documents` (keyed by `keys`).

    Equal to `BM25Index.build` over all documents in that order: same term numbers (first
    occurrence), same postings order (by term, then document), same impacts. `base` is left
    as it was (a snapshot in use is never edited).
    """
    builder = IndexBuilder(base)
    builder.add(documents, keys)
    return BM25Index.from_arrays(builder.arrays(), base.params)
