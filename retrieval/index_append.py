"""An index plus new documents, equal to a fresh build over all of them, without re-reading the old.

After an ingest the new papers come after every indexed one (store keys ascend), so the old
documents keep their numbers and their terms keep theirs: only the new documents are analyzed,
and their postings are merged into the old arrays per term (vectorised). The constructor then
recomputes what depends on the whole corpus (N, average length, IDF, impacts), exactly as a
build does, so BM25 statistics stay those of the whole corpus and scores are bit-identical.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from retrieval.index import BM25Index, IntArray, number_tokens

IntArray32 = npt.NDArray[np.int32]


def append_documents(
    base: BM25Index, documents: Iterable[Sequence[str]], keys: Sequence[int]
) -> BM25Index:
    """A new index holding `base`'s documents, then `documents` (keyed by `keys`).

    Equal to `BM25Index.build` over all documents in that order: same term numbers (first
    occurrence), same postings order (by term, then document), same impacts.
    """
    term_ids = dict(base.term_ids)
    # New terms get the next numbers in order of first occurrence, as in a build.
    tokens, new_len = number_tokens(documents, keys, term_ids)
    new_docs, new_tf, new_counts = _postings(tokens, new_len, len(term_ids), base.size)

    old_counts = np.zeros(len(term_ids), dtype=np.int64)
    old_counts[: len(base.terms)] = np.diff(base.offsets)
    offsets = np.zeros(len(term_ids) + 1, dtype=np.int64)
    np.cumsum(old_counts + new_counts, out=offsets[1:])
    # Each term's new postings go after its old ones (new documents have higher numbers).
    new_start = np.zeros(len(term_ids), dtype=np.int64)
    np.cumsum(new_counts[:-1], out=new_start[1:])
    shift = np.repeat(offsets[:-1] + old_counts - new_start, new_counts)
    new_slots = np.arange(len(new_docs), dtype=np.int64) + shift
    is_new = np.zeros(int(offsets[-1]), dtype=np.bool_)
    is_new[new_slots] = True
    postings_docs = np.empty(int(offsets[-1]), dtype=np.int32)
    postings_tf = np.empty(int(offsets[-1]), dtype=np.int32)
    # The old postings fill the remaining slots in their own order.
    postings_docs[~is_new] = base.postings_docs
    postings_tf[~is_new] = base.postings_tf
    postings_docs[new_slots] = new_docs
    postings_tf[new_slots] = new_tf
    return BM25Index(
        terms=list(term_ids),
        offsets=offsets,
        postings_docs=postings_docs,
        postings_tf=postings_tf,
        doc_len=np.concatenate([np.asarray(base.doc_len, dtype=np.int64), new_len]),
        keys=np.concatenate([np.asarray(base.keys, dtype=np.int64), np.asarray(keys, np.int64)]),
        params=base.params,
        forward=np.concatenate([np.asarray(base.forward, dtype=np.int32), tokens]),
    )


def _postings(
    tokens: IntArray32, lengths: IntArray, terms: int, first_doc: int
) -> tuple[IntArray32, IntArray32, IntArray]:
    """The new documents' postings sorted by (term, document): documents (numbered from
    `first_doc`), term frequencies, and how many postings each term has."""
    width = max(len(lengths), 1)
    pair = tokens.astype(np.int64) * width
    pair += np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    pair.sort()
    first = np.ones(len(pair), dtype=np.bool_)
    np.not_equal(pair[1:], pair[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    tf = np.diff(starts, append=len(pair)).astype(np.int32)
    pairs = pair[starts]
    docs = (pairs % width + first_doc).astype(np.int32)
    counts = np.bincount(pairs // width, minlength=terms).astype(np.int64)
    return docs, tf, counts
