"""Build `retrieval/labels/title_words.json`, the lexicon behind key-phrase labels.

.venv/bin/python benchmarks/label_lexicon.py \
    ../shared/data/conference_abstracts/{icml2024,iclr2024}.jsonl
    [--out retrieval/labels/title_words.json]

Train only on the tuning lists (ICML 2024, ICLR 2024); NeurIPS 2023 is held out for measuring.
For every stemmed word of an abstract it counts whether the paper's real title keeps it:

- a word's prior is the share of papers with the word in the abstract whose title keeps it,
  smoothed, in five buckets; counted leave-one-out (without the paper itself), so the chances
  below are those of a paper the lexicon has never seen;
- a chance per cell (count in the abstract up to 6, prior bucket, in the opening sentence, in
  the contribution sentence): the share of words in that cell that the title keeps;
- verbs: lowercase words in "-s" seen after a subject ("it learns", "which uses") at least
  `VERB_SEEN` times and in at least `VERB_SHARE` of their uses; they end a phrase;
- phrase breaks: words in at least `BREAK_SEEN` abstracts that titles keep less than
  `BREAK_RATE` of the time ("propos", "demonstr", "achiev").

Only stems seen in at least `MIN_SEEN` abstracts are stored; the rest get the unseen prior.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
from collections import Counter
from pathlib import Path

from retrieval.labels.keyphrases import phrase_text, term_features
from retrieval.labels.markup import clean
from retrieval.labels.text import unglued
from retrieval.labels.title_words import (
    LEXICON_PATH,
    MAX_COUNT,
    UNSEEN_BUCKET,
    UNSEEN_PRIOR,
    prior_bucket,
)
from retrieval.text import analyze

MIN_SEEN = 3
VERB_SEEN = 3
VERB_SHARE = 0.3
_WORDS = re.compile(r"[A-Za-z][a-z\-]{1,30}")
# Words after which a word in "-s" is the verb of a clause.
_SUBJECTS = frozenset(
    ["it", "which", "that", "this", "also", "and", "model", "method", "approach", "algorithm",
     "framework"]
)  # fmt: skip
BREAK_SEEN = 30
BREAK_RATE = 0.02


def records(paths: list[Path]) -> list[tuple[str, str]]:
    """(abstract, title) pairs of JSONL lists."""
    records = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                records.append((str(record["abstract"]), str(record["title"])))
    return records


def build(records: list[tuple[str, str]]) -> dict[str, object]:
    # The features of the text the labeler reads its key phrases from.
    papers = [
        (term_features(phrase_text(unglued(clean(abstract)))), set(analyze(clean(title))))
        for abstract, title in records
    ]
    seen: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    for (counts, _, _), title in papers:
        for term in counts:
            seen[term] += 1
            hits[term] += term in title
    cells: Counter[tuple[int, int, bool, bool]] = Counter()
    kept: Counter[tuple[int, int, bool, bool]] = Counter()
    for (counts, opening, contribution), title in papers:
        for term, count in counts.items():
            own = term in title
            bucket = prior_bucket(hits[term] - own, seen[term] - 1)
            cell = (min(count, MAX_COUNT), bucket, term in opening, term in contribution)
            cells[cell] += 1
            kept[cell] += own
    total_kept = sum(kept.values())
    total = sum(cells.values())
    return {
        "trained_on": len(records),
        "buckets": {
            term: prior_bucket(hits[term], count)
            for term, count in sorted(seen.items())
            if count >= MIN_SEEN and prior_bucket(hits[term], count) != UNSEEN_BUCKET
        },
        # Smoothed towards the overall rate, so a rare cell is not 0 or 1 by chance.
        "chances": [
            [*cell, round((kept[cell] + total_kept / total) / (cells[cell] + 1), 4)]
            for cell in sorted(cells)
        ],
        "breaks": sorted(
            term
            for term, count in seen.items()
            if count >= BREAK_SEEN and hits[term] / count < BREAK_RATE
        ),
        "verbs": _verbs([abstract for abstract, _ in records]),
        "default_chance": UNSEEN_PRIOR,
    }


def _verbs(abstracts: list[str]) -> list[str]:
    """Lowercase words in "-s" that follow a subject ("it", "which", "the model") at least
    `VERB_SEEN` times and in at least `VERB_SHARE` of their uses: "learns", "uses", "achieves"."""
    after_subject: Counter[str] = Counter()
    used: Counter[str] = Counter()
    for abstract in abstracts:
        words = _WORDS.findall(abstract)
        for before, word in itertools.pairwise(words):
            if word.islower() and word.endswith("s"):
                used[word] += 1
                after_subject[word] += before.lower() in _SUBJECTS
    return sorted(
        word
        for word, count in after_subject.items()
        if count >= VERB_SEEN and count / used[word] >= VERB_SHARE
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs="+", type=Path, help="JSONL lists with real titles")
    parser.add_argument("--out", type=Path, default=LEXICON_PATH)
    options = parser.parse_args()
    lexicon = build(records(options.paths))
    options.out.write_text(json.dumps(lexicon, ensure_ascii=False, indent=0) + "\n")
    buckets = lexicon["buckets"]
    breaks = lexicon["breaks"]
    assert isinstance(buckets, dict) and isinstance(breaks, list)
    print(
        f"{options.out}: {lexicon['trained_on']} papers, {len(buckets)} stems, "
        f"{len(breaks)} phrase breaks: {' '.join(breaks[:40])} ..."
    )


if __name__ == "__main__":
    main()
