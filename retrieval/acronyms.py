"""Acronyms the corpus defines ("Mixture of Experts (MoE)"), as a two-way query expansion table.

The table is derived from the papers themselves at index time, never hand-written, so a query
"MoE" finds papers that only write "mixture of experts", and the reverse.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

# A second meaning is kept only when the corpus uses it often enough to be a real sense.
_MIN_SHARE = 0.25
_MAX_MEANINGS = 2
# An acronym that is also a common word ("SPACE", "CaSED" stemmed to "case", "FAST") is not
# expanded: when many more papers use the word than define the acronym, a query's "space" is
# the word. Real acronyms sit far below this (LLM 1.2, RL 1.4, CLIP 14, AI 21 papers using the
# word per paper defining it, on the conference lists); word-acronyms far above (FAST 269).
COMMON_WORD_RATIO = 25


# Chat words that corpora also define as acronyms ("ok" option keyboard, "pls" partial labels,
# "bot" Boosting of Thoughts): in a question they are never expanded. The filler among them is
# also dropped from a searched chat message ("bot" stays: "bot detection" is a topic).
FILLER_WORDS = frozenset(
    [
        "pls",
        "plz",
        "please",
        "ok",
        "okay",
        "lol",
        "lmao",
        "thx",
        "ty",
        "btw",
        "imo",
        "tbh",
        "idk",
        "fyi",
        "omg",
        "hm",
        "hmm",
        "hmmm",
        "yo",
        "um",
        "umm",
        "uh",
        "cool",
        "nah",
        "nope",
        "yeah",
        "yep",
        "huh",
        "meh",
    ]
)
CHAT_WORDS = FILLER_WORDS | {"bot", "hi", "hey", "yo"}


@dataclass(frozen=True, slots=True)
class Alternative:
    """Another way to write part of a query: `written` as typed, `other` the other form.

    Ranking credits a paper with the better of the two forms, never both, so a paper that defines
    "Mixture of Experts (MoE)" is not counted twice for the same idea. The other form counts only
    where a paper holds all of its words: "learning" alone is not "reinforcement learning".
    """

    written: tuple[str, ...]
    other: tuple[str, ...]
    note: str


@dataclass(frozen=True, slots=True)
class AcronymTable:
    short_to_long: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    long_to_short: dict[tuple[str, ...], str] = field(default_factory=dict)
    surface: dict[str, str] = field(default_factory=dict)
    long_surface: dict[tuple[str, ...], str] = field(default_factory=dict)
    long_lengths: tuple[int, ...] = ()

    @classmethod
    def build(
        cls,
        rows: Iterable[tuple[str, str, int]],
        analyze: Callable[[str], list[str]],
        document_frequency: Callable[[str], int] | None = None,
    ) -> AcronymTable:
        """rows: (acronym, long form, number of papers defining it), as the store keeps them;
        `document_frequency` (papers holding an analyzed term) leaves out acronyms that are
        common words (COMMON_WORD_RATIO)."""
        counts: dict[str, dict[tuple[str, ...], int]] = defaultdict(lambda: defaultdict(int))
        surface: dict[str, str] = {}
        long_surface: dict[tuple[str, ...], str] = {}
        for acronym, long_form, papers in rows:
            analyzed = analyze(acronym)
            expansion = tuple(analyze(long_form))
            if len(analyzed) != 1 or len(expansion) < 2 or analyzed[0] in expansion:
                continue
            short = analyzed[0]
            counts[short][expansion] += papers
            surface.setdefault(short, acronym)
            long_surface.setdefault(expansion, long_form.lower())
        short_to_long: dict[str, tuple[tuple[str, ...], ...]] = {}
        long_to_short: dict[tuple[str, ...], str] = {}
        for short, meanings in counts.items():
            defined = sum(meanings.values())
            if document_frequency and document_frequency(short) > COMMON_WORD_RATIO * defined:
                continue
            ranked = sorted(meanings.items(), key=lambda item: (-item[1], item[0]))
            best = ranked[0][1]
            kept = tuple(
                expansion for expansion, n in ranked[:_MAX_MEANINGS] if n >= best * _MIN_SHARE
            )
            short_to_long[short] = kept
            for expansion in kept:
                long_to_short.setdefault(expansion, short)
        lengths = tuple(sorted({len(key) for key in long_to_short}))
        return cls(short_to_long, long_to_short, surface, long_surface, lengths)

    def __len__(self) -> int:
        return len(self.short_to_long)

    def alternatives(self, terms: Sequence[str]) -> tuple[Alternative, ...]:
        """Long forms for acronyms in `terms`, and acronyms for long forms written out."""
        present = set(terms)
        found: list[Alternative] = []
        for term in dict.fromkeys(terms):
            if term in CHAT_WORDS:
                continue  # "pls" is please, not partial labels
            for expansion in self.short_to_long.get(term, ()):
                if not set(expansion) <= present:
                    long_form = self.long_surface.get(expansion, " ".join(expansion))
                    note = f"{self.surface.get(term, term)} → {long_form}"
                    found.append(Alternative((term,), expansion, note))
        for length in self.long_lengths:
            for start in range(len(terms) - length + 1):
                window = tuple(terms[start : start + length])
                short = self.long_to_short.get(window)
                if short is not None and short not in present:
                    present.add(short)
                    long_form = self.long_surface.get(window, " ".join(window))
                    note = f"{long_form} → {self.surface.get(short, short)}"
                    found.append(Alternative(window, (short,), note))
        return tuple(found)
