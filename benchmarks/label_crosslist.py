"""Key-phrase labels on the tuning lists, each list's lexicon learned on the other list only.

.venv/bin/python benchmarks/label_crosslist.py \
    ../shared/data/conference_abstracts/icml2024.jsonl \
    ../shared/data/conference_abstracts/iclr2024.jsonl

The shipped lexicon (`retrieval/labels/title_words.json`) is learned on both tuning lists, so
`paperbot eval labels` on them is in-sample. This script builds a lexicon from list A only,
measures the labels of list B with it (and the other way round), and prints both measures of
`retrieval.label_eval` with 4 decimals. It is the loop the seventh tuning round used; it never
reads a held-out list unless one is given.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from label_lexicon import build, records  # a sibling script: benchmarks/ is on sys.path

from retrieval.label_eval import evaluate_labels
from retrieval.labels import title_words


def _measure(train: Path, test: Path, folder: Path) -> str:
    lexicon = folder / f"{train.stem}.json"
    lexicon.write_text(json.dumps(build(records([train]))), encoding="utf-8")
    title_words.LEXICON_PATH = lexicon  # the one seam: the labeler reads the lexicon from here
    title_words.title_words.cache_clear()
    report = evaluate_labels(test.name, records([test]))
    return (
        f"lexicon from {train.name} -> {test.name}: named {report.named_rate:.4f} "
        f"({report.named_hits}/{report.named}) recall {report.recall:.4f} "
        f"(baseline {report.baseline_recall:.4f}) punct {report.starts_with_punctuation}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("first", type=Path, help="a JSONL list with real titles")
    parser.add_argument("second", type=Path, help="another one")
    options = parser.parse_args()
    shipped = title_words.LEXICON_PATH
    try:
        with tempfile.TemporaryDirectory() as folder:
            print(_measure(options.first, options.second, Path(folder)))
            print(_measure(options.second, options.first, Path(folder)))
    finally:
        title_words.LEXICON_PATH = shipped
        title_words.title_words.cache_clear()


if __name__ == "__main__":
    main()
