"""What /stats reports: answer latencies (the last few thousand) and the corpus's figures."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Sequence

from retrieval.corpus import Corpus
from retrieval.models import EngineStats
from retrieval.stores.protocol import PaperStore


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 1]) of a non-empty sequence: always one of the values,
    and never smaller for a larger q. (Mixing definitions breaks that: a median averaging the
    two middle values exceeds a p95 picking a lower one when there are few samples.)"""
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


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
        if not self._millis:
            return None, None
        return percentile(self._millis, 0.5), percentile(self._millis, 0.95)


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
