"""Learned title-word statistics: how likely a word of an abstract is to be in the paper's title.

`benchmarks/label_lexicon.py` counts them on lists with real titles (the tuning lists: ICML 2024
and ICLR 2024) and writes `title_words.json` beside this module. A word's chance depends on how
often the abstract repeats it, whether it is in the opening or the contribution sentence, and how
often titles keep that word when their abstract has it (its prior, in five buckets). Words the
lexicon has not seen get the prior of an unseen word. It also lists the words that end a phrase:
stems titles almost never keep, and words in "-s" that abstracts use as verbs.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

LEXICON_PATH: Final = Path(__file__).with_name("title_words.json")
# Repeats beyond this count as this many: the chance levels off.
MAX_COUNT: Final = 6
PRIOR_BUCKETS: Final = 5
# Smoothing of a word's prior: (hits + PRIOR_MASS * UNSEEN_PRIOR) / (seen + PRIOR_MASS).
PRIOR_MASS: Final = 4.0
UNSEEN_PRIOR: Final = 0.1

Cell = tuple[int, int, bool, bool]  # count, prior bucket, in the opening, in the contribution


def prior_bucket(hits: int, seen: int) -> int:
    """The bucket of a word that titles kept `hits` times of the `seen` abstracts that had it."""
    prior = (hits + PRIOR_MASS * UNSEEN_PRIOR) / (seen + PRIOR_MASS)
    return min(int(prior * 10), PRIOR_BUCKETS - 1)


UNSEEN_BUCKET: Final = prior_bucket(0, 0)
# Cells per prior bucket in the flat chance table: counts 1..MAX_COUNT, opening, contribution.
_BLOCK: Final = MAX_COUNT * 4


@dataclass(frozen=True, slots=True)
class TitleWords:
    """The lexicon: prior buckets by stem, chances by cell, and the words that end a phrase."""

    buckets: dict[str, int]
    chances: dict[Cell, float]
    breaks: frozenset[str]  # frequent words titles almost never keep ("propos", "demonstr")
    verbs: frozenset[str]  # lowercase words in "-s" that abstracts use as verbs ("learns", "uses")
    default_chance: float
    # The chances again, flat: `offsets` gives a stem's block in `table` (its prior bucket's
    # cells), so a term's chance is one dict lookup and one tuple index, not a tuple key built
    # and hashed per term (`chances_of` runs on every key-phrase label).
    table: tuple[float, ...]
    offsets: dict[str, int]
    unseen_offset: int

    def chance(self, term: str, count: int, in_opening: bool, in_contribution: bool) -> float:
        """How likely `term` is a title word, given where and how often the abstract has it."""
        cell = (
            min(max(count, 1), MAX_COUNT),
            self.buckets.get(term, UNSEEN_BUCKET),
            in_opening,
            in_contribution,
        )
        return self.chances.get(cell, self.default_chance)

    def chances_of(
        self,
        terms: Iterable[str],
        counts: Mapping[str, int],
        opening: Container[str],
        contribution: Container[str],
    ) -> dict[str, float]:
        """`chance` of each term, in one loop: the labeler asks for about forty an abstract."""
        offsets = self.offsets.get
        table = self.table
        unseen = self.unseen_offset
        found: dict[str, float] = {}
        for term in terms:
            if term not in found:
                count = counts[term]
                # The cell's place in its block: (count - 1) * 4 + 2 * opening + contribution.
                cell = (MAX_COUNT - 1 if count > MAX_COUNT else (count - 1 if count > 0 else 0)) * 4
                if term in opening:
                    cell += 2
                if term in contribution:
                    cell += 1
                found[term] = table[offsets(term, unseen) + cell]
        return found


@functools.cache
def title_words() -> TitleWords:
    """The shipped lexicon, read once per process."""
    return parse_lexicon(json.loads(LEXICON_PATH.read_text(encoding="utf-8")))


def parse_lexicon(data: dict[str, object]) -> TitleWords:
    """The lexicon from its JSON form (written by `benchmarks/label_lexicon.py`)."""
    buckets = data["buckets"]
    chances = data["chances"]
    breaks = data["breaks"]
    verbs = data.get("verbs", [])
    assert isinstance(buckets, dict) and isinstance(chances, list) and isinstance(breaks, list)
    assert isinstance(verbs, list)
    bucket_of = {str(term): int(bucket) for term, bucket in buckets.items()}
    cells = {
        (int(count), int(bucket), bool(opening), bool(contribution)): float(chance)
        for count, bucket, opening, contribution, chance in chances
    }
    default = float(str(data["default_chance"]))
    table, block_of = _flat_table(cells, {*bucket_of.values(), UNSEEN_BUCKET}, default)
    return TitleWords(
        buckets=bucket_of,
        chances=cells,
        breaks=frozenset(str(term) for term in breaks),
        verbs=frozenset(str(word) for word in verbs),
        default_chance=default,
        table=table,
        offsets={term: block_of[bucket] for term, bucket in bucket_of.items()},
        unseen_offset=block_of[UNSEEN_BUCKET],
    )


def _flat_table(
    cells: dict[Cell, float], bucket_values: set[int], default: float
) -> tuple[tuple[float, ...], dict[int, int]]:
    """The chance of every reachable cell, one block of `_BLOCK` per prior bucket in use, and
    where each bucket's block starts; cells the lexicon lacks get the default, as in `chance`."""
    table: list[float] = []
    block_of: dict[int, int] = {}
    for bucket in sorted(bucket_values):
        block_of[bucket] = len(table)
        for count in range(1, MAX_COUNT + 1):
            for in_opening in (False, True):
                for in_contribution in (False, True):
                    cell = (count, bucket, in_opening, in_contribution)
                    table.append(cells.get(cell, default))
    return tuple(table), block_of
