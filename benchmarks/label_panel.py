"""The blind reader panel's verdict on labels: means and the share rated 2 or lower, per labeler.

    python benchmarks/label_panel.py [benchmarks/data/label_panel]

The sheet the readers rated is not stored (it holds the list's abstracts, which stay outside the
project); it is made again, the same, by

    paperbot eval labels --sample 40 --seed 31203 --other OLD.tsv --key key.tsv neurips2023.jsonl

where OLD.tsv holds the previous labeler's labels (doc_id<TAB>label). The key says which of A
and B was which labeler; each ratings_*.tsv is one reader's 1-5 for A and B per paper. Target
(issue 26): mean >= 4.2 and <= 5 % of labels rated 2 or lower, on a list nothing was fitted on.
"""

from __future__ import annotations

import csv
import statistics
import sys
from pathlib import Path

TARGET_MEAN = 4.2
TARGET_LOW_SHARE = 0.05


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/data/label_panel")
    with (folder / "key.tsv").open(encoding="utf-8") as handle:
        key = {row["paper"]: (row["A"], row["B"]) for row in csv.DictReader(handle, delimiter="\t")}
    ratings: dict[str, list[int]] = {}
    per_paper: dict[tuple[str, str], list[int]] = {}
    readers = sorted(folder.glob("ratings_*.tsv"))
    for sheet in readers:
        with sheet.open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                for column, labeler in zip(("A", "B"), key[row["paper"]], strict=True):
                    ratings.setdefault(labeler, []).append(int(row[column]))
                    per_paper.setdefault((row["paper"], labeler), []).append(int(row[column]))
    print(f"{len(readers)} readers, {len(key)} papers")
    for labeler, values in sorted(ratings.items()):
        low = sum(value <= 2 for value in values) / len(values)
        met = statistics.mean(values) >= TARGET_MEAN and low <= TARGET_LOW_SHARE
        print(
            f"  {labeler:6} mean {statistics.mean(values):.2f}  rated <= 2: {low:.1%}  "
            f"(target mean >= {TARGET_MEAN}, <= {TARGET_LOW_SHARE:.0%}): "
            f"{'MET' if met else 'NOT MET'}"
        )
    papers = sorted(key)
    better = sum(
        statistics.mean(per_paper[(p, "new")]) > statistics.mean(per_paper[(p, "other")])
        for p in papers
    )
    worse = sum(
        statistics.mean(per_paper[(p, "new")]) < statistics.mean(per_paper[(p, "other")])
        for p in papers
    )
    equal = len(papers) - better - worse
    print(f"  papers where new is rated higher {better}, lower {worse}, equal {equal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
