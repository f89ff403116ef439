"""A short text -> a probability per class, fitted on data (chat intents, question types).

A multinomial logistic regression over hashed word, word-pair and in-word character n-grams
(typos share most of their character n-grams with the word meant). The conversation's intents
(`conversation/classifier.py`, fitted by `benchmarks/fit_intents.py`) and the type of a question
about a paper (`paper_answers.question_type`, fitted by `benchmarks/fit_question_types.py`) are
two of them, each judged on held-out messages written separately (docs/conversation.md). Pure
numpy: predicting one message costs tens of microseconds.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
import numpy.typing as npt

_BUCKETS = 1 << 22
_MAX_CHARS = 300  # a long message is a search; its first words are enough to tell
# A paper id in any spelling ("icml2026-13", "ICML 2026 13", "neurips23_5") reads as one token,
# so the model learns "an id is here" rather than particular numbers.
_PAPER_ID = re.compile(
    r"\b(?:icml|iclr|neurips|nips|acl|emnlp|naacl|cvpr|iccv|eccv|aaai|ijcai|kdd|www|colt|aistats|"
    r"uai|corl|coling|tmlr|jmlr)\s?'?\d{2,4}\s?[-_#:/ ]\s?0*\d{1,5}\b"
)
_NUMBER = re.compile(r"\d+")
_TOKEN = re.compile(r"[a-z']+|<id>|<n>|[^\w\s]")


def tokens(text: str) -> list[str]:
    """Lowercase word tokens with ids and numbers abstracted; punctuation and emoji kept."""
    text = _PAPER_ID.sub(" <id> ", text[:_MAX_CHARS].lower())
    text = _NUMBER.sub(" <n> ", text)
    return _TOKEN.findall(text)


def feature_names(text: str, topical: frozenset[str] = frozenset()) -> list[str]:
    """What the model sees of a message (strings before hashing). With `topical` words, also
    the message's shape with each run of them as one "T" ("T is so T , my brain hurts"), so
    that how a message is said is learned apart from the research words it names."""
    words = tokens(text)
    names = ["bias", f"len:{min(len(words), 8)}"]
    if topical and words:
        shape: list[str] = []
        for word in words:
            mark = "T" if word in topical else word
            if not (mark == "T" and shape and shape[-1] == "T"):
                shape.append(mark)
        padded_shape = ["^", *shape, "$"]
        names += [f"s:{a}_{b}" for a, b in pairwise(padded_shape)]
        names += [
            f"s3:{a}_{b}_{c}"
            for a, b, c in zip(padded_shape[:-2], shape, padded_shape[2:], strict=True)
        ]
    if words:
        names += [f"first:{words[0]}", f"last:{words[-1]}"]
    names += [f"w:{word}" for word in words]
    padded = ["^", *words, "$"]
    names += [f"b:{a}_{b}" for a, b in pairwise(padded)]
    for word in words:
        if len(word) < 3 or word.startswith("<"):
            continue
        marked = f"<{word}>"
        for size in (3, 4):
            names += [f"c:{marked[i : i + size]}" for i in range(len(marked) - size + 1)]
    return names


def feature_hashes(text: str, topical: frozenset[str] = frozenset()) -> npt.NDArray[np.int64]:
    """Distinct hashed features of a message (a stable hash: the same on every run)."""
    hashed = {zlib.crc32(name.encode()) % _BUCKETS for name in feature_names(text, topical)}
    found: npt.NDArray[np.int64] = np.fromiter(sorted(hashed), dtype=np.int64, count=len(hashed))
    return found


@dataclass(frozen=True)
class TextClassifier:
    """Fitted weights: the `classes` in column order, `vocabulary` (sorted feature hashes seen
    in training), one weight row per feature, a bias per class, the softmax temperature fitted
    on development data, and `log_prior`: per class, log(share in real use / share in
    training), added to the calibrated logits. The intents' training holds about 42 % searches,
    sessions written blind about 18 %; without the correction an unfamiliar reaction ("bummer",
    "jk") falls to the training majority, search."""

    classes: tuple[str, ...]
    vocabulary: npt.NDArray[np.int64]
    weights: npt.NDArray[np.float32]
    bias: npt.NDArray[np.float32]
    temperature: float = 1.0
    log_prior: npt.NDArray[np.float32] | None = None
    topical: frozenset[str] = frozenset()

    def rows(self, text: str) -> npt.NDArray[np.int64]:
        hashed = feature_hashes(text, self.topical)
        places = np.searchsorted(self.vocabulary, hashed)
        places = np.minimum(places, len(self.vocabulary) - 1)
        found: npt.NDArray[np.int64] = places[self.vocabulary[places] == hashed]
        return found

    def probabilities(self, text: str) -> dict[str, float]:
        """Class -> probability for one message (they sum to 1)."""
        logits = (self.weights[self.rows(text)].sum(axis=0) + self.bias) / self.temperature
        if self.log_prior is not None:
            logits = logits + self.log_prior
        return dict(zip(self.classes, _softmax(logits).tolist(), strict=True))

    def leaning(self, word: str, toward: str, against: str) -> float:
        """How much the word alone moves a message toward class `toward` rather than `against`
        (the difference of its fitted unigram weights); 0.0 for a word never seen in training."""
        hashed = zlib.crc32(f"w:{word.lower()}".encode()) % _BUCKETS
        place = int(np.searchsorted(self.vocabulary, hashed))
        if place >= len(self.vocabulary) or int(self.vocabulary[place]) != hashed:
            return 0.0
        row = self.weights[place]
        return float(row[self.classes.index(toward)] - row[self.classes.index(against)])

    def save(self, path: Path) -> None:
        np.savez_compressed(
            path,
            classes=np.array(self.classes),
            vocabulary=self.vocabulary,
            weights=self.weights.astype(np.float16),
            bias=self.bias,
            temperature=np.array([self.temperature]),
            log_prior=np.zeros(len(self.classes)) if self.log_prior is None else self.log_prior,
            topical=np.array(sorted(self.topical), dtype=str),
        )

    @classmethod
    def load(cls, path: Path) -> TextClassifier:
        with np.load(path) as saved:
            return cls(
                tuple(str(name) for name in saved["classes"]),
                saved["vocabulary"],
                saved["weights"].astype(np.float32),
                saved["bias"].astype(np.float32),
                float(saved["temperature"][0]),
                saved["log_prior"].astype(np.float32) if "log_prior" in saved else None,
                frozenset(str(word) for word in saved["topical"])
                if "topical" in saved
                else frozenset(),
            )


def _softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    shifted: npt.NDArray[np.float64] = np.exp(logits.astype(np.float64) - logits.max())
    normalised: npt.NDArray[np.float64] = shifted / shifted.sum()
    return normalised


def fit(
    texts: Sequence[str],
    labels: Sequence[str],
    classes: Sequence[str],
    *,
    l2: float = 1e-4,
    epochs: int = 300,
    learning_rate: float = 0.05,
    topical: frozenset[str] = frozenset(),
) -> TextClassifier:
    """Multinomial logistic regression by full-batch Adam (a few seconds for 10k messages)."""
    rows = [feature_hashes(text, topical) for text in texts]
    vocabulary, inverse = np.unique(np.concatenate(rows), return_inverse=True)
    lengths = np.array([len(row) for row in rows])
    owner = np.repeat(np.arange(len(rows)), lengths)
    targets = np.zeros((len(rows), len(classes)))
    targets[np.arange(len(rows)), [classes.index(label) for label in labels]] = 1.0
    weights = np.zeros((len(vocabulary), len(classes)))
    bias = np.zeros(len(classes))
    moments = [
        np.zeros_like(weights),
        np.zeros_like(weights),
        np.zeros_like(bias),
        np.zeros_like(bias),
    ]
    for step in range(1, epochs + 1):
        picked = weights[inverse]
        logits: npt.NDArray[np.float64] = np.stack(
            [np.bincount(owner, picked[:, c], len(rows)) for c in range(len(classes))], axis=1
        )
        logits += bias
        logits -= logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        error = (probabilities - targets) / len(rows)
        spread = error[owner]
        grad_w: npt.NDArray[np.float64] = np.stack(
            [np.bincount(inverse, spread[:, c], len(weights)) for c in range(len(classes))], axis=1
        )
        grad_w += l2 * weights
        grad_b = error.sum(axis=0)
        for value, grad, first, second in (
            (weights, grad_w, moments[0], moments[1]),
            (bias, grad_b, moments[2], moments[3]),
        ):
            first *= 0.9
            first += 0.1 * grad
            second *= 0.999
            second += 0.001 * grad * grad
            corrected = first / (1 - 0.9**step)
            value -= learning_rate * corrected / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    return TextClassifier(
        tuple(classes),
        vocabulary,
        weights.astype(np.float32),
        bias.astype(np.float32),
        topical=topical,
    )
