"""What /stats reports: answer latencies (the last few thousand) and the corpus's figures."""

from __future__ import annotations

import statistics
import time
from collections import deque

from retrieval.corpus import Corpus
from retrieval.models import EngineStats
from retrieval.stores.protocol import PaperStore


class LatencyLog:
    def __init__(self, size: int = 2000) -> None:
        self._millis: deque[float] = deque(maxlen=size)
        self.count = 0

    def record(self, started: float) -> None:
        """Count one answer that began at `started` (a `time.perf_counter()` reading)."""
        self.count += 1
        self._millis.append((time.perf_counter() - started) * 1000)

    def percentiles(self) -> tuple[float | None, float | None]:
        """(p50, p95) in milliseconds, None before the first answer."""
        values = sorted(self._millis)
        if not values:
            return None, None
        return statistics.median(values), values[int(0.95 * (len(values) - 1))]


async def engine_stats(store: PaperStore, corpus: Corpus, latencies: LatencyLog) -> EngineStats:
    papers, collections = await store.counts()
    p50, p95 = latencies.percentiles()
    index = corpus.index
    return EngineStats(
        papers=papers,
        collections=collections,
        vocabulary=len(index.terms),
        postings=len(index.postings_docs),
        index_bytes=index.nbytes,
        database_bytes=await store.size_bytes(),
        questions_answered=latencies.count,
        latency_p50_ms=p50,
        latency_p95_ms=p95,
    )
