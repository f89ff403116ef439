"""Sentence roles in an abstract: background, objective, method, result or other.

A linear model over hashed features and a small network over word vectors, in numpy only.

- Features of a sentence: its word unigrams and bigrams, its opening words, the first five
  letters of its longer words, the unigrams and bigrams of the sentences before and after it
  and the unigrams of those two away, its position (from the start, from the end, relative),
  its length and whether it holds numbers. Words are hashed (crc32, cached) and n-grams
  combined by multiplicative hashing into `2**bits` buckets, so the fitter
  (benchmarks/fit_sentence_roles.py) and this module compute the same features by calling the
  same `role_features`.
- A softmax regression over those features, mixed (a weighted geometric mean of the
  probabilities) with a small network over dense inputs: word vectors learned from unlabelled
  abstracts, averaged over the sentence and its neighbours, the opening words' vectors and the
  position (fourth round), through a ReLU layer and a bidirectional GRU over the abstract's
  sentences (fifth round). Numpy only; the vectors ship in the model file.
- Viterbi decoding with transition weights (the shipped model: weight 0.25, picked on
  CSAbstruct dev). The model file may also hold a second, stacked pass (the same features plus
  the first pass's probabilities for the neighbouring sentences); the shipped model has none, as
  it did not help on dev (docs/sentence_roles.md).

Weights live in sentence_roles.npz beside this file, loaded once on first use.
"""

from __future__ import annotations

import enum
import functools
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

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
MAX_CHARS: Final = 4000  # the longest CSAbstruct sentence has 1,785
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*|[%:;?()$\[\]]")
# Feature-set choices, picked on CSAbstruct dev (docs/sentence_roles.md); the fitter records
# nothing else, so changing one needs a refit.
NEIGHBOUR_WEIGHT: Final = 0.5
NEIGHBOUR_BIGRAMS: Final = True
# Words of the sentences two before and two after, at this weight.
SECOND_NEIGHBOUR_WEIGHT: Final = 0.5
# Each longer word's first five letters ("propos", "demons"), at this weight: the forms of a
# word say the same about the role.
PREFIX_WEIGHT: Final = 0.5
_MULTIPLIERS: Final = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9], dtype=np.uint64
)

# Feature namespaces: hashed with the feature so that "we" in this sentence and "we" in the
# previous one land in different buckets.
_WORD, _BIGRAM, _PREV_WORD, _NEXT_WORD, _PREV_BIGRAM, _NEXT_BIGRAM = 1, 2, 3, 4, 5, 6
_OPENING, _POSITION, _SHAPE, _PREV_ROLE, _NEXT_ROLE, _BIAS = 7, 8, 9, 10, 11, 12
_PREV2_WORD, _NEXT2_WORD, _PREFIX = 13, 14, 19


@dataclass(frozen=True)
class SparseRows:
    """Hashed features of a batch of sentences: row `rows[k]` has `values[k]` at `columns[k]`."""

    rows: npt.NDArray[np.int64]
    columns: npt.NDArray[np.int64]
    values: npt.NDArray[np.float32]
    count: int


# A batch's word hashes (one flat list), its longer words' prefix hashes, and the counts of each
# per sentence.
Tokens = tuple[list[int], list[int], list[int], list[int]]

# token -> (its word hash, the hash of its first five letters or 0 when it is not longer than
# five): one lookup a token once it has been seen.
_token_cache: dict[str, tuple[int, int]] = {}


def _hash(text: str) -> int:
    return zlib.crc32(text.encode()) + 1


def _token_entry(token: str) -> tuple[int, int]:
    if len(_token_cache) >= 1 << 17:
        _token_cache.clear()  # bounded memory under a stream of unseen words
    entry = _token_cache[token] = (
        _hash("0" if token[0].isdigit() else token),
        _hash(token[:5] + "~") if len(token) > 5 else 0,
    )
    return entry


def _tokens(sentences: Sequence[str]) -> Tokens:
    """Word hashes of the sentences, one flat list (lowercased words, numbers as one token, a
    few marks), and the hashes of their longer words' first five letters; with the counts of
    each per sentence."""
    words: list[int] = []
    prefixes: list[int] = []
    word_counts, prefix_counts = [], []
    cache_get = _token_cache.get
    for sentence in sentences:
        tokens = _TOKEN.findall(sentence[:MAX_CHARS].lower())[:MAX_TOKENS]
        entries = [cache_get(token) or _token_entry(token) for token in tokens]
        found = [entry[1] for entry in entries if entry[1]]
        words.extend([entry[0] for entry in entries])
        prefixes.extend(found)
        word_counts.append(len(entries))
        prefix_counts.append(len(found))
    return words, prefixes, word_counts, prefix_counts


def _buckets(
    namespaces: npt.NDArray[np.uint64],
    first: npt.NDArray[np.uint64],
    second: npt.NDArray[np.uint64],
    bits: int,
) -> npt.NDArray[np.int64]:
    """Bucket of each (namespace, first, second) in [0, 2**bits); uint64 products wrap."""
    with np.errstate(over="ignore"):
        mixed = first * _MULTIPLIERS[0] + second * _MULTIPLIERS[1] + namespaces * _MULTIPLIERS[2]
        mixed ^= mixed >> np.uint64(29)
        mixed *= _MULTIPLIERS[0]
    buckets: npt.NDArray[np.int64] = (mixed >> np.uint64(64 - bits)).astype(np.int64)
    return buckets


class _Builder:
    """Collects (row, namespace, first, second, value) groups and hashes them in one go."""

    def __init__(self) -> None:
        self.rows: list[npt.NDArray[np.int64]] = []
        self.namespaces: list[int] = []
        self.sizes: list[int] = []
        self.firsts: list[npt.NDArray[np.uint64]] = []
        self.seconds: list[npt.NDArray[np.uint64]] = []
        self.values: list[float | npt.NDArray[np.float32]] = []

    def add(
        self,
        rows: npt.NDArray[np.int64],
        namespace: int,
        first: npt.NDArray[np.integer[Any]],
        second: npt.NDArray[np.integer[Any]] | None,
        value: float | npt.NDArray[np.float32],
    ) -> None:
        size = len(rows)
        self.rows.append(rows)
        self.namespaces.append(namespace)
        self.sizes.append(size)
        self.firsts.append(first.astype(np.uint64, copy=False))
        if second is not None:
            self.seconds.append(second.astype(np.uint64, copy=False))
        elif size <= len(_NO_SECOND):
            self.seconds.append(_NO_SECOND[:size])
        else:
            self.seconds.append(np.zeros(size, np.uint64))
        self.values.append(value)

    def build(self, count: int, bits: int) -> SparseRows:
        if not self.rows:
            empty = np.zeros(0, np.int64)
            return SparseRows(empty, empty, np.zeros(0, np.float32), count)
        # Scalars per group, repeated in one call each: fewer small numpy calls per abstract.
        columns = _buckets(
            np.repeat(np.array(self.namespaces, dtype=np.uint64), self.sizes),
            np.concatenate(self.firsts),
            np.concatenate(self.seconds),
            bits,
        )
        if all(isinstance(value, float) for value in self.values):
            values = np.repeat(np.array(self.values, dtype=np.float32), self.sizes)
        else:
            values = np.concatenate(
                [
                    np.full(size, value, dtype=np.float32)
                    if isinstance(value, float)
                    else value.astype(np.float32, copy=False)
                    for value, size in zip(self.values, self.sizes, strict=True)
                ]
            )
        return SparseRows(np.concatenate(self.rows), columns, values, count)


_NO_SECOND: Final = np.zeros(1 << 12, np.uint64)  # a view of it stands for "no second word"


def _layout(
    count: int, sizes: Sequence[int] | None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """For each sentence: its abstract, its index in it and the abstract's sentence count."""
    lengths = np.array([count] if sizes is None else sizes, dtype=np.int64)
    if int(lengths.sum()) != count:
        raise ValueError("abstract sizes must add up to the number of sentences")
    group = np.repeat(np.arange(len(lengths)), lengths)
    first = np.cumsum(lengths) - lengths
    return group, np.arange(count) - first[group], lengths[group]


def _same_abstract(
    owner: npt.NDArray[np.int64], target: npt.NDArray[np.int64], group: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    inside = (target >= 0) & (target < len(group))
    if len(group) and group[-1]:  # more than one abstract (one abstract: all in range match)
        inside[inside] = group[target[inside]] == group[owner[inside]]
    return inside


def role_features(
    sentences: Sequence[str],
    bits: int,
    sizes: Sequence[int] | None = None,
    tokens: Tokens | None = None,
) -> SparseRows:
    """Hashed features of sentences, in order (those of pass one; pass two adds
    `neighbour_role_features`): one abstract, or consecutive abstracts of `sizes` sentences.
    `tokens`: the sentences' `_tokens`, when the caller has them already."""
    count = len(sentences)
    group, index, abstract_count = _layout(count, sizes)
    words, prefixes, word_counts, prefix_counts = tokens or _tokens(sentences)
    lengths = np.array(word_counts, dtype=np.int64)
    total = len(words)
    hashes = np.array(words, dtype=np.uint64)
    owner = np.repeat(np.arange(count, dtype=np.int64), lengths)
    starts = np.zeros(count, dtype=np.int64)
    if count:
        starts[1:] = np.cumsum(lengths)[:-1]
    position = np.arange(total, dtype=np.int64) - starts[owner]
    # Bigrams, with a start mark before the first word of each sentence.
    previous = np.empty(total, dtype=np.uint64)
    if total:
        previous[1:] = hashes[:-1]
        previous[position == 0] = 0

    features = _Builder()
    features.add(owner, _WORD, hashes, None, 1.0)
    features.add(owner, _BIGRAM, previous, hashes, 1.0)
    # Opening words ("we propose", "in this paper", "results show"): the first three, each with
    # its position.
    opening = position < 3
    features.add(owner[opening], _OPENING, hashes[opening], position[opening], 1.0)
    # The neighbours' words, in their own namespaces.
    for shift, word_space, bigram_space in (
        (1, _PREV_WORD, _PREV_BIGRAM),
        (-1, _NEXT_WORD, _NEXT_BIGRAM),
    ):
        target = owner + shift
        inside = _same_abstract(owner, target, group)
        features.add(target[inside], word_space, hashes[inside], None, NEIGHBOUR_WEIGHT)
        if NEIGHBOUR_BIGRAMS:
            features.add(
                target[inside], bigram_space, previous[inside], hashes[inside], NEIGHBOUR_WEIGHT
            )

    # The words two sentences away, and the word prefixes.
    for shift, space in ((2, _PREV2_WORD), (-2, _NEXT2_WORD)):
        target = owner + shift
        inside = _same_abstract(owner, target, group)
        features.add(target[inside], space, hashes[inside], None, SECOND_NEIGHBOUR_WEIGHT)
    prefix_rows = np.repeat(np.arange(count, dtype=np.int64), prefix_counts)
    prefix_hashes = np.array(prefixes, dtype=np.uint64)
    features.add(prefix_rows, _PREFIX, prefix_hashes, None, PREFIX_WEIGHT)
    # Position and shape: small categorical codes, one feature each, and a bias.
    from_end = abstract_count - 1 - index
    codes = np.concatenate(
        [
            np.minimum(index, 7),
            100 + np.minimum(from_end, 7),
            200 + (index * 10) // np.maximum(abstract_count, 1),
            300 + np.minimum(abstract_count, 15),
            400 + np.minimum(lengths // 5, 12),
            1000 + 10 * np.minimum(index, 4) + np.minimum(from_end, 4),
        ]
    )
    rows = np.arange(count, dtype=np.int64)
    features.add(np.tile(rows, 6), _POSITION, codes, None, 1.0)
    features.add(rows, _BIAS, np.zeros(count, np.uint64), None, 1.0)
    return features.build(count, bits)


def neighbour_role_features(
    probabilities: npt.NDArray[np.float32], bits: int, sizes: Sequence[int] | None = None
) -> SparseRows:
    """Pass-two features: the previous and next sentences' pass-one probabilities of each role,
    and a mark where there is no neighbour on that side (`sizes` as in `role_features`)."""
    count = len(probabilities)
    group, _, _ = _layout(count, sizes)
    index = np.arange(count, dtype=np.int64)
    features = _Builder()
    for shift, space in ((1, _PREV_ROLE), (-1, _NEXT_ROLE)):
        padded = np.zeros((count, len(ROLES) + 1), dtype=np.float32)
        source = index - shift
        inside = _same_abstract(index, source, group)
        padded[inside, : len(ROLES)] = probabilities[source[inside]]
        padded[~inside, len(ROLES)] = 1.0
        roles = np.repeat(np.arange(len(ROLES) + 1, dtype=np.uint64), count)
        features.add(np.tile(index, len(ROLES) + 1), space, roles, None, padded.T.ravel() * 3.0)
    return features.build(count, bits)


# Dense inputs of the second model (fourth round): what the sentence's words mean, as vectors
# learned from unlabelled abstracts (PPMI + truncated SVD, fitted by
# benchmarks/fit_sentence_roles.py), so that a rare word counts like its frequent neighbours.
OPENING_VECTORS: Final = 3
# The sentences whose mean vectors a sentence sees: one before, one after, two before, two after.
_CONTEXT_SHIFTS: Final = np.array([1, -1, 2, -2])
# One-hot position codes: from the start (8), from the end (8), tenths (10), the abstract's
# sentence count (16) and the sentence's length in 5-word buckets (13).
_POSITION_SLOTS: Final = (8, 8, 10, 16, 13)


def dense_size(dimension: int) -> int:
    """Width of `dense_inputs` for word vectors of `dimension`."""
    return (1 + OPENING_VECTORS + 4) * dimension + sum(_POSITION_SLOTS)


def dense_inputs(
    sentences: Sequence[str],
    word_rows: Mapping[int, int],
    word_vectors: npt.NDArray[np.float32],
    sizes: Sequence[int] | None = None,
    tokens: Tokens | None = None,
) -> npt.NDArray[np.float32]:
    """Each sentence as one dense row: the mean of its known words' vectors, the vectors of
    its first three words, the mean vectors of the sentences one and two before and after it
    (zeros past the abstract's ends), and one-hot position codes. `word_rows` maps a known
    word's hash to its row of `word_vectors`, whose last row is zeros (unknown words, missing
    opening words)."""
    count = len(sentences)
    _, index, abstract_count = _layout(count, sizes)
    words, _, word_counts, _ = tokens or _tokens(sentences)
    dimension = word_vectors.shape[1]
    known = len(word_vectors) - 1  # the zero row
    rows_get = word_rows.get
    rows = np.array([rows_get(word, known) for word in words], dtype=np.int64)
    lengths = np.array(word_counts, dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    out = np.zeros((count, dense_size(dimension)), dtype=np.float32)
    filled = lengths > 0
    if filled.any():
        # One segment per non-empty sentence: an empty one adds no rows between its neighbours.
        vectors = word_vectors[rows]
        seen = np.add.reduceat(rows < known, starts[filled])
        out[filled, :dimension] = np.add.reduceat(vectors, starts[filled], axis=0) / np.maximum(
            seen, 1
        )[:, None].astype(np.float32)
    # The opening words: their vector rows, the zero row past a sentence's end.
    offsets = np.arange(OPENING_VECTORS)
    opening = (
        np.where(
            offsets < lengths[:, None],
            rows[np.minimum(starts[:, None] + offsets, len(rows) - 1)],
            known,
        )
        if len(rows)
        else np.full((count, OPENING_VECTORS), known)
    )
    column = (1 + OPENING_VECTORS) * dimension
    out[:, dimension:column] = word_vectors[opening].reshape(count, -1)
    # The neighbours' means, gathered in one go; the zero row past an abstract's ends.
    from_end = abstract_count - 1 - index
    padded = np.vstack([out[:, :dimension], np.zeros((1, dimension), np.float32)])
    inside = (index[:, None] >= _CONTEXT_SHIFTS) & (from_end[:, None] >= -_CONTEXT_SHIFTS)
    sources = np.where(inside, np.arange(count)[:, None] - _CONTEXT_SHIFTS, count)
    end = column + len(_CONTEXT_SHIFTS) * dimension
    out[:, column:end] = padded[sources].reshape(count, -1)
    column = end
    codes = (
        np.minimum(index, 7),
        np.minimum(from_end, 7),
        (index * 10) // np.maximum(abstract_count, 1),
        np.minimum(abstract_count, 15),
        np.minimum(lengths // 5, 12),
    )
    # One-hot codes (each below its block's size), set in one go.
    firsts = column + np.cumsum((0, *_POSITION_SLOTS[:-1]))
    columns = (np.stack(codes) + firsts[:, None]).ravel()
    out[np.tile(np.arange(count), len(codes)), columns] = 1.0
    return out


# Products of more multiply-adds than this run in row blocks: OpenBLAS hands a larger product to
# its worker threads, which then spin on the other core (on 2 shared cores a 7 x 567 x 320
# product measured 20 us below about 800k multiply-adds and up to milliseconds above).
_MAX_PRODUCT: Final = 1 << 19


def _product(
    left: npt.NDArray[np.float32], right: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """`left @ right`, in blocks of rows small enough to stay on the calling thread."""
    rows = max(1, _MAX_PRODUCT // max(right.size, 1))
    if len(left) <= rows:
        result: npt.NDArray[np.float32] = left @ right
        return result
    return np.vstack([left[start : start + rows] @ right for start in range(0, len(left), rows)])


def relu_layer_scores(
    inputs: npt.NDArray[np.float32],
    hidden_weights: npt.NDArray[np.float32],
    hidden_bias: npt.NDArray[np.float32],
    output_weights: npt.NDArray[np.float32],
    output_bias: npt.NDArray[np.float32],
    context: ContextLayer | None = None,
    sizes: Sequence[int] | None = None,
) -> npt.NDArray[np.float32]:
    """Scores of a one-hidden-layer network (ReLU), one row a sentence, one column a role. With
    a `context` layer (fifth round) the output layer also reads a bidirectional GRU run over
    each abstract's hidden rows (`sizes` as in `role_features`)."""
    hidden = np.maximum(_product(inputs, hidden_weights) + hidden_bias, 0.0)
    if context is not None and context.recurrent.size:
        lengths = np.array([len(inputs)] if sizes is None else sizes, dtype=np.int64)
        hidden = np.hstack([hidden, context.states(hidden, lengths)])
    result: npt.NDArray[np.float32] = hidden @ output_weights + output_bias
    return result


@dataclass(frozen=True)
class ContextLayer:
    """A bidirectional GRU over the sentences of each abstract (fifth round), for a bag of
    networks at once. The state holds every network's forward units, then every network's
    backward units (`size` in all); the gate columns are reset, update and candidate, `size`
    each, and the recurrent matrix is block-diagonal (each network's direction reads only its
    own state), so one product a step runs the whole bag both ways."""

    input_weights: npt.NDArray[np.float32]  # hidden units x 3 size
    input_bias: npt.NDArray[np.float32]  # 3 size (the recurrent reset / update biases folded in)
    recurrent: npt.NDArray[np.float32]  # size x 3 size
    candidate_bias: npt.NDArray[np.float32]  # size: the recurrent candidate bias (inside reset)

    def states(
        self, hidden: npt.NDArray[np.float32], lengths: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float32]:
        """Each sentence's forward and backward states, one row a sentence; `lengths`: the
        abstracts' sentence counts (consecutive rows)."""
        size = len(self.candidate_bias)
        half = size // 2
        projected = _product(hidden, self.input_weights) + self.input_bias
        forward_columns = (np.arange(3 * size) % size) < half
        if len(lengths) == 1:  # one abstract (the common case): no gathers
            out = self._run(np.where(forward_columns, projected, projected[::-1])[None])[0]
            return np.hstack([out[:, :half], out[::-1, half:]])
        starts = np.cumsum(lengths) - lengths
        steps = np.arange(int(lengths.max()) if len(lengths) else 0)
        last = lengths[:, None] - 1
        # Step t reads sentence t going forward and sentence length - 1 - t going backward
        # (each abstract by its own length; steps past its end are computed and dropped;
        # clipped: an abstract with no sentences reads a neighbour's row and drops it).
        top = max(len(hidden) - 1, 0)
        forward = np.clip(starts[:, None] + np.minimum(steps, last), 0, top)
        backward = np.clip(starts[:, None] + np.maximum(last - steps, 0), 0, top)
        out = self._run(np.where(forward_columns, projected[forward], projected[backward]))
        result = np.empty((len(hidden), size), np.float32)
        valid = steps < lengths[:, None]
        result[forward[valid], :half] = out[valid][:, :half]
        result[backward[valid], half:] = out[valid][:, half:]
        return result

    def _run(self, inputs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The states after each step, (abstracts, steps, size), from every step's gate inputs
        (abstracts, steps, 3 size)."""
        count, steps, _ = inputs.shape
        recurrent, candidate_bias = self.recurrent, self.candidate_bias
        size = len(candidate_bias)
        state = np.zeros((count, size), np.float32)
        out = np.empty((count, steps, size), np.float32)
        small = count * recurrent.size <= _MAX_PRODUCT  # one abstract: a plain product
        for step in range(steps):
            gates = inputs[:, step]
            mixed = state @ recurrent if small else _product(state, recurrent)
            # Reset and update gates together: sigmoid(x) = (1 + tanh(x / 2)) / 2.
            both = np.tanh(0.5 * (gates[:, : 2 * size] + mixed[:, : 2 * size]))
            both += 1.0
            both *= 0.5
            candidate = np.tanh(
                gates[:, 2 * size :] + both[:, :size] * (mixed[:, 2 * size :] + candidate_bias)
            )
            state = candidate + both[:, size:] * (state - candidate)
            out[:, step] = state
        return out


def joined(first: SparseRows, second: SparseRows) -> SparseRows:
    """The features of both, for the same sentences."""
    return SparseRows(
        np.concatenate([first.rows, second.rows]),
        np.concatenate([first.columns, second.columns]),
        np.concatenate([first.values, second.values]),
        first.count,
    )


def scores(features: SparseRows, by_bucket: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Linear scores, one row per sentence and one column per role; `by_bucket` holds one row
    of role weights per bucket (one contiguous gather per feature)."""
    roles = by_bucket.shape[1]
    contributions = np.take(by_bucket, features.columns, axis=0) * features.values[:, None]
    cells = (features.rows[:, None] * roles + np.arange(roles)).ravel()
    out = np.bincount(cells, contributions.ravel(), minlength=features.count * roles)
    result: npt.NDArray[np.float32] = out.reshape(features.count, roles).astype(np.float32)
    return result


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
    first_pass: npt.NDArray[np.float32]  # buckets x roles
    second_pass: npt.NDArray[np.float32]  # buckets x roles; empty: one pass only
    log_start: npt.NDArray[np.float32]
    log_transitions: npt.NDArray[np.float32]
    # The dense model (fourth round; empty arrays: none): each known word's hash -> its row of
    # the word vectors (which end with a zero row), a hidden layer over `dense_inputs` (its
    # input scaling folded in) and an output layer. Its log-probabilities are mixed with pass
    # one's, pass one weighing `mix`.
    word_rows: dict[int, int] = field(default_factory=dict)
    word_vectors: npt.NDArray[np.float32] = field(
        default_factory=lambda: np.zeros((1, 0), np.float32)
    )
    hidden_weights: npt.NDArray[np.float32] = field(
        default_factory=lambda: np.zeros((0, 0), np.float32)
    )
    hidden_bias: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros(0, np.float32))
    output_weights: npt.NDArray[np.float32] = field(
        default_factory=lambda: np.zeros((0, len(ROLES)), np.float32)
    )
    output_bias: npt.NDArray[np.float32] = field(
        default_factory=lambda: np.zeros(len(ROLES), np.float32)
    )
    mix: float = 1.0
    # The fifth round's context layer over the hidden rows (None: the fourth round's network).
    context: ContextLayer | None = None

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> SentenceRoleModel:
        with np.load(path) as data:
            weight = float(data["transition_weight"])
            return cls(
                bits=int(data["bits"]),
                # Buckets x roles, as stored: each feature's role weights are contiguous.
                first_pass=np.ascontiguousarray(data["first_pass"], dtype=np.float32),
                second_pass=np.ascontiguousarray(data["second_pass"], dtype=np.float32),
                log_start=weight * data["log_start"].astype(np.float32),
                log_transitions=weight * data["log_transitions"].astype(np.float32),
                **_dense_model(data),
            )

    def probabilities(
        self, sentences: Sequence[str], sizes: Sequence[int] | None = None
    ) -> npt.NDArray[np.float32]:
        """The last pass's probabilities of each role (columns in `ROLES` order), one row a
        sentence; the sentences are one abstract, or consecutive abstracts of `sizes`
        sentences."""
        tokens = _tokens(sentences)
        features = role_features(sentences, self.bits, sizes, tokens)
        linear = scores(features, self.first_pass)
        if self.hidden_weights.size and len(sentences):
            inputs = dense_inputs(sentences, self.word_rows, self.word_vectors, sizes, tokens)
            dense = relu_layer_scores(
                inputs,
                self.hidden_weights,
                self.hidden_bias,
                self.output_weights,
                self.output_bias,
                self.context,
                sizes,
            )
            # A weighted geometric mean of the two models' probabilities.
            linear = self.mix * linear + (1.0 - self.mix) * dense
        first = softmax(linear)
        if not self.second_pass.size:
            return first
        neighbours = neighbour_role_features(first, self.bits, sizes)
        return softmax(scores(joined(features, neighbours), self.second_pass))

    def roles_of_many(self, abstracts: Sequence[Sequence[str]]) -> list[list[Role]]:
        """`roles` for many abstracts at once (one batch of numpy work: faster at ingest)."""
        sentences = [sentence for abstract in abstracts for sentence in abstract]
        sizes = [len(abstract) for abstract in abstracts]
        if not sentences:
            return [[] for _ in abstracts]
        probabilities = self.probabilities(sentences, sizes)
        result, start = [], 0
        if self.log_transitions.any():  # Viterbi: one abstract at a time, over the batch's rows
            for size in sizes:
                result.append(self.decoded(probabilities[start : start + size]))
                start += size
            return result
        best = probabilities.argmax(axis=1).tolist()
        for size in sizes:
            result.append([ROLES[index] for index in best[start : start + size]])
            start += size
        return result

    def roles(self, sentences: Sequence[str]) -> list[Role]:
        """The most likely role sequence for the sentences of one abstract, in order."""
        if not sentences:
            return []
        return self.decoded(self.probabilities(sentences))

    def decoded(self, probabilities: npt.NDArray[np.float32]) -> list[Role]:
        """The role sequence for one abstract's `probabilities` (as `probabilities` gives them)."""
        if not len(probabilities):
            return []
        if not self.log_transitions.any():
            # Decoding weight 0 (what dev picked): Viterbi reduces to the per-sentence argmax.
            return [ROLES[index] for index in probabilities.argmax(axis=1).tolist()]
        log_probabilities = np.log(np.maximum(probabilities, 1e-12))
        path = viterbi(log_probabilities, self.log_start, self.log_transitions)
        return [ROLES[index] for index in path]


def _dense_model(data: Any) -> dict[str, Any]:
    """The dense model's fields from a model file, or nothing when it has none."""
    if "hidden_weights" not in data.files:
        return {}
    vectors = data["word_vectors"].astype(np.float32)
    return {
        "word_rows": {int(word): row for row, word in enumerate(data["word_hashes"].tolist())},
        "word_vectors": np.vstack([vectors, np.zeros((1, vectors.shape[1]), np.float32)]),
        "hidden_weights": np.ascontiguousarray(data["hidden_weights"], dtype=np.float32),
        "hidden_bias": data["hidden_bias"].astype(np.float32),
        "output_weights": data["output_weights"].astype(np.float32),
        "output_bias": data["output_bias"].astype(np.float32),
        "mix": float(data["mix"]),
        "context": ContextLayer(
            input_weights=np.ascontiguousarray(data["context_input_weights"], dtype=np.float32),
            input_bias=data["context_input_bias"].astype(np.float32),
            recurrent=np.ascontiguousarray(data["context_recurrent"], dtype=np.float32),
            candidate_bias=data["context_candidate_bias"].astype(np.float32),
        )
        if "context_recurrent" in data.files
        else None,
    }


@functools.cache
def default_model() -> SentenceRoleModel:
    """The model shipped beside this module, loaded on first use."""
    return SentenceRoleModel.load()


def sentence_roles(sentences: Sequence[str]) -> list[Role]:
    """The role of each sentence of one abstract (sentences in order, e.g. from
    retrieval.sentences.split_sentences); one role per sentence."""
    return default_model().roles(sentences)


def sentence_roles_from(probabilities: npt.NDArray[np.float32]) -> list[Role]:
    """`sentence_roles` for probabilities already computed by `sentence_role_probabilities`."""
    return default_model().decoded(probabilities)


def sentence_roles_of_many(abstracts: Sequence[Sequence[str]]) -> list[list[Role]]:
    """`sentence_roles` for many abstracts (each a sequence of sentences) in one batch."""
    return default_model().roles_of_many(abstracts)


def sentence_role_probabilities(sentences: Sequence[str]) -> npt.NDArray[np.float32]:
    """Per-sentence probabilities of each role, columns in `ROLES` order (before decoding)."""
    return default_model().probabilities(sentences)
