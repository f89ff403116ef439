"""Retrieval quality: BEIR-format data sets and known-item search over paper lists.

Both modes ingest into a temporary database with no seed papers, through the real engine, so the
numbers are those of the analyzer, index and ranking users get (with the given settings):

- BEIR: `corpus.jsonl` ({"_id", "title", "text"}; the engine indexes title + text, as the BEIR
  anchors do), `queries.jsonl` ({"_id", "text"}) and `qrels/<split>.tsv` (header, then
  query-id, corpus-id, score). Every query of the split that has a relevant document is run;
  document ids are the papers' external ids.
- Known-item: a paper list with titles (JSONL). Titles are removed before ingest, so only
  abstracts are indexed; each title is a query and its one relevant document is its own paper.

Queries go through `Engine.rank_text`: free text, no query operators (a claim's "-" or quotes
are words), ranked to depth 100. Metrics are in `retrieval.metrics` (trec_eval conventions).
"""

from __future__ import annotations

import csv
import json
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from retrieval.engine import Engine
from retrieval.errors import EvaluationError, PaperbotError
from retrieval.lists import read_paper_file
from retrieval.metrics import (
    BEIR_MEASURES,
    KNOWN_ITEM_MEASURES,
    Measure,
    Qrels,
    evaluate,
    mean_scores,
)
from retrieval.parameters import Settings
from retrieval.query_files import read_query_file

DEPTH = 100

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class EvalReport:
    """The mean scores of one data set (one split, or one known-item list) and how they came."""

    name: str
    mode: str
    ranking: str
    k1: float
    b: float
    documents: int
    queries: int
    metrics: dict[str, float]
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)
    ingest_seconds: float = 0.0
    query_ms: float = 0.0
    notes: tuple[str, ...] = ()

    def to_json(self, *, per_query: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "mode": self.mode,
            "ranking": self.ranking,
            "k1": self.k1,
            "b": self.b,
            "documents": self.documents,
            "queries": self.queries,
            "metrics": {name: round(value, 4) for name, value in self.metrics.items()},
            "ingest_seconds": round(self.ingest_seconds, 2),
            "query_ms_mean": round(self.query_ms, 3),
            "notes": list(self.notes),
        }
        if per_query:
            data["per_query"] = {
                query_id: {name: round(value, 4) for name, value in scores.items()}
                for query_id, scores in self.per_query.items()
            }
        return data


def with_ranking(
    settings: Settings,
    ranking: str | None = None,
    k1: float | None = None,
    b: float | None = None,
) -> Settings:
    """`settings` with other ranking parameters, validated; raises EvaluationError if invalid."""
    updates: dict[str, Any] = {
        key: value
        for key, value in (("ranking", ranking), ("bm25_k1", k1), ("bm25_b", b))
        if value is not None
    }
    if not updates:
        return settings
    try:
        return Settings.model_validate({**settings.model_dump(), **updates})
    except ValidationError as error:
        first = error.errors()[0]
        name = ".".join(str(part) for part in first["loc"])
        raise EvaluationError(f"{name}: {first['msg']} (got {first.get('input')!r})") from None


@asynccontextmanager
async def temporary_engine(settings: Settings) -> AsyncIterator[Engine]:
    """An engine over a new database in a temporary folder, without seed papers."""
    with tempfile.TemporaryDirectory(prefix="paperbot-eval-") as folder:
        root = Path(folder)
        seeds = root / "seeds"
        seeds.mkdir()
        isolated = settings.model_copy(update={"db_path": root / "eval.db", "seeds_dir": seeds})
        engine = await Engine.open(isolated, ingest_seeds=False)
        try:
            yield engine
        finally:
            await engine.close()


# -- data -------------------------------------------------------------------------------------


def read_queries(path: Path) -> dict[str, str]:
    """BEIR queries.jsonl: query id -> text."""
    return dict(read_query_file(path))


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """BEIR qrels TSV (a header line, then query-id, corpus-id, score): query -> doc -> grade."""
    qrels: dict[str, dict[str, int]] = {}
    for number, line in _lines(path):
        fields = next(csv.reader([line], delimiter="\t"))
        if number == 1 and not fields[-1].lstrip("-").isdigit():
            continue  # the header
        if len(fields) < 3 or not fields[-1].lstrip("-").isdigit():
            raise EvaluationError(f"{path}:{number}: expected query-id<TAB>corpus-id<TAB>score")
        query_id, doc_id, grade = fields[0], fields[-2], int(fields[-1])
        qrels.setdefault(query_id, {})[doc_id] = grade
    return qrels


def _lines(path: Path) -> list[tuple[int, str]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise EvaluationError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise EvaluationError(f"{path}: cannot read it ({error})") from None
    return [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]


# -- running ----------------------------------------------------------------------------------


async def _external_ids(engine: Engine) -> dict[str, str]:
    """Paper id -> external id for every indexed paper."""
    return await engine.external_ids(engine.corpus.papers.paper_ids())


async def _run_queries(
    engine: Engine, queries: dict[str, str], depth: int
) -> tuple[dict[str, list[str]], float]:
    """Ranked external ids per query, and the mean time per query in milliseconds."""
    external = await _external_ids(engine)
    run: dict[str, list[str]] = {}
    started = time.perf_counter()
    for query_id, text in queries.items():
        ranked = await engine.rank_text(text, depth=depth)
        run[query_id] = [external[paper_id] for paper_id, _ in ranked]
    elapsed = time.perf_counter() - started
    return run, 1000 * elapsed / max(len(queries), 1)


async def _ingest(engine: Engine, path: Path, collection: str) -> tuple[float, tuple[str, ...]]:
    started = time.perf_counter()
    report = await engine.ingest([path], collection=collection)
    if report.errors:
        raise EvaluationError(report.errors[0])
    if report.papers_added == 0:
        raise EvaluationError(f"{path}: no documents were ingested")
    return time.perf_counter() - started, report.notes


def _report(
    name: str,
    mode: str,
    engine: Engine,
    run: dict[str, list[str]],
    qrels: Qrels,
    measures: Sequence[Measure],
    timing: tuple[float, float],
    notes: Sequence[str],
) -> EvalReport:
    per_query = evaluate(run, qrels, measures)
    settings = engine.settings
    return EvalReport(
        name=name,
        mode=mode,
        ranking=settings.ranking,
        k1=settings.bm25_k1,
        b=settings.bm25_b,
        documents=engine.corpus.index.size,
        queries=len(per_query),
        metrics=mean_scores(per_query, measures),
        per_query=per_query,
        ingest_seconds=timing[0],
        query_ms=timing[1],
        notes=tuple(notes),
    )


async def evaluate_beir(
    directory: Path,
    settings: Settings,
    *,
    splits: Sequence[str] = ("test",),
    depth: int = DEPTH,
    measures: Sequence[Measure] = BEIR_MEASURES,
    progress: Progress | None = None,
) -> list[EvalReport]:
    """Ingest `directory`/corpus.jsonl once, then score each split's queries against its qrels."""
    corpus = directory / "corpus.jsonl"
    if not corpus.is_file():
        raise EvaluationError(f"{directory}: no corpus.jsonl; expected a BEIR data set folder")
    queries = read_queries(directory / "queries.jsonl")
    judged = {split: read_qrels(directory / "qrels" / f"{split}.tsv") for split in splits}
    reports = []
    async with temporary_engine(settings) as engine:
        if progress:
            progress(f"ingesting {corpus} ...")
        ingest_seconds, notes = await _ingest(engine, corpus, directory.name or "beir")
        for split, qrels in judged.items():
            missing = sorted(set(qrels) - set(queries))
            if missing:
                raise EvaluationError(
                    f"{directory}/qrels/{split}.tsv: query {missing[0]} is not in queries.jsonl"
                )
            if progress:
                progress(f"running {len(qrels):,} {split} queries ...")
            run, query_ms = await _run_queries(
                engine, {query_id: queries[query_id] for query_id in qrels}, depth
            )
            reports.append(
                _report(
                    f"{directory.name} {split}",
                    "beir",
                    engine,
                    run,
                    qrels,
                    measures,
                    (ingest_seconds, query_ms),
                    notes,
                )
            )
    return reports


async def evaluate_known_item(
    path: Path,
    settings: Settings,
    *,
    depth: int = DEPTH,
    measures: Sequence[Measure] = KNOWN_ITEM_MEASURES,
    progress: Progress | None = None,
) -> EvalReport:
    """Titles as queries over title-less abstracts; each title's answer is its own paper."""
    try:
        parsed = read_paper_file(path)
    except PaperbotError as error:
        raise EvaluationError(str(error)) from None
    queries = {p.external_id: p.title for p in parsed.papers if p.title and p.title.strip()}
    if not queries:
        raise EvaluationError(f"{path}: no paper has a title; known-item search needs titles")
    qrels = {external_id: {external_id: 1} for external_id in queries}
    async with temporary_engine(settings) as engine:
        stripped = engine.settings.seeds_dir.parent / f"{path.stem}.jsonl"
        with stripped.open("w", encoding="utf-8") as file:
            for paper in parsed.papers:
                record = {"id": paper.external_id, "abstract": paper.abstract}
                file.write(json.dumps(record, ensure_ascii=False) + "\n")
        if progress:
            progress(f"ingesting {path} without titles ...")
        ingest_seconds, notes = await _ingest(engine, stripped, parsed.collection)
        if progress:
            progress(f"running {len(queries):,} title queries ...")
        run, query_ms = await _run_queries(engine, queries, depth)
        return _report(
            f"{path.stem} known-item",
            "known-item",
            engine,
            run,
            qrels,
            measures,
            (ingest_seconds, query_ms),
            notes,
        )


# -- output -----------------------------------------------------------------------------------


def format_reports(reports: Sequence[EvalReport]) -> str:
    """A markdown table, one row per report; measures are the union, in first-seen order."""
    names = list(dict.fromkeys(name for report in reports for name in report.metrics))
    header = ["data", "ranking", "k1", "b", "docs", "queries", *names, "ms/query"]
    rows = [
        [
            report.name,
            report.ranking,
            f"{report.k1:g}",
            f"{report.b:g}",
            f"{report.documents:,}",
            f"{report.queries:,}",
            *(f"{report.metrics[name]:.4f}" if name in report.metrics else "" for name in names),
            f"{report.query_ms:.2f}",
        ]
        for report in reports
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    notes = [note for report in reports for note in report.notes]
    lines += [f"note: {note}" for note in dict.fromkeys(notes)]
    return "\n".join(lines)


def reports_json(reports: Sequence[EvalReport], *, per_query: bool = False) -> dict[str, Any]:
    return {"reports": [report.to_json(per_query=per_query) for report in reports]}
