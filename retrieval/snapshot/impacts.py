"""Precomputed BM25Okapi impacts: each (term, document) posting's share of the score.

BM25Okapi's contribution of a term to a document depends only on the term frequency, the
document's length, the term's IDF and k1/b. Computing it once per build turns a query into a sum of
impact arrays. The formula and its operation order are rank-bm25's (`get_scores`), evaluated in
float64 and stored as float32: the scores match rank-bm25 within float32 rounding.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

# Postings per chunk: bounds the float64 temporaries to ~50 MB at any corpus size.
_CHUNK = 1 << 22


def compute_impacts(
    offsets: npt.NDArray[np.int64],
    postings_docs: npt.NDArray[np.int32],
    postings_tf: npt.NDArray[np.int32],
    idf: npt.NDArray[np.float64],
    norm: npt.NDArray[np.float64],
    k1: float,
) -> npt.NDArray[np.float32]:
    """idf[t] * (tf * (k1 + 1) / (tf + norm[d])) for every posting, in postings order.

    `norm[d]` is rank-bm25's denominator term `k1 * (1 - b + b * len(d) / avgdl)`.
    """
    total = len(postings_docs)
    impacts = np.empty(total, dtype=np.float32)
    for start in range(0, total, _CHUNK):
        end = min(start + _CHUNK, total)
        tf = postings_tf[start:end]
        docs = postings_docs[start:end]
        term_of = _terms_of(offsets, start, end)
        impacts[start:end] = idf[term_of] * (tf * (k1 + 1) / (tf + norm[docs]))
    return impacts


def _terms_of(offsets: npt.NDArray[np.int64], start: int, end: int) -> npt.NDArray[np.int64]:
    """The term of each posting in [start, end): one chunk's share, never the whole corpus's
    (an int per posting is 350 MB at 1M papers)."""
    first = int(np.searchsorted(offsets, start, side="right")) - 1
    last = int(np.searchsorted(offsets, end, side="left"))
    lengths = np.minimum(offsets[first + 1 : last + 1], end) - np.maximum(
        offsets[first:last], start
    )
    return np.repeat(np.arange(first, last, dtype=np.int64), lengths)
