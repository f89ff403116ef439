"""Sentence roles in an abstract: background, objective, method, result or other.

A two-pass linear model over hashed features, decoded as a sequence, in numpy only.

- Features of a sentence: its word unigrams and bigrams, its opening words, the unigrams and
  bigrams of the sentences before and after it, its position (from the start, from the end,
  relative), its length and whether it holds numbers. Words are hashed (crc32, cached) and
  n-grams combined by multiplicative hashing into `2**bits` buckets, so the fitter
  (benchmarks/fit_sentence_roles.py) and this module compute the same features by calling the
  same `role_features`.
- Pass one: a softmax regression over those features. Pass two: the same features plus the
  pass-one probabilities of the neighbouring sentences (a stacked model).
- Decoding: Viterbi over the pass-two log-probabilities plus weighted log transition
  probabilities between consecutive roles (and into the first role).

Weights live in sentence_roles.npz beside this file, loaded once on first use.
"""

from __future__ import annotations

import enum
import functools
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

MODEL_PATH: Final = Path(__file__).with_name("sentence_roles.npz")


class Role(enum.Enum):
    """What a sentence of an abstract does."""

    BACKGROUND = "background"
    OBJECTIVE = "objective"
    METHOD = "method"
    RESULT = "result"
    OTHER = "other"


ROLES: Final = tuple(Role)

# Tokens past this many in one sentence are ignored: abstract sentences rarely reach 100 words,
# and a hostile megabyte-long "sentence" must not cost more than a normal one.
MAX_TOKENS: Final = 160
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*|[%:;?()$\[\]]")
_MASK64: Final = (1 << 64) - 1
_MULTIPLIERS: Final = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9], dtype=np.uint64
)

# Feature namespaces: hashed with the feature so that "we" in this sentence and "we" in the
# previous one land in different buckets.
_WORD, _BIGRAM, _PREV_WORD, _NEXT_WORD, _PREV_BIGRAM, _NEXT_BIGRAM = 1, 2, 3, 4, 5, 6
_OPENING, _POSITION, _SHAPE, _PREV_ROLE, _NEXT_ROLE, _BIAS = 7, 8, 9, 10, 11, 12


@dataclass(frozen=True)
class SparseRows:
    """Hashed features of a batch of sentences: row `rows[k]` has `values[k]` at `columns[k]`."""

    rows: npt.NDArray[np.int64]
    columns: npt.NDArray[np.int64]
    values: npt.NDArray[np.float32]
    count: int


@functools.lru_cache(maxsize=1 << 16)
def _word_hash(token: str) -> int:
    return zlib.crc32(token.encode()) + 1


def _tokens(sentence: str) -> list[int]:
    """Word hashes of the sentence: lowercased words, numbers as one token, a few marks."""
    hashes = []
    for match in islice(_TOKEN.finditer(sentence.lower()), MAX_TOKENS):
        token = match.group()
        hashes.append(_word_hash("0" if token[0].isdigit() else token))
    return hashes


def _bucket(
    namespace: int, first: npt.NDArray[np.uint64], second: npt.NDArray[np.uint64], bits: int
) -> npt.NDArray[np.int64]:
    """Bucket of (namespace, first, second) in [0, 2**bits); unsigned products wrap mod 2**64."""
    with np.errstate(over="ignore"):
        return _mix(namespace, first, second, bits)


def _mix(
    namespace: int, first: npt.NDArray[np.uint64], second: npt.NDArray[np.uint64], bits: int
) -> npt.NDArray[np.int64]:
    mixed = (
        first * _MULTIPLIERS[0]
        + second * _MULTIPLIERS[1]
        + np.uint64(namespace) * _MULTIPLIERS[2]
    )
    mixed ^= mixed >> np.uint64(29)
    mixed *= _MULTIPLIERS[0]
    return (mixed >> np.uint64(64 - bits)).astype(np.int64)


def role_features(
    sentences: Sequence[str],
    bits: int,
    neighbour_probabilities: npt.NDArray[np.float32] | None = None,
) -> SparseRows:
    """Hashed features of the sentences of one abstract, in order. With
    `neighbour_probabilities` (pass-one probabilities, one row per sentence) the features of
    pass two: the previous and next sentences' probabilities of each role are added."""
    count = len(sentences)
    token_lists = [_tokens(sentence) for sentence in sentences]
    lengths = np.array([len(tokens) for tokens in token_lists], dtype=np.int64)
    total = int(lengths.sum())
    hashes = np.fromiter(
        (token for tokens in token_lists for token in tokens), dtype=np.uint64, count=total
    )
    owner = np.repeat(np.arange(count, dtype=np.int64), lengths)
    starts = np.zeros(count, dtype=np.int64)
    if count:
        starts[1:] = np.cumsum(lengths)[:-1]
    position = np.arange(total, dtype=np.int64) - starts[owner]
    zero = np.zeros(total, dtype=np.uint64)

    # Bigrams, with a start mark before the first word of each sentence.
    previous = np.empty(total, dtype=np.uint64)
    if total:
        previous[1:] = hashes[:-1]
        previous[position == 0] = 0
    rows: list[npt.NDArray[np.int64]] = []
    columns: list[npt.NDArray[np.int64]] = []
    values: list[npt.NDArray[np.float32]] = []

    def add(row: npt.NDArray[np.int64], column: npt.NDArray[np.int64], value: float) -> None:
        rows.append(row)
        columns.append(column)
        values.append(np.full(len(row), value, dtype=np.float32))

    unigrams = _bucket(_WORD, hashes, zero, bits)
    bigrams = _bucket(_BIGRAM, previous, hashes, bits)
    add(owner, unigrams, 1.0)
    add(owner, bigrams, 1.0)
    # Opening words ("we propose", "in this paper", "results show"): the first three, each with
    # its position.
    opening = position < 3
    add(
        owner[opening],
        _bucket(_OPENING, hashes[opening], position[opening].astype(np.uint64), bits),
        1.0,
    )
    # The neighbours' words, in their own namespaces.
    for shift, word_space, bigram_space in ((1, _PREV_WORD, _PREV_BIGRAM), (-1, _NEXT_WORD, _NEXT_BIGRAM)):
        target = owner + shift
        inside = (target >= 0) & (target < count)
        add(target[inside], _bucket(word_space, hashes[inside], zero[inside], bits), 0.5)
        add(
            target[inside],
            _bucket(bigram_space, previous[inside], hashes[inside], bits),
            0.5,
        )

    # Position and shape: small categorical codes, one feature each.
    index = np.arange(count, dtype=np.int64)
    from_end = count - 1 - index
    relative = (index * 10) // max(count, 1)
    zeros = np.zeros(count, dtype=np.uint64)
    codes = [
        np.minimum(index, 7),
        100 + np.minimum(from_end, 7),
        200 + relative,
        300 + np.minimum(count, 15),
        400 + np.minimum(lengths // 5, 12),
        1000 + 10 * np.minimum(index, 4) + np.minimum(from_end, 4),
    ]
    for code in codes:
        add(index, _bucket(_POSITION, code.astype(np.uint64), zeros, bits), 1.0)
    add(index, _bucket(_BIAS, zeros, zeros, bits), 1.0)

    if neighbour_probabilities is not None and count:
        for shift, space in ((1, _PREV_ROLE), (-1, _NEXT_ROLE)):
            padded = np.zeros((count, len(ROLES) + 1), dtype=np.float32)
            source = np.arange(count) - shift
            inside = (source >= 0) & (source < count)
            padded[inside, : len(ROLES)] = neighbour_probabilities[source[inside]]
            padded[~inside, len(ROLES)] = 1.0  # no neighbour on that side
            for role in range(len(ROLES) + 1):
                column = _bucket(space, np.full(count, role, np.uint64), zeros, bits)
                rows.append(index)
                columns.append(column)
                values.append(padded[:, role] * 3.0)

    return SparseRows(
        rows=np.concatenate(rows) if rows else np.zeros(0, np.int64),
        columns=np.concatenate(columns) if columns else np.zeros(0, np.int64),
        values=np.concatenate(values) if values else np.zeros(0, np.float32),
        count=count,
    )


def scores(features: SparseRows, weights: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Linear scores, one row per sentence and one column per role."""
    out = np.zeros((features.count, weights.shape[1]), dtype=np.float32)
    np.add.at(out, features.rows, np.take(weights, features.columns, axis=0) * features.values[:, None])
    return out


def softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    result: npt.NDArray[np.float32] = exp / exp.sum(axis=1, keepdims=True)
    return result


def viterbi(
    log_probabilities: npt.NDArray[np.float32],
    log_start: npt.NDArray[np.float32],
    log_transitions: npt.NDArray[np.float32],
) -> list[int]:
    """The role sequence maximising the sum of per-sentence and transition scores."""
    count = len(log_probabilities)
    if count == 0:
        return []
    best = log_start + log_probabilities[0]
    back = np.zeros((count, len(log_start)), dtype=np.int64)
    for position in range(1, count):
        candidates = best[:, None] + log_transitions
        back[position] = candidates.argmax(axis=0)
        best = candidates.max(axis=0) + log_probabilities[position]
    path = [int(best.argmax())]
    for position in range(count - 1, 0, -1):
        path.append(int(back[position, path[-1]]))
    return path[::-1]


@dataclass(frozen=True)
class SentenceRoleModel:
    """Fitted weights: pass one, pass two, transitions and their decoding weight."""

    bits: int
    first_pass: npt.NDArray[np.float32]
    second_pass: npt.NDArray[np.float32]
    log_start: npt.NDArray[np.float32]
    log_transitions: npt.NDArray[np.float32]

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> SentenceRoleModel:
        with np.load(path) as data:
            weight = float(data["transition_weight"])
            return cls(
                bits=int(data["bits"]),
                first_pass=data["first_pass"].astype(np.float32),
                second_pass=data["second_pass"].astype(np.float32),
                log_start=weight * data["log_start"].astype(np.float32),
                log_transitions=weight * data["log_transitions"].astype(np.float32),
            )

    def probabilities(self, sentences: Sequence[str]) -> npt.NDArray[np.float32]:
        """Pass-two probabilities of each role (columns in `ROLES` order), one row a sentence."""
        first = softmax(scores(role_features(sentences, self.bits), self.first_pass))
        return softmax(scores(role_features(sentences, self.bits, first), self.second_pass))

    def roles(self, sentences: Sequence[str]) -> list[Role]:
        """The most likely role sequence for the sentences of one abstract, in order."""
        if not sentences:
            return []
        log_probabilities = np.log(np.maximum(self.probabilities(sentences), 1e-12))
        path = viterbi(log_probabilities, self.log_start, self.log_transitions)
        return [ROLES[index] for index in path]


@functools.cache
def default_model() -> SentenceRoleModel:
    """The model shipped beside this module, loaded on first use."""
    return SentenceRoleModel.load()


def sentence_roles(sentences: Sequence[str]) -> list[Role]:
    """The role of each sentence of one abstract (sentences in order, e.g. from
    retrieval.sentences.split_sentences); one role per sentence."""
    return default_model().roles(sentences)


def sentence_role_probabilities(sentences: Sequence[str]) -> npt.NDArray[np.float32]:
    """Per-sentence probabilities of each role, columns in `ROLES` order (before decoding)."""
    return default_model().probabilities(sentences)
