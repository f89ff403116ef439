"""A big file's ingest in bounded memory: parse -> prepare in a process pool -> spool -> store.

Papers are parsed a chunk at a time (in a worker thread), prepared in worker processes with at
most two chunks per core in flight, and their pickled results appended to a spool file. Only
when the parser has reached the end of the file and found it good does one store transaction
read the spool back, chunk by chunk: a file rejected at its end stores nothing. Peak memory is
a few chunks, whatever the size of the file.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import multiprocessing
import os
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from retrieval.errors import ListFormatError, StoreError
from retrieval.lists import ListSummary, PaperStream
from retrieval.models import ParsedPaper
from retrieval.prepare import prepare_pickled
from retrieval.spool import ChunkSpool
from retrieval.stores.protocol import FileResult, IngestStore

Progress = Callable[[str], None]
_HASH_BLOCK = 1 << 20


def take(papers: Iterator[ParsedPaper], count: int) -> list[ParsedPaper]:
    """Up to `count` next papers (fewer only at the end of the file); blocking, for a thread."""
    return list(itertools.islice(papers, count))


def file_sha256(path: Path) -> tuple[str, int]:
    """The file's sha256 and size, read in blocks (blocking, for a thread)."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as file:
        while block := file.read(_HASH_BLOCK):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def rate_line(
    origin: str, done: int, total: int, started: float, what: str, about: str = ""
) -> str:
    """'  origin: 10,000/200,000 papers analyzed, 900/s, ETA 211 s' (`about`: '~' for guesses)."""
    elapsed = max(time.perf_counter() - started, 1e-6)
    rate = done / elapsed
    eta = max(total - done, 0) / rate if rate else 0.0
    return f"  {origin}: {done:,}/{about}{total:,} papers {what}, {rate:,.0f}/s, ETA {eta:,.0f} s"


@dataclass(slots=True)
class _Meter:
    """Counts for the progress lines; the total is estimated from how far the parser has read."""

    origin: str
    size: int
    progress: Progress | None
    parsed: int = 0
    done: int = 0
    started: float = field(default_factory=time.perf_counter)

    def prepared(self, count: int, bytes_read: int) -> None:
        self.done += count
        if self.progress:
            total = max(self.parsed * self.size // max(bytes_read, 1), self.parsed)
            self.progress(rate_line(self.origin, self.done, total, self.started, "analyzed", "~"))

    def written(self, count: int) -> None:
        self.done += count
        if self.progress:
            line = rate_line(self.origin, self.done, self.parsed, self.started, "written")
            self.progress(line)


async def ingest_stream(
    store: IngestStore,
    stream: PaperStream,
    papers: Iterator[ParsedPaper],
    head: list[ParsedPaper],
    origin: str,
    *,
    chunk: int,
    progress: Progress | None = None,
) -> tuple[FileResult, ListSummary] | None:
    """Ingest the rest of `stream` (`head` already parsed from `papers`, its iterator) as one
    file; None if the store already has the file. Raises ListFormatError for a bad file (then
    nothing is stored) and StoreError when the spool cannot be written."""
    sha256, size = await asyncio.to_thread(file_sha256, stream.path)
    if await store.file_ingested(sha256):
        return None
    meter = _Meter(origin, size, progress)
    try:
        spool = ChunkSpool()
    except OSError as error:
        raise _spool_error(error) from None
    with spool:
        await _prepare_to_spool(stream, papers, head, spool, chunk, meter)
        summary = stream.summary
        if summary.sha256 != sha256:
            raise ListFormatError(
                stream.path, None, "changed while it was being read; ingest it again when complete"
            )
        meter.done, meter.started = 0, time.perf_counter()
        result = await store.add_file(
            origin=origin,
            sha256=sha256,
            collection=summary.collection,
            papers=spool.chunks(meter.written),
        )
    return result, summary


async def _prepare_to_spool(
    stream: PaperStream,
    papers: Iterator[ParsedPaper],
    head: list[ParsedPaper],
    spool: ChunkSpool,
    chunk: int,
    meter: _Meter,
) -> None:
    """Parse on, prepare every chunk in the pool and append the results to `spool` in order."""
    loop = asyncio.get_running_loop()
    workers = os.cpu_count() or 1
    pending: deque[tuple[asyncio.Future[bytes], int]] = deque()

    async def drain_one() -> None:
        future, count = pending.popleft()
        blob = await future
        try:
            await asyncio.to_thread(spool.append, blob)
        except OSError as error:
            raise _spool_error(error) from None
        meter.prepared(count, stream.bytes_read)

    # "spawn": forking a process that runs threads (the bot, asyncio's workers) is unsafe.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        try:
            batches = [head[i : i + chunk] for i in range(0, len(head), chunk)]
            meter.parsed += len(head)
            head.clear()
            while True:
                if not batches:
                    batch = await asyncio.to_thread(take, papers, chunk)
                    if not batch:
                        break
                    meter.parsed += len(batch)
                    batches.append(batch)
                batch = batches.pop(0)
                # Bounded: the parser waits for the oldest chunk rather than run ahead.
                while len(pending) >= 2 * workers:
                    await drain_one()
                pending.append((loop.run_in_executor(pool, prepare_pickled, batch), len(batch)))
            while pending:
                await drain_one()
        except BaseException:
            for future, _ in pending:
                future.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _spool_error(error: OSError) -> StoreError:
    # The caller names the file being ingested.
    folder = tempfile.gettempdir()
    reason = error.strerror or type(error).__name__
    return StoreError(
        f"cannot write the temporary file for a big ingest in {folder} ({reason}); "
        "free some space there, or set TMPDIR to a folder with room"
    )
