"""BM25 inverted index: rank-bm25's BM25Okapi scores from numpy postings and precomputed impacts.

`rank_bm25.BM25Okapi.get_scores` walks every document in Python for every query term, which is
seconds per query at 100k abstracts. This index keeps the same statistics as postings arrays,
evaluates the same formula once per posting at build (impacts.py, float32), and sums impacts
only over the documents that hold a query term (snapshot/scoring.py). IDF comes from rank-bm25's own
`_calc_idf` (through retrieval/bm25_reference.py), so epsilon handling is theirs too. Saved
indexes are memory-mapped directories (index_files.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from retrieval.snapshot import files as index_files
from retrieval.snapshot.bm25_reference import idf_table
from retrieval.snapshot.compiled import readonly
from retrieval.snapshot.impacts import compute_impacts
from retrieval.snapshot.matrix_build import IndexArrays, IndexBuilder

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class BM25Params:
    """BM25Okapi's parameters; built from Settings by `retrieval.parameters`, nowhere else."""

    k1: float
    b: float
    epsilon: float


@dataclass(frozen=True, slots=True)
class Scores:
    """Dense scores over all documents, and which documents hold at least one query term."""

    values: FloatArray
    matched: BoolArray


class BM25Index:
    """Postings per term (document numbers and term frequencies) plus per-document lengths.

    Document numbers are positions in `keys`, which the caller maps to its own ids.
    Terms are numbered in order of first occurrence, as rank-bm25 fills its dictionaries, so the
    IDF average is summed in the same order and scores match rank-bm25 to the last bit.
    """

    def __init__(
        self,
        terms: list[str],
        offsets: IntArray,
        postings_docs: npt.NDArray[np.int32],
        postings_tf: npt.NDArray[np.int32],
        doc_len: IntArray,
        keys: IntArray,
        params: BM25Params,
        forward: npt.NDArray[np.int32],
        impacts: npt.NDArray[np.float32] | None = None,
        idf: FloatArray | None = None,
    ) -> None:
        self.terms = terms
        self.term_ids = {term: number for number, term in enumerate(terms)}
        self.offsets = offsets
        self.postings_docs = postings_docs
        self.postings_tf = postings_tf
        self.doc_len = doc_len
        self.keys = keys
        self.params = params
        # Each document's term ids in text order, for phrase checks, proximity and "similar".
        self.forward = forward
        self.doc_start = np.zeros(len(doc_len) + 1, dtype=np.int64)
        np.cumsum(doc_len, out=self.doc_start[1:])
        self.size = len(keys)
        self.avgdl = int(doc_len.sum()) / self.size if self.size else 0.0
        frequencies = np.diff(offsets)
        if idf is not None:
            self.idf = idf
        elif self.size:
            table = idf_table(
                dict(zip(terms, frequencies.tolist(), strict=True)), self.size, params.epsilon
            )
            self.idf = np.array([table[term] for term in terms], dtype=np.float64)
        else:
            self.idf = np.zeros(0, dtype=np.float64)
        # Same expression, same operation order as rank-bm25's get_scores denominator.
        k1, b = params.k1, params.b
        self.norm = np.asarray(
            # No tokens at all (stopword-only abstracts): no posting is ever scored.
            k1 * (1 - b + b * doc_len / self.avgdl) if self.avgdl else np.zeros(self.size),
            dtype=np.float64,
        )
        # Each posting's BM25 contribution; a loaded index brings its own (same params).
        if impacts is None:
            impacts = compute_impacts(offsets, postings_docs, postings_tf, self.idf, self.norm, k1)
        self.impacts = impacts
        # The scoring kernels' arguments, as read-only views (one compiled type).
        self.kernel_arrays = (readonly(offsets), readonly(postings_docs), readonly(impacts))

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def build(
        cls, documents: Iterable[Sequence[str]], keys: Sequence[int], params: BM25Params
    ) -> BM25Index:
        """Index token lists; `keys[i]` identifies `documents[i]` to the caller.

        `documents` may be a generator: only a batch of tokens need exist at a time, and each
        token then costs 4 bytes (an int32 term number) until the postings are sorted. A corpus
        too big for that is built a chunk at a time with `index_build.IndexBuilder`.
        """
        builder = IndexBuilder()
        builder.add(documents, keys)
        return cls.from_arrays(builder.arrays(), params)

    @classmethod
    def from_arrays(cls, arrays: IndexArrays, params: BM25Params) -> BM25Index:
        """The index of built arrays; IDF, norms and impacts are computed here."""
        return cls(
            terms=arrays.terms,
            offsets=arrays.offsets,
            postings_docs=arrays.postings_docs,
            postings_tf=arrays.postings_tf,
            doc_len=arrays.doc_len,
            keys=arrays.keys,
            params=params,
            forward=arrays.forward,
        )

    def extend(self, documents: Iterable[Sequence[str]], keys: Sequence[int]) -> BM25Index:
        """A new index holding this one's documents, then `documents` (keyed by `keys`, which
        come after every key here: store keys ascend), equal to a fresh build over all of them.

        The old documents and terms keep their numbers, only the new documents are analyzed,
        and their postings are placed after the old ones per term (the old index is the
        builder's first chunk); the constructor recomputes what depends on the whole corpus (N,
        average length, IDF, impacts), so scores are bit-identical to a fresh build's. This
        index is left as it was (a snapshot in use is never edited).
        """
        builder = IndexBuilder(self)
        builder.add(documents, keys)
        return BM25Index.from_arrays(builder.arrays(), self.params)

    # -- querying ------------------------------------------------------------------------------

    def __contains__(self, term: str) -> bool:
        return term in self.term_ids

    def postings(self, term: str) -> npt.NDArray[np.int32]:
        """Document numbers that contain `term` (ascending)."""
        number = self.term_ids.get(term)
        if number is None:
            return np.zeros(0, dtype=np.int32)
        return self.postings_docs[self.offsets[number] : self.offsets[number + 1]]

    def idf_of(self, term: str) -> float:
        number = self.term_ids.get(term)
        return 0.0 if number is None else float(self.idf[number])

    def score(self, query: Sequence[tuple[str, float]]) -> Scores:
        """BM25Okapi scores for weighted query terms; repeated terms count again, as in rank-bm25.

        With every weight 1.0 the result equals `BM25Okapi(...).get_scores(terms)` within
        float32 rounding (the impacts are stored as float32).
        """
        values = np.zeros(self.size, dtype=np.float64)
        matched = np.zeros(self.size, dtype=np.bool_)
        for term, weight in query:
            number = self.term_ids.get(term)
            if number is None or weight == 0:
                continue
            start, end = self.offsets[number], self.offsets[number + 1]
            docs = self.postings_docs[start:end]
            values[docs] += weight * self.impacts[start:end].astype(np.float64)
            matched[docs] = True
        return Scores(values, matched)

    def document_terms(self, doc: int) -> npt.NDArray[np.int32]:
        """Term ids of one document, in text order."""
        return self.forward[self.doc_start[doc] : self.doc_start[doc + 1]]

    def term_number(self, term: str) -> int | None:
        return self.term_ids.get(term)

    @property
    def nbytes(self) -> int:
        arrays = (
            self.offsets,
            self.postings_docs,
            self.postings_tf,
            self.doc_len,
            self.keys,
            self.forward,
        )
        return (
            sum(array.nbytes for array in arrays)
            + self.idf.nbytes
            + self.norm.nbytes
            + self.impacts.nbytes
        )

    # -- persistence ---------------------------------------------------------------------------

    def save(self, path: Path, stamp: dict[str, Any]) -> None:
        """Write the index directory `path` atomically (see index_files)."""
        arrays: dict[str, npt.NDArray[Any]] = {
            "offsets": self.offsets,
            "postings_docs": self.postings_docs,
            "postings_tf": self.postings_tf,
            "impacts": self.impacts,
            "idf": self.idf,
            "doc_len": self.doc_len,
            "keys": self.keys,
            "forward": self.forward,
        }
        index_files.write(path, arrays, self.terms, _full_stamp(stamp, self.params))

    @classmethod
    def load(cls, path: Path, stamp: dict[str, Any], params: BM25Params) -> BM25Index | None:
        """The saved index, memory-mapped, if it was written for `stamp` and `params`.

        None if missing, stale, truncated or unreadable: the caller rebuilds.
        """
        found = index_files.read(path, _full_stamp(stamp, params))
        if found is None:
            return None
        arrays, terms = found
        if not arrays.keys() >= _SAVED or len(arrays["offsets"]) != len(terms) + 1:
            return None
        return cls(
            terms=terms,
            offsets=arrays["offsets"],
            postings_docs=arrays["postings_docs"],
            postings_tf=arrays["postings_tf"],
            doc_len=arrays["doc_len"],
            keys=arrays["keys"],
            params=params,
            forward=arrays["forward"],
            impacts=arrays["impacts"],
            idf=arrays["idf"],
        )


# The arrays `load` needs; a directory whose header lacks one is no index (an older layout's
# extra arrays, such as the pruning bounds, are ignored).
_SAVED = {
    "offsets",
    "postings_docs",
    "postings_tf",
    "doc_len",
    "keys",
    "forward",
    "impacts",
    "idf",
}


def _full_stamp(stamp: dict[str, Any], params: BM25Params) -> dict[str, Any]:
    """The caller's stamp plus what the stored impacts depend on."""
    return {**stamp, "k1": params.k1, "b": params.b, "epsilon": params.epsilon}
