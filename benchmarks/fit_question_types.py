"""Fit the question-type classifier and write retrieval/question_types.npz.

    PYTHONPATH=$PWD python benchmarks/fit_question_types.py [--heldout FILE ...] [--out PATH]
        [--judge [--rules REVISION]]

What kind of answer a question about a paper wants (result, method, dataset, problem,
limitations, code, venue, authors, other) decides which sentences answer it, or that the list
holds no authors. The classifier is the chat's `TextClassifier` with other classes. Training data
is every typed question written blind for the project except the held-out files: the
(question, paper) pairs' questions, the question turns of the intent sessions, and the typed
questions of `question_types_train.jsonl`. The L2 strength and the softmax temperature are chosen
by 5-fold cross-validation on the training questions; the held-out files (written separately,
never read for a choice) are left out of training, and with `--judge` judged once at the end,
beside the hand-written rules the classifier replaced (`--rules REVISION`:
`retrieval/paper_answers.py` at a git revision that still had them). Prints accuracy per type
and the confusions.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from retrieval.paper_answers import QUESTION_TYPES_FILE, TYPED
from retrieval.text_classifier import TextClassifier, fit

DATA = Path(__file__).with_name("data")
# Read as held-out sets and never trained on; each is named here until it is spent. heldout15
# was written blind at stop 41, before the shipped types were fitted (on every earlier set).
HELDOUT = [
    DATA / "paper_questions_heldout15.jsonl",
    DATA / "intents_heldout15.jsonl",
]
L2S = (1e-4, 3e-4, 1e-3, 3e-3)
TEMPERATURES = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
FOLDS = 5
# The table holds the product's own conventions (the phrasings tests/retrieval/test_paper_answers.py
# checks); where a blind writer labelled alike questions otherwise, its rows outweigh theirs.
TABLE = DATA / "question_types_table.jsonl"
TABLE_WEIGHT = 3


def typed_questions(path: Path) -> list[tuple[str, str]]:
    """(question, type) rows of a pairs file, an intent-session file or a typed-question file."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        for turn in row.get("turns", [row]):
            text = turn.get("question", turn.get("text"))
            if turn.get("qtype") in TYPED and text:
                found.append((str(text), str(turn["qtype"])))
    return found


def training_files(heldout: list[Path]) -> list[Path]:
    names = ("paper_questions*.jsonl", "intents_*.jsonl", "question_types*.jsonl")
    found = {path for name in names for path in DATA.glob(name)}
    return sorted(found - {path.resolve() for path in heldout} - set(heldout))


def training_rows(files: list[Path]) -> list[tuple[str, str]]:
    """The typed questions of `files`, the table's repeated `TABLE_WEIGHT` times."""
    return [
        row
        for path in files
        for row in typed_questions(path) * (TABLE_WEIGHT if path == TABLE else 1)
    ]


def log_loss(model: TextClassifier, rows: list[tuple[str, str]]) -> float:
    return -sum(math.log(max(model.probabilities(text)[kind], 1e-12)) for text, kind in rows)


def guess(model: TextClassifier, text: str) -> str:
    probabilities = model.probabilities(text)
    return max(probabilities, key=probabilities.__getitem__)


def report(name: str, rows: list[tuple[str, str]], predict: Callable[[str], str]) -> None:
    right, total, confused = Counter[str](), Counter[str](), Counter[tuple[str, str]]()
    for text, kind in rows:
        total[kind] += 1
        said = predict(text)
        if said == kind:
            right[kind] += 1
        else:
            confused[(kind, said)] += 1
    print(f"{name}: {sum(right.values())}/{len(rows)} = {sum(right.values()) / len(rows):.3f}")
    print("  " + ", ".join(f"{kind} {right[kind]}/{total[kind]}" for kind in TYPED if total[kind]))
    worst = ", ".join(f"{a}->{b} {n}" for (a, b), n in confused.most_common(8))
    print(f"  confusions: {worst or 'none'}")


def rules_at(revision: str) -> Callable[[str], str]:
    """`question_type` as `retrieval/paper_answers.py` had it at `revision` (hand-written rules)."""
    source = subprocess.run(
        ["git", "show", f"{revision}:retrieval/paper_answers.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    folder = Path(tempfile.mkdtemp())
    (folder / "old_paper_answers.py").write_text(source)
    sys.path.insert(0, str(folder))
    import old_paper_answers  # type: ignore[import-not-found]

    def predict(text: str) -> str:
        kind = str(old_paper_answers.question_type(text).value)
        return "other" if kind == "summary" else kind

    return predict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heldout", type=Path, nargs="*", default=HELDOUT)
    parser.add_argument("--out", type=Path, default=QUESTION_TYPES_FILE)
    parser.add_argument(
        "--judge",
        action="store_true",
        help="judge the held-out files (once, at the end of a round)",
    )
    parser.add_argument("--rules", help="a git revision whose hand-written rules to compare")
    parser.add_argument(
        "--l2s", type=float, nargs="+", default=L2S, help="the L2 strengths cross-validated"
    )
    args = parser.parse_args()
    files = training_files(args.heldout)
    rows = training_rows(files)
    print(f"training: {len(rows)} typed questions from {len(files)} files")
    print("  " + ", ".join(f"{k} {n}" for k, n in Counter(k for _, k in rows).most_common()))
    # Folds by text, so a repeated row (the table's) is never on both sides of a split.
    texts = sorted({text for text, _ in rows})
    random.Random(2026).shuffle(texts)
    fold_of = {text: number % FOLDS for number, text in enumerate(texts)}
    folds = [[row for row in rows if fold_of[row[0]] == number] for number in range(FOLDS)]
    best: tuple[float, float, float] | None = None
    for l2 in args.l2s:
        fitted = []
        for number in range(FOLDS):
            train = [row for other, fold in enumerate(folds) if other != number for row in fold]
            fitted.append(fit([t for t, _ in train], [k for _, k in train], TYPED, l2=l2))
        for temperature in TEMPERATURES:
            models = [replace(model, temperature=temperature) for model in fitted]
            loss = sum(log_loss(m, fold) for m, fold in zip(models, folds, strict=True))
            right = sum(
                guess(m, text) == kind
                for m, fold in zip(models, folds, strict=True)
                for text, kind in fold
            )
            if temperature == 1.0:
                print(f"  l2 {l2:g}: cross-validated accuracy {right / len(rows):.3f}")
            if best is None or loss < best[0]:
                best = (loss, l2, temperature)
    assert best is not None
    _, l2, temperature = best
    print(f"chosen: l2 {l2:g}, temperature {temperature} (lowest cross-validated log loss)")
    model = replace(
        fit([t for t, _ in rows], [k for _, k in rows], TYPED, l2=l2), temperature=temperature
    )
    model.save(args.out)
    print(f"wrote {args.out} ({len(model.vocabulary)} features)")
    for path in args.heldout if args.judge else ():
        if not path.exists():
            print(f"{path.name}: missing, not judged")
            continue
        held = typed_questions(path)
        report(f"held out {path.name}, fitted", held, lambda text: guess(model, text))
        if args.rules:
            report(f"held out {path.name}, rules at {args.rules}", held, rules_at(args.rules))
    return 0


if __name__ == "__main__":
    sys.exit(main())
