"""The ranking and data layer: what a process maps to rank and show one corpus snapshot.

Ranking     matrix (BM25Index: CSC impacts, IDF, lengths, keys, terms in text order),
            matrix_build, impacts, bm25_reference, scoring (eager top-k), proximity, compiled
Papers      papers (PaperTable), autocomplete, autocomplete_build
Sentences   sentence_records, sentences (the table), sentence_hits, page_excerpts
Loading     files (atomic stamped array folders: damaged or stale -> rebuilt), load_index,
            load_papers, load_sentences; reclaim (frees a replaced snapshot); precompile
retrieval/corpus.py assembles a Corpus from these and is what the rest of the engine imports.
"""
