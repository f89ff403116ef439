"""Fit retrieval/paper_answers.json, the scorer that picks an abstract's answering sentences.

    PYTHONPATH=$PWD python benchmarks/fit_paper_answers.py [--pairs FILE ...]
        [--database /tmp/paperbot-intent-eval.db] [--folds 5] [--out retrieval/paper_answers.json]

Training pairs are the (paper, question, gold sentences) rows of the given files
(benchmarks/data/paper_questions.README.md); the papers' abstracts, titles and links come from
the database `benchmarks/paper_question_eval.py` builds (run it once first). For each pair whose
question type (`question_type`, as the chat computes it) the scorer ranks, the target is a
softmax over the abstract's sentences and "the abstract does not say": the gold sentences (any
one answers), or the latter where the abstract does not say. The loss is the negative log of the
gold's total probability plus an L2 penalty.

The type blocks of the weights are mixed by the question-type classifier's probabilities
(`--types fitted`) or taken from its one type (`rule`). The L2 strength and the share of the
best sentence's probability a second sentence needs to be shown are picked by k-fold
cross-validation grouped by paper, judged end to end: each held-out pair is answered by
`answer_about` with that fold's weights and that fold's question-type classifier (fitted as
benchmarks/fit_question_types.py fits it, without the fold's questions) and counted as the eval
counts it (a shown sentence covering a gold one, or "does not say" with nothing quoted). The
chosen setting is then refitted on all pairs and written to `--out`.
"""

from __future__ import annotations

import os

# One BLAS thread: the matrices are small, and threads fighting over a shared machine's cores
# made a fit a hundred times slower.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import asyncio
import json
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from benchmarks.fit_question_types import HELDOUT, training_files, training_rows
from benchmarks.paper_question_eval import covers, unwrap_urls
from config.settings import Settings
from retrieval.engine import Engine
from retrieval.paper_answers import (
    _SCORED,
    FEATURES,
    MAY_BE_UNSAID,
    MODEL_PATH,
    NONE_FEATURES,
    TYPED,
    AboutPaper,
    AnswerModel,
    _read,
    answer_about,
    features,
    question_type,
    question_type_model,
)
from retrieval.text_classifier import TextClassifier
from retrieval.text_classifier import fit as fit_classifier

HERE = Path(__file__).parent
DATA = HERE / "data"
PAIRS = [
    DATA / f"paper_questions{tail}.jsonl"
    for tail in (
        "",
        "_dev2",
        "_dev3",
        "_heldout",
        "_heldout3",
        "_heldout4",
        "_heldout5",  # read once as the held-out set of stop 32, training data since
        "_heldout6",  # read as the held-out set of stop 36, training data since
        "_heldout7",  # read as the held-out set of stop 37's first round, training data since
        "_heldout8",  # read as held-out sets in stops 37 and 38, training data since stop 38
        "_heldout9",
        "_heldout10",
        "_heldout11",  # read as held-out sets at stop 38, training data since stop 39
        "_heldout12",
        "_heldout13",  # read as the held-out set of stop 39, training data since stop 40
        "_train8",
        "_train9",
        "_train10",
        "_train15",
        "_train16",
    )
]
L2S = (0.001, 0.003, 0.01, 0.03)
SHARES = (0.05, 0.1, 0.2, 0.3, 0.5)
STEPS = 600
TYPE_CLASSIFIER_L2 = 0.001  # as benchmarks/fit_question_types.py chose
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Pair:
    row: dict[str, object]
    abstract: str
    title: str
    urls: tuple[str, ...]
    collection: str


@dataclass(frozen=True)
class Example:
    """One pair the scorer ranks for: its type's block, features and gold positions (the last
    position, one past the sentences, is "the abstract does not say")."""

    question: str
    kind: int  # the index in _SCORED of `question_type`
    unsaid: bool  # whether "the abstract does not say" is an option
    base: Floats
    none: Floats
    gold: list[int]


async def load_papers(
    database: Path, ids: set[str]
) -> dict[str, tuple[str, str, tuple[str, ...], str]]:
    settings = Settings(db_path=database, _env_file=None)
    engine = await Engine.open(settings)
    try:
        found = {}
        for paper_id in sorted(ids):
            paper = await engine.paper(paper_id)
            found[paper_id] = (paper.abstract, paper.title or "", paper.urls, paper.collection)
        return found
    finally:
        await engine.close()


def example(pair: Pair) -> Example | None:
    question = str(pair.row["question"])
    kind = question_type(question)
    if kind not in _SCORED:
        return None
    _, texts, _ = _read(pair.abstract)
    base, none = features(question, kind, pair.abstract, pair.title)
    if pair.row["not_stated"]:
        if kind not in MAY_BE_UNSAID:
            return None
        gold = [len(texts)]
    else:
        wanted = [str(g) for g in pair.row["gold_sentences"]]  # type: ignore[attr-defined]
        gold = [i for i, text in enumerate(texts) if any(covers(text, g) for g in wanted)]
    if not gold:
        return None  # the splitter cuts the gold sentence: no sentence to learn from
    return Example(question, _SCORED.index(kind), kind in MAY_BE_UNSAID, base, none, gold)


def fit(examples: list[Example], l2: float, types: Floats) -> tuple[Floats, Floats, Floats]:
    """Weights minimising the mean negative log probability of the gold plus `l2` times their
    squared norm, by full-batch Adam over all pairs at once: each pair's rows are its
    sentences and then its "does not say" row."""
    width, kinds = len(FEATURES), len(_SCORED)
    rows = [np.vstack([e.base, np.zeros((1, width))]) for e in examples]
    x = np.vstack(rows)
    sizes = np.array([len(r) for r in rows])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    segment = np.repeat(np.arange(len(examples)), sizes)
    is_none = np.zeros(len(x))
    is_none[starts + sizes - 1] = 1.0
    z = np.zeros((len(x), len(NONE_FEATURES)))
    z[starts + sizes - 1] = np.array([e.none for e in examples])
    gold = np.zeros(len(x))
    for start, item in zip(starts, examples, strict=True):
        gold[start + np.array(item.gold)] = 1.0
    # Each row's mix of blocks: the shared one, and the pair's type probabilities.
    mix = np.hstack([np.ones((len(x), 1)), np.repeat(types, sizes, axis=0)])
    last = starts + sizes - 1
    barred = np.zeros(len(x))  # -inf, in effect, where the type always has an answer
    barred[last] = np.array([0.0 if e.unsaid else -1e9 for e in examples])
    weights = np.zeros((1 + kinds, width))
    bias = np.full(kinds, -2.0)
    none_weights = np.zeros(len(NONE_FEATURES))
    params = [weights, bias, none_weights]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    rate, beta1, beta2 = 0.05, 0.9, 0.999
    for step in range(1, STEPS + 1):
        logits = (x * (mix @ weights)).sum(axis=1)
        logits += is_none * (mix[:, 1:] @ bias + z @ none_weights) + barred
        logits -= np.maximum.reduceat(logits, starts)[segment]
        odds = np.exp(logits)
        chances = odds / np.add.reduceat(odds, starts)[segment]
        good = chances * gold
        target = good / np.add.reduceat(good, starts)[segment]
        delta = (chances - target) / len(examples)
        grads = [
            mix.T @ (x * delta[:, None]) + 2 * l2 * weights,
            # The bias loosely held: few pairs say "no answer".
            types.T @ delta[last] + 0.2 * l2 * (bias + 2.0),
            z.T @ (delta * is_none) + 2 * l2 * none_weights,
        ]
        for param, grad, moment, square in zip(params, grads, moments, squares, strict=True):
            moment *= beta1
            moment += (1 - beta1) * grad
            square *= beta2
            square += (1 - beta2) * grad**2
            step_size = rate * (moment / (1 - beta1**step))
            param -= step_size / (np.sqrt(square / (1 - beta2**step)) + 1e-8)
    return weights, bias, none_weights


def judge(pair: Pair, about: AboutPaper) -> bool:
    """As benchmarks/paper_question_eval.py counts a reply."""
    row = pair.row
    shown = [sentence.plain for sentence in about.sentences]
    statement = about.statement or ""
    if about.question_type.value == "code":
        statement = "Code: " + " ".join(pair.urls) if pair.urls else "no code"
    gold = [str(g) for g in row["gold_sentences"]]  # type: ignore[attr-defined]
    if row["not_stated"]:
        return not shown and bool(statement)
    if row["qtype"] == "code":
        urls = re.findall(r"https?://\S+?(?=[.,;)]?(?:\s|$))", unwrap_urls(gold))
        if any(url in statement for url in urls):
            return True
    return any(covers(s, g) for s in shown for g in gold)


def answered(
    pairs: list[Pair], model: AnswerModel, types: TextClassifier | None = None
) -> list[tuple[bool, str]]:
    """Whether each pair is answered, and what was shown (the question typed by `types`, unset:
    the shipped question-type classifier)."""
    found = []
    for pair in pairs:
        question = str(pair.row["question"])
        about = answer_about(
            pair.abstract,
            question,
            kind=question_type(question, types),
            collection=pair.collection,
            urls=pair.urls,
            title=pair.title,
            model=model,
        )
        shown = " | ".join(s.plain[:70] for s in about.sentences) or about.statement or ""
        found.append((judge(pair, about), shown))
    return found


def shown_count(pairs: list[Pair], model: AnswerModel) -> float:
    counts = [
        len(answer_about(p.abstract, str(p.row["question"]), title=p.title, model=model).sentences)
        for p in pairs
    ]
    return sum(counts) / len(counts)


def model_of(
    fitted: tuple[Floats, Floats, Floats], share: float, types: TextClassifier | None
) -> AnswerModel:
    weights, bias, none_weights = fitted
    return AnswerModel(weights, bias, none_weights, share, types)


def type_matrix(examples: list[Example], types: TextClassifier | None) -> Floats:
    """Each example's type probabilities: by the classifier, or one-hot on its type."""
    model = model_of((np.zeros(1), np.zeros(1), np.zeros(1)), 0.0, types)
    return np.array([model.type_probabilities(e.question, _SCORED[e.kind]) for e in examples])


def fit_on(
    examples: list[Example], l2: float, types: TextClassifier | None
) -> tuple[Floats, Floats, Floats]:
    """The sentence weights on these examples, their type blocks mixed by `types` (or not)."""
    return fit(examples, l2, type_matrix(examples, types))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, nargs="+", default=PAIRS)
    parser.add_argument("--database", type=Path, default=Path("/tmp/paperbot-intent-eval.db"))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--fold-models",
        type=Path,
        help="with --by-file, write each fold's model (first --l2s and --shares) to "
        "DIR/<pairs file>.json, for paper_question_eval.py --model",
    )
    parser.add_argument(
        "--by-file",
        action="store_true",
        help="one fold per pairs file (its papers out of training) instead of --folds by paper",
    )
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--misses", action="store_true", help="print the chosen setting's misses")
    parser.add_argument(
        "--fit",
        nargs=3,
        metavar=("TYPES", "L2", "SHARE"),
        help="skip cross-validation: fit this setting (TYPES fitted or rule) on all pairs",
    )
    parser.add_argument("--l2s", type=float, nargs="+", default=L2S)
    parser.add_argument("--shares", type=float, nargs="+", default=SHARES)
    parser.add_argument("--types", choices=("rule", "fitted", "both"), default="both")
    args = parser.parse_args()
    rows = [
        {**json.loads(line), "file": path.name}
        for path in args.pairs
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    papers = asyncio.run(load_papers(args.database, {str(row["paper"]) for row in rows}))
    pairs = [Pair(row, *papers[str(row["paper"])]) for row in rows]
    examples = [example(pair) for pair in pairs]
    print(
        f"{len(pairs)} pairs from {len(args.pairs)} files, {len(papers)} papers; "
        f"{sum(e is not None for e in examples)} ranked by the scorer",
        flush=True,
    )
    if args.fit:
        write(args.out, examples, args.fit[0] == "fitted", *map(float, args.fit[1:]))
        return 0
    type_rows = training_rows(training_files(HELDOUT))
    modes = {"rule": (False,), "fitted": (True,), "both": (False, True)}[args.types]
    ids = sorted(papers)
    random.Random(2026).shuffle(ids)
    fold_of = {paper: number % args.folds for number, paper in enumerate(ids)}
    files = sorted({str(row["file"]) for row in rows})
    folds = len(files) if args.by_file else args.folds

    def held_out(pair: Pair, fold: int) -> bool:
        if args.by_file:
            return pair.row["file"] == files[fold]
        return fold_of[str(pair.row["paper"])] == fold

    Key = tuple[bool, float, float]
    right: dict[Key, list[bool]] = {}
    said: dict[Key, list[str]] = {}
    sizes: dict[Key, list[float]] = {}
    typing = Counter[str]()
    order: list[Pair] = []  # the pairs in the order the folds judged them
    values = [kind.value for kind in _SCORED]
    for fold in range(folds):
        test = [p for p in pairs if held_out(p, fold)]
        # No paper of the held-out pairs is trained on, whichever file it is in.
        unseen = {str(p.row["paper"]) for p in test}
        train = [
            e
            for p, e in zip(pairs, examples, strict=True)
            if e and str(p.row["paper"]) not in unseen
        ]
        order.extend(test)
        # The question-type classifier of this fold: trained without its held-out questions
        # (the shipped one has read every pair's question).
        asked = {str(p.row["question"]) for p in test}
        typed_rows = [row for row in type_rows if row[0] not in asked]
        fold_types = fit_classifier(
            [t for t, _ in typed_rows], [k for _, k in typed_rows], TYPED, l2=TYPE_CLASSIFIER_L2
        )
        for fitted_types in modes:
            typed = fold_types if fitted_types else None
            for l2 in args.l2s:
                fitted = fit_on(train, l2, typed)
                if args.fold_models and args.by_file and l2 == args.l2s[0]:
                    args.fold_models.mkdir(parents=True, exist_ok=True)
                    name = files[fold].removesuffix(".jsonl") + ".json"
                    dump(args.fold_models / name, fitted, fitted_types, l2, args.shares[0])
                if typed and l2 == args.l2s[0]:
                    probe = model_of(fitted, 1.0, typed)
                    for p in test:
                        if p.row["qtype"] in values:
                            question = str(p.row["question"])
                            rule = question_type(question, fold_types)
                            guess = probe.type_probabilities(question, rule).argmax()
                            typing["rule"] += rule.value == p.row["qtype"]
                            typing["fitted"] += values[guess] == p.row["qtype"]
                            typing["all"] += 1
                for share in args.shares:
                    model = model_of(fitted, share, typed)
                    key = (fitted_types, l2, share)
                    for ok, shown in answered(test, model, fold_types):
                        right.setdefault(key, []).append(ok)
                        said.setdefault(key, []).append(shown)
                    sizes.setdefault(key, []).append(shown_count(test, model) * len(test))
        print(f"fold {fold + 1}/{folds} done", flush=True)
    print(
        f"\nquestion type of the {typing['all']} pairs of a ranked type, CV: question_type "
        f"{typing['rule'] / typing['all']:.3f}, fitted {typing['fitted'] / typing['all']:.3f}"
    )
    grouped = "by file" if args.by_file else "by paper"
    print(f"\n{folds}-fold CV {grouped}, end to end (answered / {len(pairs)}; mean shown):")
    for fitted_types in modes:
        print(f" types {'fitted' if fitted_types else 'question_type'}")
        print("  l2     " + "".join(f"share {share:<10}" for share in args.shares))
        for l2 in args.l2s:
            cells = [
                f"{sum(right[fitted_types, l2, s]) / len(pairs):.3f} "
                f"({sum(sizes[fitted_types, l2, s]) / len(pairs):.2f})    "
                for s in args.shares
            ]
            print(f"  {l2:<6} " + "".join(cells))
    # The best accuracy; of settings within one pair of it, the fewest sentences shown.
    top = max(sum(v) for v in right.values())
    best = min(
        (key for key, value in right.items() if sum(value) >= top - 1),
        key=lambda key: (sum(sizes[key]), -sum(right[key])),
    )
    fitted_types, l2, share = best
    chosen = right[best]
    print(
        f"\nchosen types={'fitted' if fitted_types else 'question_type'} l2={l2} share={share}: "
        f"CV answered {sum(chosen)}/{len(pairs)} = {sum(chosen) / len(pairs):.3f}"
    )

    def tally(field: str) -> tuple[Counter[str], Counter[str]]:
        """Pairs and pairs answered, per value of `field` (a question type, a file)."""
        pairs_of, answered = Counter[str](), Counter[str]()
        for pair, ok in zip(order, chosen, strict=True):
            pairs_of[str(pair.row[field])] += 1
            answered[str(pair.row[field])] += ok
        return pairs_of, answered

    per, hit = tally("qtype")
    for qtype in sorted(per):
        print(f"  {qtype:<12} {hit[qtype]:>3}/{per[qtype]:<3}")
    print("per file (each pair judged by the fold that did not train on its paper):")
    files, hits = tally("file")
    for name in sorted(files):
        print(f"  {name:<34} {hits[name]:>3}/{files[name]:<3} = {hits[name] / files[name]:.3f}")
    if args.misses:
        for pair, ok, shown in zip(order, chosen, said[best], strict=True):
            if not ok:
                question = str(pair.row["question"])
                print(
                    f"  {pair.row['paper']} [{pair.row['qtype']}/{question_type(question).value}]"
                    f" {question!r}\n      gold {pair.row['gold_indices']} -> {shown}"
                )
    write(args.out, examples, fitted_types, l2, share)
    return 0


def write(
    out: Path, examples: list[Example | None], fitted_types: bool, l2: float, share: float
) -> None:
    """Fit the setting on all pairs and write the weights file (types mixed by the shipped
    question-type classifier, which benchmarks/fit_question_types.py wrote)."""
    types = question_type_model() if fitted_types else None
    dump(out, fit_on([e for e in examples if e], l2, types), fitted_types, l2, share)


def dump(
    out: Path, fitted: tuple[Floats, Floats, Floats], mixed_types: bool, l2: float, share: float
) -> None:
    """Write fitted weights as `AnswerModel.load` reads them."""
    values = [kind.value for kind in _SCORED]
    weights, bias, none_weights = fitted
    out.write_text(
        json.dumps(
            {
                "features": list(FEATURES),
                "none_features": list(NONE_FEATURES),
                "types": values,
                "l2": l2,
                "second_share": share,
                "weights": np.round(weights, 4).tolist(),
                "none_bias": np.round(bias, 4).tolist(),
                "none_weights": np.round(none_weights, 4).tolist(),
                "mixed_types": mixed_types,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    sys.exit(main())
