"""Time `derive_label` per abstract over JSONL lists, and judge the 70 µs ingest budget.

.venv/bin/python benchmarks/label_speed.py ../shared/data/conference_abstracts/*.jsonl
    [--rounds 5] [--dump labels.tsv]

Process CPU time (not wall time: the machine is shared), per chunk of 250 abstracts the minimum
over `--rounds` runs, summed: the minimum discards the rounds another process slowed down. The
verdict rule: MET when that figure is at most 70 µs per abstract. `--dump` writes one
`id<TAB>label` line per abstract, to compare labels before and after a change. `--prepare` also
times `prepare_papers` the same way: what ingest spends per paper (terms, label, hash, URLs,
acronyms), where the labeler finds the abstract's words already analysed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from retrieval.labels import LABELER_VERSION, derive_label
from retrieval.models import ParsedPaper
from retrieval.prepare import prepare_papers

BUDGET_US = 70.0  # issue 13: deriving labels for 100k abstracts within today's ingest budget
CHUNK = 250


def _abstracts(paths: list[Path]) -> list[tuple[str, str]]:
    records: list[tuple[str, str]] = []
    for path in paths:
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    record = json.loads(line)
                    records.append((str(record["doc_id"]), str(record["abstract"])))
    return records


def _chunk_seconds(abstracts: list[str]) -> float:
    start = time.process_time()
    for abstract in abstracts:
        derive_label(abstract)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs="+", type=Path, help="JSONL lists (doc_id, abstract)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dump", type=Path, help="write id<TAB>label lines here")
    parser.add_argument(
        "--prepare", action="store_true", help="also time prepare_papers, ingest's per-paper work"
    )
    options = parser.parse_args()
    records = _abstracts(options.paths)
    abstracts = [abstract for _, abstract in records]
    if options.dump:
        with options.dump.open("w", encoding="utf-8") as out:
            for doc_id, abstract in records:
                out.write(f"{doc_id}\t{derive_label(abstract)}\n")
    chunks = [abstracts[i : i + CHUNK] for i in range(0, len(abstracts), CHUNK)]
    total = 0.0
    for chunk in chunks:
        total += min(_chunk_seconds(chunk) for _ in range(options.rounds))
    per_abstract = total / len(abstracts) * 1e6
    verdict = "MET" if per_abstract <= BUDGET_US else "NOT MET"
    print(
        f"labeler v{LABELER_VERSION}: {len(abstracts)} abstracts, "
        f"{per_abstract:.1f} µs per abstract (CPU, min of {options.rounds} per chunk of {CHUNK})"
    )
    print(f"budget {BUDGET_US:.0f} µs per abstract: {verdict}")
    if options.prepare:
        # What ingest spends per paper: analysis, label, hash, URLs and acronyms together.
        papers = [
            ParsedPaper(abstract=abstract, external_id=doc_id, line=0)
            for doc_id, abstract in records
        ]
        batches = [papers[i : i + CHUNK] for i in range(0, len(papers), CHUNK)]
        spent = sum(
            min(_prepare_seconds(batch) for _ in range(options.rounds)) for batch in batches
        )
        print(
            f"prepare_papers (ingest's per-paper work, label included): "
            f"{spent / len(papers) * 1e6:.1f} µs per abstract"
        )


def _prepare_seconds(papers: list[ParsedPaper]) -> float:
    start = time.process_time()
    prepare_papers(papers)
    return time.process_time() - start


if __name__ == "__main__":
    main()
