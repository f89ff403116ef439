"""The ingest pipeline: find files, parse, analyze, label, hash, store; keep derived data current.

Each file is one store transaction (all of its papers or none). CPU-bound steps run in worker
threads so a bot's event loop stays free. The caller (the engine) refreshes its corpus after.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from retrieval import text as analysis
from retrieval.errors import PaperbotError, StoreError
from retrieval.ids import content_hash
from retrieval.labels import LABELER_VERSION, derive_label, extract_urls
from retrieval.lists import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_PAPERS,
    ParsedList,
    find_paper_files,
    read_paper_bytes,
    read_paper_file,
)
from retrieval.models import IngestReport, ParsedPaper
from retrieval.stores.protocol import NewPaper, Store, StoredText

log = logging.getLogger(__name__)

Progress = Callable[[str], None]
# Files with fewer papers are analyzed in one worker thread; bigger ones in CHUNKs over all cores.
PARALLEL_FROM = 20_000
CHUNK = 5_000


@dataclass(frozen=True, slots=True)
class ListLimits:
    """How big one list file may be (PAPERBOT_MAX_LIST_FILE_BYTES, _MAX_LIST_PAPERS)."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_papers: int = DEFAULT_MAX_PAPERS


def searchable_text(title: str | None, abstract: str) -> str:
    """What is indexed for a paper: its title (when the list has one) and its abstract."""
    return f"{title}\n{abstract}" if title else abstract


def prepare_papers(papers: Sequence[ParsedPaper]) -> list[NewPaper]:
    """Analyze, label and hash parsed papers: everything the store keeps for each one."""
    prepared = []
    for paper in papers:
        urls = extract_urls(paper.abstract)
        if paper.url and paper.url not in urls:
            urls = (paper.url, *urls)
        prepared.append(
            NewPaper(
                abstract=paper.abstract,
                external_id=paper.external_id,
                label=derive_label(paper.abstract, paper.title),
                content_hash=content_hash(paper.abstract),
                terms=" ".join(analysis.analyze(searchable_text(paper.title, paper.abstract))),
                title=paper.title,
                urls=urls,
                authors=paper.authors,
                acronyms=tuple(analysis.find_acronyms(paper.abstract)),
            )
        )
    return prepared


async def ingest_paths(
    store: Store,
    paths: Sequence[Path],
    *,
    collection: str | None = None,
    progress: Progress | None = None,
    limits: ListLimits = ListLimits(),
) -> IngestReport:
    """Ingest files and folders, each file atomically; a store fault stops the run."""
    files = await asyncio.to_thread(find_paper_files, list(paths))
    report = IngestReport()
    for number, path in enumerate(files, start=1):
        if progress:
            progress(f"[{number}/{len(files)}] {path}")
        try:
            parsed = await asyncio.to_thread(
                read_paper_file,
                path,
                collection=collection,
                max_file_bytes=limits.max_file_bytes,
                max_papers=limits.max_papers,
            )
        except PaperbotError as error:
            report = report.merge(IngestReport(errors=(str(error),)))
            continue
        try:
            report = report.merge(await store_parsed(store, parsed, str(path), progress))
        except StoreError as error:
            # Disk full or read-only: later files would fail alike. Files stored before this
            # one stay, and the caller's refresh makes them searchable now.
            report = report.merge(IngestReport(errors=(f"{path}: {error}",)))
            break
        if progress and report.errors and report.errors[-1].startswith(str(path)):
            progress(report.errors[-1])
    return report


async def ingest_upload(
    store: Store,
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
    if len(papers) < PARALLEL_FROM or (os.cpu_count() or 1) < 2:
        return await asyncio.to_thread(prepare_papers, papers)
    chunks = [papers[i : i + CHUNK] for i in range(0, len(papers), CHUNK)]
    loop = asyncio.get_running_loop()
    prepared: list[NewPaper] = []
    started = time.perf_counter()
    # "spawn": forking a process that runs threads (the bot, asyncio's workers) is unsafe.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=os.cpu_count(), mp_context=context) as pool:
        futures = [loop.run_in_executor(pool, prepare_papers, chunk) for chunk in chunks]
        for future in futures:
            prepared.extend(await future)
            if progress:
                progress(_rate_line(origin, len(prepared), len(papers), started))
    return prepared


def _rate_line(origin: str, done: int, total: int, started: float) -> str:
    elapsed = max(time.perf_counter() - started, 1e-6)
    rate = done / elapsed
    eta = (total - done) / rate if rate else 0.0
    return f"  {origin}: {done:,}/{total:,} papers analyzed, {rate:,.0f}/s, ETA {eta:,.0f} s"


async def store_parsed(
    store: Store, parsed: ParsedList, origin: str, progress: Progress | None = None
) -> IngestReport:
    if await store.file_ingested(parsed.sha256):
        return IngestReport(files_skipped=1, notes=(f"{origin}: already ingested",))
    prepared = await prepare_all(parsed.papers, origin, progress)
    result = await store.add_file(
        origin=origin, sha256=parsed.sha256, collection=parsed.collection, papers=prepared
    )
    if parsed.collection_from_header and result.collection == result.slug != parsed.collection:
        # A JSONL file named the collection after itself ("icml2024"); a list header
        # ("ICML 2024 论文列表") is the better display name.
        await store.rename_collection(result.slug, parsed.collection)
    return IngestReport(
        files_read=1,
        papers_added=result.added,
        papers_skipped=result.skipped,
        collections=(parsed.collection if parsed.collection_from_header else result.collection,),
        notes=tuple(parsed.notes),
    )


async def refresh_derived(store: Store) -> None:
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
        values = await asyncio.to_thread(derive, texts)
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
