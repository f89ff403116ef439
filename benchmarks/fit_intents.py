"""Fit the chat intent classifier and write retrieval/conversation/intent_model.npz.

    python benchmarks/fit_intents.py [--train benchmarks/data/intents_train.jsonl]
                                     [--dev benchmarks/data/intents_dev.jsonl] [--l2 1e-4]

Training data only: the held-out set (benchmarks/data/intents_heldout.jsonl) is never read
here; `benchmarks/intent_eval.py` judges the fitted model on it. Prints the development
accuracy per intent and the softmax temperature chosen on the development set (the one that
minimises its log loss, so a probability of 0.6 means about 60 % right).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from pathlib import Path

from retrieval.conversation.classifier import INTENTS, MODEL_FILE, IntentModel, fit

DATA = Path(__file__).with_name("data")


def read(path: Path) -> tuple[list[str], list[str]]:
    texts, labels = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            texts.append(row["text"])
            labels.append(row["intent"])
    return texts, labels


def log_loss(model: IntentModel, texts: list[str], labels: list[str]) -> float:
    return -sum(
        math.log(max(model.probabilities(text)[label], 1e-12))
        for text, label in zip(texts, labels, strict=True)
    ) / len(texts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--train",
        type=Path,
        nargs="+",
        default=[DATA / "intents_train.jsonl", DATA / "intents_table.jsonl"],
        help="training files: the generated set and the former rules' table of 228 messages",
    )
    parser.add_argument("--dev", type=Path, default=DATA / "intents_dev.jsonl")
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--out", type=Path, default=MODEL_FILE)
    args = parser.parse_args()
    texts, labels = [], []
    for path in args.train:
        more_texts, more_labels = read(path)
        texts += more_texts
        labels += more_labels
    print(f"training on {len(texts)} messages: {dict(Counter(labels))}")
    started = time.perf_counter()
    model = fit(texts, labels, l2=args.l2, epochs=args.epochs)
    print(f"fitted in {time.perf_counter() - started:.1f} s, {len(model.vocabulary)} features")
    dev_texts, dev_labels = read(args.dev)
    best = min(
        (1.0, 0.5, 0.75, 1.25, 1.5, 2.0, 3.0),
        key=lambda t: log_loss(
            IntentModel(model.vocabulary, model.weights, model.bias, t), dev_texts, dev_labels
        ),
    )
    model = IntentModel(model.vocabulary, model.weights, model.bias, best)
    right: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for text, label in zip(dev_texts, dev_labels, strict=True):
        probabilities = model.probabilities(text)
        seen[label] += 1
        right[label] += max(probabilities, key=probabilities.__getitem__) == label
    print(f"temperature {best}; dev log loss {log_loss(model, dev_texts, dev_labels):.3f}")
    for intent in INTENTS:
        if seen[intent]:
            print(
                f"  dev {intent:<11} {right[intent]:>4}/{seen[intent]:<4} "
                f"{right[intent] / seen[intent]:.3f}"
            )
    print(f"dev accuracy {sum(right.values()) / max(sum(seen.values()), 1):.3f}")
    model.save(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
