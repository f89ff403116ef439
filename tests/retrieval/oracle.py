"""rank-bm25's own default parameters: what the exact-mode oracle tests compare against."""

from retrieval.snapshot.matrix import BM25Params

RANK_BM25_DEFAULTS = BM25Params(k1=1.5, b=0.75, epsilon=0.25)
