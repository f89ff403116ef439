"""What a process maps to answer questions about one corpus snapshot: the impact matrix.

matrix.py          BM25Index: the impact matrix (CSC by term: offsets, postings, float32
                   BM25 impacts) plus IDF, document lengths, keys and each document's terms
                   in text order; built once, extended after an ingest, saved and mapped
matrix_build.py    the one builder (chunks of analyzed documents -> sorted postings)
impacts.py         rank-bm25's formula, once per posting
bm25_reference.py  rank-bm25's own IDF table (the reference exact mode equals)
files.py           atomic array directories with a stamp: damaged or stale -> rebuilt
scoring.py         eager top-k: sum the query's columns, argpartition, acronym credit
proximity.py       the word-proximity bonus for re-ranking the head of a ranking
compiled.py        numba for those loops, cached in the user's cache folder
"""
