"""Fit the label scorer's weights (`retrieval/labels/weights.json`) on lists with real titles.

PYTHONPATH=. .venv/bin/python benchmarks/fit_labels.py \\
    /work/shared/data/conference_abstracts/{icml2024,iclr2024}.jsonl [--out PATH]

Every time the labeler asks the scorer to choose (`scorer.best`), the candidates are recorded
with their features; the target of a candidate is its word-overlap F1 with the real title (the
stemmed index terms of `retrieval.text.analyze`). Candidates are never comma lists or cut
mid-phrase (the generators do not make them), so overlap alone cannot reward a keyword list.
The weights minimise the cross-entropy between a softmax of the scores over each choice and a
sharp softmax of the targets (temperature `--temperature`), by gradient descent in numpy, with
a small L2 penalty. Only the tuning lists go in; NeurIPS 2023 stays held out.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from retrieval.labels import derive_label, scorer
from retrieval.labels.phrases import Phrase
from retrieval.text import analyze


def f1(title: set[str], text: str) -> float:
    mine = set(analyze(text))
    both = len(title & mine)
    return 2 * both / (len(title) + len(mine)) if both else 0.0


def collect(paths: Sequence[Path]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per choice the labeler makes: feature matrix and target vector."""
    groups: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    title_terms: set[str] = set()
    original = scorer.best

    def recording(phrases: Sequence[Phrase], text: str) -> Phrase | None:
        if len(phrases) > 1:
            lowered = text.lower()
            groups.append(np.array([scorer.features(p, lowered) for p in phrases]))
            targets.append(np.array([f1(title_terms, p.text) for p in phrases]))
        return original(phrases, text)

    scorer.best = recording
    try:
        for path in paths:
            for line in path.open(encoding="utf-8"):
                record = json.loads(line)
                title_terms.clear()
                title_terms.update(analyze(record["title"]))
                derive_label(record["abstract"])
    finally:
        scorer.best = original
    return groups, targets


def fit(
    groups: list[np.ndarray], targets: list[np.ndarray], temperature: float, steps: int
) -> np.ndarray:
    keep = [i for i, t in enumerate(targets) if t.max() > 0 and t.min() < t.max()]
    x = np.concatenate([groups[i] for i in keep])
    sizes = np.array([len(groups[i]) for i in keep])
    owner = np.repeat(np.arange(len(keep)), sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    target = np.concatenate([targets[i] / temperature for i in keep])

    def softmax(values: np.ndarray) -> np.ndarray:
        top = np.maximum.reduceat(values, starts)[owner]
        exp = np.exp(values - top)
        normalised: np.ndarray = exp / np.add.reduceat(exp, starts)[owner]
        return normalised

    q = softmax(target)
    w = np.zeros(x.shape[1])
    lr, l2 = 0.5, 1e-3
    for _ in range(steps):
        p = softmax(x @ w)
        gradient = x.T @ (p - q) / len(keep) + l2 * w
        w -= lr * gradient
    return w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=scorer.WEIGHTS)
    parser.add_argument("--temperature", type=float, default=0.05)
    parser.add_argument("--steps", type=int, default=3000)
    options = parser.parse_args()
    groups, targets = collect(options.paths)
    w = fit(groups, targets, options.temperature, options.steps)
    chosen = [float(t[int(np.argmax(g @ w))]) for g, t in zip(groups, targets, strict=True)]
    best = [float(t.max()) for t in targets]
    print(
        f"{len(groups)} choices; mean F1 of the chosen {np.mean(chosen):.4f}, "
        f"oracle {np.mean(best):.4f}"
    )
    weights = {name: round(float(value), 4) for name, value in zip(scorer.FEATURES, w, strict=True)}
    options.out.write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(weights))


if __name__ == "__main__":
    main()
