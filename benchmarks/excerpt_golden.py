"""Record or check what answers show as excerpts for a fixed set of questions.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/excerpt_golden.py record \
        tests/retrieval/excerpts_golden.json
    PYTHONPATH=$PWD .venv/bin/python benchmarks/excerpt_golden.py check /tmp/icml.json \
        --list ../shared/data/conference_abstracts/icml2024.txt --sample 400

Without --list the corpus is the seed lists (the golden file the tests compare with). With
--list, every k-th paper of that list (--sample papers in all) is written to a temporary seeds
folder: a check against real abstracts whose record stays outside the project (evaluation data
is never copied into it). `check` prints how many questions differ and the first difference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sample_list(source: Path, count: int, folder: Path) -> Path:
    """Every k-th paragraph of a .txt paper list, `count` in all, as a list in `folder`."""
    from retrieval.lists import read_paper_file

    papers = read_paper_file(source).papers
    step = max(1, len(papers) // count)
    chosen = [paper.abstract for paper in papers[::step][:count]]
    folder.mkdir()
    path = folder / source.name
    path.write_text("Sample 2024\n\n" + "\n\n".join(chosen) + "\n", encoding="utf-8")
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("record", "check"))
    parser.add_argument("golden", type=Path)
    parser.add_argument("--list", type=Path, help="a paper list instead of the seeds")
    parser.add_argument("--sample", type=int, default=400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        seeds = ROOT / "seeds"
        if args.list is not None:
            seeds = sample_list(args.list, args.sample, Path(scratch) / "seeds")
        from tests.retrieval.excerpt_golden import run

        found = asyncio.run(run(seeds, Path(scratch) / "db" / "paperbot.db"))
    if args.mode == "record":
        text = json.dumps(found, ensure_ascii=False, indent=0, sort_keys=True)
        args.golden.write_text(text + "\n", encoding="utf-8")
        rows = sum(len(rows) for rows in found.values())
        print(f"recorded {rows} questions to {args.golden} ({len(text.encode()):,} bytes)")
        return 0
    golden = json.loads(args.golden.read_text(encoding="utf-8"))
    differ = [
        (budget, want, got)
        for budget in golden
        for want, got in zip(golden[budget], found[budget], strict=True)
        if want != got
    ]
    total = sum(len(rows) for rows in golden.values())
    print(f"{len(differ)} of {total} questions differ from {args.golden}")
    if differ:
        print(json.dumps(differ[0], ensure_ascii=False, indent=1))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
