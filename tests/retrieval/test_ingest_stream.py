"""Big files through the streaming ingest (parse -> process pool -> spool -> one transaction).

PARALLEL_FROM and CHUNK are made tiny so a dozen papers take the big-file path: the result must
be what the in-memory path stores, a file rejected at (or near) its end must store nothing and
leave no spool file, and a file already ingested is skipped before anything is prepared.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from retrieval import ingest, ingest_stream
from retrieval.ingest import ListLimits, ingest_paths
from retrieval.models import IngestReport
from retrieval.spool import ChunkSpool
from retrieval.stores.sqlite import SqliteStore

ABSTRACTS = [
    f"We study {topic} with Mixture of Experts (MoE) routing and report gains on benchmark {n}."
    for n, topic in enumerate(
        ["sparse models", "retrieval", "graphs", "vision", "speech", "robotics", "proteins"]
    )
]


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def big_file(tmp_path: Path) -> Path:
    """Ten records: the third abstract repeats at lines 4 and 9 (other chunks when CHUNK = 3)."""
    order = [0, 1, 2, 3, 4, 5, 6, 2, 2, 1]
    records = [
        {"id": f"r{line}", "title": f"Title {n}" if n % 2 else None, "abstract": ABSTRACTS[n]}
        for line, n in enumerate(order, start=1)
    ]
    return write_jsonl(tmp_path / "big.jsonl", records)


class SpoolSpy:
    """Records every spool the streaming path opens (their paths, to check they are gone)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[Path] = []
        spy = self

        class Recorded(ChunkSpool):
            def __init__(self, folder: Path | None = None) -> None:
                super().__init__(folder)
                spy.paths.append(self.path)

        monkeypatch.setattr(ingest_stream, "ChunkSpool", Recorded)


@pytest.fixture
def spool_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "spool"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def leftovers(folder: Path) -> list[Path]:
    return list(folder.iterdir())


async def stored(store: SqliteStore) -> list[Any]:
    rows = await store.index_rows()
    papers = await store.papers_by_key([row.key for row in rows])
    return [
        [(row.key, row.paper_id, row.slugs, row.terms) for row in rows],
        [
            (p.id, p.position, p.external_id, p.label, p.title, p.urls, p.content_hash)
            for p in papers
        ],
        await store.acronym_table(),
        await store.collections(),
    ]


async def run(db: Path, files: list[Path], **kwargs: Any) -> tuple[IngestReport, list[Any]]:
    async with await SqliteStore.open(db) as store:
        report = await ingest_paths(store, files, **kwargs)
        return report, await stored(store)


async def test_a_big_file_streams_to_what_the_in_memory_path_stores(
    tmp_path: Path, spool_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = big_file(tmp_path)
    whole_report, whole = await run(tmp_path / "whole.db", [source])

    monkeypatch.setattr(ingest, "PARALLEL_FROM", 4)
    monkeypatch.setattr(ingest, "CHUNK", 3)
    spy = SpoolSpy(monkeypatch)
    lines: list[str] = []
    report, streamed = await run(tmp_path / "streamed.db", [source], progress=lines.append)

    assert len(spy.paths) == 1  # it did take the streaming path
    assert streamed == whole
    assert report == whole_report
    assert (report.papers_added, report.papers_skipped, report.files_read) == (7, 3, 1)
    assert [row[1] for row in streamed[0]] == [f"big-{n}" for n in range(1, 8)]
    analyzed = [line for line in lines if "papers analyzed" in line]
    written = [line for line in lines if "papers written" in line]
    assert len(analyzed) == 4  # chunks of 3: 3 + 1 (the head of 4), then 3 + 3
    assert analyzed[-1].startswith(f"  {source}: 10/~10 papers analyzed, ")
    assert written[-1].startswith(f"  {source}: 10/10 papers written, ")
    assert all("/s, ETA " in line for line in analyzed + written)
    assert leftovers(spool_dir) == []


@pytest.mark.parametrize(
    ("extra_lines", "limits", "problem"),
    [
        # Eleven bad lines after the ten papers: more than half the file is not papers, which
        # only the end of the file can tell.
        pytest.param(
            ["not json"] * 11, ListLimits(), "11 of 21 lines are not paper records", id="at-the-end"
        ),
        pytest.param([], ListLimits(max_papers=8), "more than 8 abstracts", id="over-the-limit"),
    ],
)
async def test_a_file_rejected_late_stores_nothing_and_leaves_no_spool(
    tmp_path: Path,
    spool_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    extra_lines: list[str],
    limits: ListLimits,
    problem: str,
) -> None:
    source = big_file(tmp_path)
    with source.open("a", encoding="utf-8") as file:
        file.write("".join(f"{line}\n" for line in extra_lines))
    monkeypatch.setattr(ingest, "PARALLEL_FROM", 4)
    monkeypatch.setattr(ingest, "CHUNK", 2)
    spy = SpoolSpy(monkeypatch)

    report, state = await run(tmp_path / "p.db", [source], limits=limits)

    assert len(spy.paths) == 1
    assert report.files_read == 0 and report.papers_added == 0
    assert len(report.errors) == 1
    assert report.errors[0].startswith(str(source)) and problem in report.errors[0]
    assert state == [[], [], [], []]
    assert leftovers(spool_dir) == []


async def test_an_ingested_big_file_is_skipped_before_anything_is_prepared(
    tmp_path: Path, spool_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = big_file(tmp_path)
    monkeypatch.setattr(ingest, "PARALLEL_FROM", 4)
    monkeypatch.setattr(ingest, "CHUNK", 3)
    db = tmp_path / "p.db"
    first, before = await run(db, [source])
    assert first.papers_added == 7

    spy = SpoolSpy(monkeypatch)
    again, after = await run(db, [source])

    assert spy.paths == []
    assert (again.files_skipped, again.files_read, again.papers_added) == (1, 0, 0)
    assert again.notes == (f"{source}: already ingested",)
    assert after == before


async def test_a_labeler_upgrade_re_derives_every_label_on_all_cores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Labels written by an older labeler, then an engine opens the store: a big store takes
    # the process pool, in chunks, and ends with the labels one thread would give.
    source = big_file(tmp_path)
    async with await SqliteStore.open(tmp_path / "upgrade.db") as store:
        await ingest_paths(store, [source])
        texts = await store.stored_texts()
        keys = [text.key for text in texts]
        await store.replace_derived("labeler", "0", labels=[(key, "stale") for key in keys])
        monkeypatch.setattr(ingest, "PARALLEL_FROM", 4)
        monkeypatch.setattr(ingest, "CHUNK", 3)
        pools: list[int] = []

        class CountedPool(ingest.ProcessPoolExecutor):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                pools.append(1)
                super().__init__(*args, **kwargs)

        monkeypatch.setattr(ingest, "ProcessPoolExecutor", CountedPool)
        analyzer_stale = await store.derived_version("analyzer") != str(
            ingest.analysis.ANALYZER_VERSION
        )
        await ingest.refresh_derived(store)
        # The labels on all cores, and the terms too when their version was not recorded yet.
        assert len(pools) == 1 + analyzer_stale
        labels = [label for _, label in await store.paper_labels()]  # by rowid
        assert await store.derived_version("labeler") == str(ingest.LABELER_VERSION)
    by_key = sorted(ingest._labels(texts))
    assert labels == [label for _, label in by_key]
    assert len(labels) == 7
    assert "stale" not in labels
