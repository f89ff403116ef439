"""The ingest pipeline: find files, parse, analyze, label, hash, store; keep derived data current.

Each file is one store transaction (all of its papers or none). CPU-bound steps run in worker
threads or processes so a bot's event loop stays free; a big file streams in bounded memory
(ingest_stream.py). The caller (the engine) refreshes its corpus after.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from retrieval import text as analysis
from retrieval.errors import PaperbotError, StoreError
from retrieval.ingest_stream import Progress as Progress  # the engine's progress type
from retrieval.ingest_stream import ingest_stream, rate_line, take
from retrieval.labels import LABELER_VERSION, derive_label
from retrieval.lists import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_PAPERS,
    ListSummary,
    ParsedList,
    find_paper_files,
    read_paper_bytes,
    stream_paper_file,
)
from retrieval.models import IngestReport, ParsedPaper
from retrieval.prepare import prepare_papers, searchable_text
from retrieval.stores.protocol import FileResult, IngestStore, NewPaper, StoredText

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")
# Files with fewer papers are parsed whole and analyzed in one worker thread; bigger ones
# stream through CHUNKs over all cores and a spool file (ingest_stream.py). Stores with fewer
# papers re-derive their terms and labels in one thread too.
PARALLEL_FROM = 20_000
CHUNK = 5_000


@dataclass(frozen=True, slots=True)
class ListLimits:
    """How big one list file may be (PAPERBOT_MAX_LIST_FILE_BYTES, _MAX_LIST_PAPERS)."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_papers: int = DEFAULT_MAX_PAPERS


async def ingest_paths(
    store: IngestStore,
    paths: Sequence[Path],
    *,
    collection: str | None = None,
    progress: Progress | None = None,
    limits: ListLimits = ListLimits(),
) -> IngestReport:
    """Ingest files and folders, each file atomically; a store fault stops the run."""
    others: list[Path] = []
    files = await asyncio.to_thread(find_paper_files, list(paths), others)
    # A folder's other files are not paper lists: said, not read (the first few by name).
    notes = [f"{other}: skipped, not a .txt or .jsonl paper list" for other in others[:5]]
    if len(others) > 5:
        notes.append(f"and {len(others) - 5} more files that are not paper lists, skipped")
    report = IngestReport(notes=tuple(notes))
    for number, path in enumerate(files, start=1):
        if progress:
            progress(f"[{number}/{len(files)}] {path}")
        try:
            report = report.merge(await ingest_file(store, path, collection, limits, progress))
        except StoreError as error:
            # Disk full or read-only: later files would fail alike. Files stored before this
            # one stay, and the caller's refresh makes them searchable now.
            report = report.merge(IngestReport(errors=(f"{path}: {error}",)))
            break
        except PaperbotError as error:
            report = report.merge(IngestReport(errors=(str(error),)))
            continue
        if progress and report.errors and report.errors[-1].startswith(str(path)):
            progress(report.errors[-1])
    return report


async def ingest_file(
    store: IngestStore,
    path: Path,
    collection: str | None,
    limits: ListLimits,
    progress: Progress | None = None,
) -> IngestReport:
    """One file, atomically. Files of fewer than PARALLEL_FROM papers are parsed whole and
    prepared in a thread; bigger ones stream through the process pool and a spool file
    (`ingest_stream`), so memory stays bounded however big the file. Raises ListFormatError
    for a bad file and StoreError for a store fault."""
    stream = stream_paper_file(
        path,
        collection=collection,
        max_file_bytes=limits.max_file_bytes,
        max_papers=limits.max_papers,
    )
    papers = iter(stream)
    try:
        head = await asyncio.to_thread(take, papers, PARALLEL_FROM)
        if len(head) < PARALLEL_FROM:  # the parser reached the end: a small file
            parsed = stream.summary.with_papers(path, head)
            return await store_parsed(store, parsed, str(path), progress)
        found = await ingest_stream(
            store, stream, papers, head, str(path), chunk=CHUNK, progress=progress
        )
    finally:
        # After a cancel the parser may still run in its thread; it then closes the file itself.
        with suppress(ValueError):
            stream.close()
    if found is None:
        return IngestReport(files_skipped=1, notes=(f"{path}: already ingested",))
    result, summary = found
    return await _report(store, result, summary, str(path))


async def ingest_upload(
    store: IngestStore,
    name: str,
    data: bytes,
    *,
    collection: str | None = None,
    limits: ListLimits = ListLimits(),
) -> IngestReport:
    """Ingest an uploaded list; raises ListFormatError (with file and line) if it is bad."""
    parsed = await asyncio.to_thread(
        read_paper_bytes,
        name,
        data,
        collection=collection,
        max_file_bytes=limits.max_file_bytes,
        max_papers=limits.max_papers,
    )
    return await store_parsed(store, parsed, f"upload:{name}")


async def prepare_all(
    papers: Sequence[ParsedPaper], origin: str, progress: Progress | None = None
) -> list[NewPaper]:
    """`prepare_papers` over all cores for big files (in chunks, with papers/s and an ETA on
    `progress`); in a worker thread for small ones, where starting processes costs more."""
    started = time.perf_counter()

    def report(done: int) -> None:
        if progress:
            progress(rate_line(origin, done, len(papers), started, "analyzed"))

    return await _on_all_cores(prepare_papers, papers, report)


async def _on_all_cores(
    function: Callable[[Sequence[T]], list[R]],
    items: Sequence[T],
    report: Callable[[int], None] | None = None,
) -> list[R]:
    """`function(items)`, in chunks over a process pool when there are many items (and cores);
    in a worker thread otherwise. `report` hears how many items are done after each chunk."""
    if len(items) < PARALLEL_FROM or (os.cpu_count() or 1) < 2:
        return await asyncio.to_thread(function, items)
    chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]
    loop = asyncio.get_running_loop()
    done: list[R] = []
    # "spawn": forking a process that runs threads (the bot, asyncio's workers) is unsafe.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=os.cpu_count(), mp_context=context) as pool:
        futures = [loop.run_in_executor(pool, function, chunk) for chunk in chunks]
        for future in futures:
            done.extend(await future)
            if report:
                report(len(done))
    return done


async def store_parsed(
    store: IngestStore, parsed: ParsedList, origin: str, progress: Progress | None = None
) -> IngestReport:
    if await store.file_ingested(parsed.sha256):
        return IngestReport(files_skipped=1, notes=(f"{origin}: already ingested",))
    prepared = await prepare_all(parsed.papers, origin, progress)
    result = await store.add_file(
        origin=origin, sha256=parsed.sha256, collection=parsed.collection, papers=prepared
    )
    return await _report(store, result, parsed, origin)


async def _report(
    store: IngestStore, result: FileResult, parsed: ParsedList | ListSummary, origin: str
) -> IngestReport:
    if parsed.collection_from_header and result.collection == result.slug != parsed.collection:
        # A JSONL file named the collection after itself ("icml2024"); a list header
        # ("ICML 2024 论文列表") is the better display name.
        await store.rename_collection(result.slug, parsed.collection)
    return IngestReport(
        files_read=1,
        papers_added=result.added,
        papers_skipped=result.skipped,
        collections=(parsed.collection if parsed.collection_from_header else result.collection,),
        notes=tuple(parsed.notes) + unapplied_note(origin, result),
    )


def unapplied_note(origin: str, result: FileResult) -> tuple[str, ...]:
    """One line when the file's titles or authors were not stored: a paper already known
    (the same abstract, say from the conference's .txt list) keeps what it was stored with."""
    if not result.unapplied:
        return ()
    known = f"{result.skipped:,} paper{'' if result.skipped == 1 else 's'}"
    return (
        f"{origin}: {known} already known; the titles and authors this file gives for "
        f"{result.unapplied:,} of them were not applied (a stored paper keeps the text it "
        "was first ingested with). To have them, ingest this file into a new database "
        "(PAPERBOT_DB_PATH) before any .txt list of the same papers.",
    )


async def refresh_derived(store: IngestStore) -> None:
    """Re-derive stored terms and labels once when the analyzer or the labeler changed.

    Ids never change; only what was computed from the text at ingest is recomputed.
    """
    for name, version, derive in (
        ("analyzer", str(analysis.ANALYZER_VERSION), _terms),
        ("labeler", str(LABELER_VERSION), _labels),
    ):
        stored = await store.derived_version(name)
        if stored == version:
            continue
        texts = await store.stored_texts()
        if texts:
            log.info(
                "%s changed (%s -> %s): re-deriving %d papers", name, stored, version, len(texts)
            )
        # On all cores for a big store: key-phrase labels cost ~0.3 ms of CPU a paper.
        values = await _on_all_cores(derive, texts)
        if name == "analyzer":
            await store.replace_derived(name, version, terms=values)
        else:
            await store.replace_derived(name, version, labels=values)


def _terms(texts: Sequence[StoredText]) -> list[tuple[int, str]]:
    return [
        (text.key, " ".join(analysis.analyze(searchable_text(text.title, text.abstract))))
        for text in texts
    ]


def _labels(texts: Sequence[StoredText]) -> list[tuple[int, str]]:
    return [(text.key, derive_label(text.abstract, text.title)) for text in texts]
