"""Queries written with acronyms ("RL for LLM reasoning"): do the top 10 hold the acronym's topic?

Ground truth comes from hand-written rules in benchmarks/data/acronym_queries.jsonl, never from
the ranking: a paper is RELEVANT when its real TITLE (from the .jsonl twins; the engine ingests
the .txt abstracts only, as the product does) matches every one of the query's title patterns.
A paper COVERS the query when its title or abstract matches every concept pattern (an acronym
concept accepts either form: "\\bRL\\b|reinforcement learning").

Per ranking mode the script prints, over the top 10 of each query, precision@10 and the share
of papers covering every concept, averaged over the queries of each split. The tuning half is
for choosing; the held-out half was written at the same time and is read once, at the end.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/acronym_queries.py \
        ../shared/data/conference_abstracts
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from config.settings import Settings
from retrieval.engine import Engine

LISTS = ("iclr2024", "icml2024", "neurips2023")
QUERIES = Path(__file__).parent / "data" / "acronym_queries.jsonl"
TOP = 10


@dataclass(frozen=True, slots=True)
class Query:
    split: str
    text: str
    title: tuple[re.Pattern[str], ...]
    concepts: tuple[re.Pattern[str], ...]


@dataclass(frozen=True, slots=True)
class Scored:
    query: Query
    titles: tuple[str, ...]
    relevant: int
    covering: int


def read_queries(path: Path) -> list[Query]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [
        Query(
            row["split"],
            row["query"],
            tuple(re.compile(p, re.IGNORECASE) for p in row["title"]),
            tuple(re.compile(p, re.IGNORECASE) for p in row["concepts"]),
        )
        for row in rows
    ]


def normal(text: str) -> str:
    return " ".join(text.split())


def read_titles(data: Path) -> dict[str, str]:
    """Abstract (whitespace normalised) -> real title, over every list."""
    titles: dict[str, str] = {}
    for name in LISTS:
        with (data / f"{name}.jsonl").open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                titles.setdefault(normal(str(row.get("abstract") or "")), str(row.get("title")))
    return titles


async def score_mode(engine: Engine, queries: list[Query], titles: dict[str, str]) -> list[Scored]:
    scored: list[Scored] = []
    for query in queries:
        ranked = await engine.rank_text(query.text, depth=TOP)
        found: list[str] = []
        relevant = covering = 0
        for paper_id, _ in ranked[:TOP]:
            paper = await engine.paper(paper_id)
            abstract = normal(paper.abstract)
            title = titles.get(abstract)
            if title is None:
                raise SystemExit(f"no title for {paper_id}: {abstract[:80]!r}")
            found.append(title)
            relevant += all(p.search(title) for p in query.title)
            covering += all(p.search(title + " " + abstract) for p in query.concepts)
        scored.append(Scored(query, tuple(found), relevant, covering))
    return scored


def summary(scored: list[Scored], split: str) -> tuple[float, float]:
    rows = [row for row in scored if row.query.split == split]
    return (
        sum(row.relevant for row in rows) / (TOP * len(rows)),
        sum(row.covering for row in rows) / (TOP * len(rows)),
    )


async def run(data: Path, modes: list[str], per_query: bool) -> dict[str, object]:
    queries = read_queries(QUERIES)
    titles = read_titles(data)
    report: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            _env_file=None,
            db_path=Path(tmp) / "db.sqlite",
            seeds_dir=Path(tmp) / "none",
        )
        async with await Engine.open(settings, ingest_seeds=False) as engine:
            await engine.ingest([data / f"{name}.txt" for name in LISTS])
            print(f"{engine.corpus.index.size} papers, {len(engine.corpus.acronyms)} acronyms")
            enhanced = engine.options
            for mode in modes:
                engine.options = replace(enhanced, mode=mode)
                scored = await score_mode(engine, queries, titles)
                report[mode] = {
                    split: dict(
                        zip(("p@10", "all_concepts@10"), summary(scored, split), strict=True)
                    )
                    for split in ("tuning", "held-out")
                }
                print(f"\n== {mode}")
                for row in scored:
                    print(
                        f"{row.query.split:8} {row.relevant:2} {row.covering:2}  {row.query.text}"
                    )
                    if per_query:
                        for title in row.titles:
                            print(f"{'':16}{title[:100]}")
                for split in ("tuning", "held-out"):
                    precision, covering = summary(scored, split)
                    print(f"{mode} {split}: P@10 {precision:.3f}  all concepts@10 {covering:.3f}")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="folder with the lists' .txt and .jsonl twins")
    parser.add_argument("--modes", default="enhanced,exact", help="ranking modes, comma-separated")
    parser.add_argument("--per-query", action="store_true", help="print each query's titles")
    parser.add_argument("--json", type=Path, help="write the summary here")
    args = parser.parse_args(argv)
    report = asyncio.run(run(args.data, args.modes.split(","), args.per_query))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
