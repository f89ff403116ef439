"""`paperbot export saved|papers` and `paperbot watch add|list|remove` through `main()`."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
from pathlib import Path

import bibtexparser

from config.settings import Settings
from retrieval.engine import Engine
from tests.bot.test_cli import run_here
from tests.conftest import SEEDS


async def save_two(tmp_path: Path) -> None:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        db_path=tmp_path / "cli.db",
        seeds_dir=SEEDS,
    )
    async with await Engine.open(settings) as engine:
        await engine.save_paper(77, "icml2026-13")
        await engine.save_paper(77, "icml2026-6")


def test_export_saved_bibtex_parses(tmp_path: Path) -> None:
    asyncio.run(save_two(tmp_path))
    result = run_here(tmp_path, "export", "saved", "77", "--format", "bibtex")
    assert result.returncode == 0, result.stderr
    entries = bibtexparser.loads(result.stdout).entries
    assert [entry["ID"] for entry in entries] == ["paperbot:icml2026-13", "paperbot:icml2026-6"]
    assert all(entry["howpublished"] == "ICML 2026" for entry in entries)
    assert "2 paper(s) exported" in result.stderr


def test_export_saved_csv_to_a_file(tmp_path: Path) -> None:
    asyncio.run(save_two(tmp_path))
    out = tmp_path / "list.csv"
    result = run_here(tmp_path, "export", "saved", "77", "--format", "csv", "-o", str(out))
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [row["id"] for row in rows] == ["icml2026-13", "icml2026-6"]


def test_export_of_an_empty_reading_list_says_so_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "reading-list.bib"
    result = run_here(tmp_path, "export", "saved", "123456789012345678", "-o", str(out))
    assert result.returncode == 1
    assert result.stderr.startswith("paperbot: user 123456789012345678 has no saved papers;")
    assert result.stdout == "" and not out.exists()


def test_export_papers_of_a_collection_as_jsonl(tmp_path: Path) -> None:
    result = run_here(tmp_path, "export", "papers", "--collection", "icml2026", "--format", "jsonl")
    assert result.returncode == 0, result.stderr
    records = [json.loads(row) for row in result.stdout.splitlines()]
    assert len(records) == 38 and records[0]["id"] == "icml2026-1"
    assert all(record["collection"] == "ICML 2026" for record in records)


def test_export_papers_of_a_venue_named_as_chat_names_it(tmp_path: Path) -> None:
    # "icml" without a year, as chat and search accept it: every loaded ICML (the seeds' one).
    result = run_here(tmp_path, "export", "papers", "--collection", "icml", "--format", "jsonl")
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 38


def test_export_papers_as_plain_text_as_the_readme_lists_it(tmp_path: Path) -> None:
    result = run_here(tmp_path, "export", "papers", "--collection", "icml2026", "--format", "txt")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("id: icml2026-") == 38


def test_export_papers_of_an_unknown_collection_is_one_line(tmp_path: Path) -> None:
    result = run_here(tmp_path, "export", "papers", "--collection", "nips1999", "--format", "csv")
    assert result.returncode == 1
    assert result.stderr.startswith("paperbot: No collection is called “nips1999”")
    assert "Traceback" not in result.stderr


def test_watch_add_list_ingest_prints_matches_once_then_remove(tmp_path: Path) -> None:
    from tests.conftest import write_list
    from tests.retrieval.test_watches import MOE, UNRELATED

    added = run_here(tmp_path, "watch", "add", "mixture", "of", "experts", "routing")
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith("watch 1: mixture of experts routing")
    listed = run_here(tmp_path, "watch", "list")
    assert listed.stdout == "   1  mixture of experts routing  (not fired yet)\n"
    new = write_list(tmp_path / "new.txt", [UNRELATED, MOE])
    ingested = run_here(tmp_path, "ingest", str(new))
    assert ingested.returncode == 0, ingested.stderr
    lines = ingested.stdout.splitlines()
    start = lines.index("watch 1 (mixture of experts routing): new matching papers")
    assert lines[start + 1].split()[0] == "fixture2026-2"
    assert "fixture2026-1" not in ingested.stdout
    again = run_here(tmp_path, "ingest", str(new))
    assert "new matching papers" not in again.stdout
    fired = run_here(tmp_path, "watch", "list").stdout
    assert re.fullmatch(
        r"   1  mixture of experts routing  \(last fired \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\n", fired
    ), fired
    assert run_here(tmp_path, "watch", "remove", "1").stdout.strip() == "watch 1 removed"
    missing = run_here(tmp_path, "watch", "remove", "1")
    assert missing.returncode == 1 and missing.stderr.strip() == (
        "paperbot: no watch 1; see paperbot watch list"
    )
