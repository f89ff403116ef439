"""Which candidate phrase reads most like the paper's title: a linear score over a few features.

The weights (`weights.json`) are fitted by `benchmarks/fit_labels.py` on the ICML 2024 and ICLR
2024 lists: per abstract, a softmax over its candidates is fitted to the candidates' word overlap
(F1) with the real title. NeurIPS 2023 is held out. Refit, and bump `LABELER_VERSION`, whenever a
feature or a candidate generator changes.
"""

from __future__ import annotations

import functools
import json
import operator
import re
from collections.abc import Sequence
from pathlib import Path

from retrieval.labels.phrases import JOINERS, VERBS, Phrase
from retrieval.stopwords import STOPWORDS

WEIGHTS = Path(__file__).with_name("weights.json")
FEATURES = (
    "contribution", "opening", "description", "words", "words_squared", "sentence",
    "clause_end", "cut_preposition", "cut_verb", "cut_and", "salience", "frequent", "coined",
    "gerund", "parenthesis", "digit", "background",
)  # fmt: skip
_COINED = re.compile(r"[a-z][A-Z]|[A-Z]{2}|[A-Za-z][0-9]|[0-9][A-Za-z]")
_DIGIT = re.compile(r"[0-9]")
_WORD = re.compile(r"[a-z0-9]+")
_VERBISH = VERBS | {"leveraging", "achieving", "enabling", "allowing", "yielding", "based"}
# Words that open what the field does, not what the paper does: "Recent advances in ...".
_BACKGROUND = frozenset(
    [
        "recent", "there", "many", "current", "we", "in", "existing", "most", "while", "despite",
        "it", "modern", "traditional", "conventional", "prior", "previous", "although", "one",
    ]
)  # fmt: skip
_JOINERS = frozenset(JOINERS)


def features(phrase: Phrase, lowered: str, seen: dict[str, int] | None = None) -> list[float]:
    """The feature vector of one candidate (in `FEATURES` order); `lowered` is the abstract,
    `seen` caches its word counts across the candidates of one choice (they share words)."""
    text = phrase.text
    words = text.count(" ") + 1
    # How often the abstract says each content word (as a substring: "model" counts "models").
    seen = {} if seen is None else seen
    terms = repeats = frequent = 0
    for term in _WORD.findall(text.lower()):
        if term in STOPWORDS:
            continue
        count = seen.get(term)
        if count is None:
            count = seen[term] = lowered.count(term)
        terms += 1
        repeats += min(count - 1, 3)
        frequent += count >= 3
    digit = _DIGIT.search(text) is not None
    # The regex only when a capital or digit could make a coinage ("HarmBench", "GPT-4").
    coined = (digit or text[1:] != text[1:].lower()) and _COINED.search(text) is not None
    first = text.split(" ", 1)[0].lower()
    return [
        float(phrase.kind == "contribution"),
        float(phrase.kind == "opening"),
        float(phrase.kind == "description"),
        words / 10,
        (words / 10) ** 2,
        min(phrase.sentence, 5) / 5,
        float(not phrase.cut),
        float(bool(phrase.cut) and phrase.cut not in _VERBISH and phrase.cut not in _JOINERS),
        float(phrase.cut in _VERBISH),
        float(phrase.cut in _JOINERS),
        repeats / (3 * terms) if terms else 0.0,  # salience
        frequent / terms if terms else 0.0,
        float(coined),
        float(first.endswith("ing")),
        float("(" in text),
        float(digit),
        float(first in _BACKGROUND),
    ]


@functools.cache
def weights() -> tuple[float, ...]:
    loaded = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    return tuple(float(loaded.get(name, 0.0)) for name in FEATURES)  # new features weigh 0


def best(phrases: Sequence[Phrase], text: str) -> Phrase | None:
    """The highest-scoring candidate, the earliest on a tie."""
    if len(phrases) < 2:
        return phrases[0] if phrases else None
    lowered = text.lower()
    weight = weights()
    seen: dict[str, int] = {}
    top = 0
    top_score = 0.0
    for i, phrase in enumerate(phrases):
        # The features' products summed in their order, as `sum` would: the same floats.
        score = sum(map(operator.mul, weight, features(phrase, lowered, seen)))
        if i == 0 or score > top_score:
            top, top_score = i, score
    return phrases[top]
