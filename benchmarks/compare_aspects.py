"""Compare's three rows judged on the question pairs: does each row show an answering sentence?

    PYTHONPATH=$PWD python benchmarks/compare_aspects.py [--pairs FILE ...]
        [--database /tmp/paperbot-intent-eval.db]

A comparison shows, per paper, what it proposes, what it is evaluated on and its result
(`retrieval.paper_answers.aspects`). The question pairs (benchmarks/data/paper_questions*.jsonl,
by default the training and development files, never the held-out one) already mark which
sentences answer a method, data-set or result question about a paper, so each such pair judges
the matching row: "Proposes" for method, "Evaluated on" for dataset, "Result" for result. A row
is right when it shows a gold sentence (as `paper_question_eval.covers` counts one), or, where
the abstract does not say, when it is empty. Prints the rate per row and in all; no target (the
issue asks for a compare that compares, without a number), so it is a before/after measure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from pathlib import Path

from benchmarks.fit_paper_answers import PAIRS, load_papers
from benchmarks.paper_question_eval import covers
from retrieval.paper_answers import aspects

ROWS = {"method": "proposes", "dataset": "evaluated_on", "result": "result"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, nargs="+", default=PAIRS)
    parser.add_argument("--database", type=Path, default=Path("/tmp/paperbot-intent-eval.db"))
    args = parser.parse_args()
    rows = [
        json.loads(line)
        for path in args.pairs
        for line in path.read_text().splitlines()
        if line.strip() and json.loads(line)["qtype"] in ROWS
    ]
    papers = asyncio.run(load_papers(args.database, {str(row["paper"]) for row in rows}))
    right: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for row in rows:
        found = getattr(aspects(papers[row["paper"]][0]), ROWS[row["qtype"]])
        shown = "" if found is None else "".join(span.text for span in found.spans)
        seen[row["qtype"]] += 1
        if row["not_stated"]:
            right[row["qtype"]] += found is None
        else:
            right[row["qtype"]] += bool(shown) and any(
                covers(shown, g) for g in row["gold_sentences"]
            )
    for kind, row_name in ROWS.items():
        print(f"  {row_name:<13} {right[kind]:>4}/{seen[kind]:<4} {right[kind] / seen[kind]:.3f}")
    total = sum(right.values())
    print(f"all rows: {total}/{sum(seen.values())} = {total / sum(seen.values()):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
