"""The intent classifier: a chat message -> a probability per intent.

A `TextClassifier` (`retrieval/text_classifier.py`) fitted by `benchmarks/fit_intents.py` on the
hand-written sessions of `benchmarks/data/intents_*train*.jsonl` and judged on a held-out set
written separately (docs/conversation.md); the weights ship as `intent_model.npz` beside this
module.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from retrieval.text_classifier import TextClassifier

MODEL_FILE = Path(__file__).with_name("intent_model.npz")
# Intents as the data names them (benchmarks/data/intents_*.jsonl).
INTENTS = (
    "greeting",
    "thanks",
    "small_talk",
    "help",
    "open",
    "similar",
    "more",
    "question",
    "compare",
    "refine",
    "search",
)


@cache
def shipped_model() -> TextClassifier:
    """The model that ships with paperbot, loaded once."""
    return TextClassifier.load(MODEL_FILE)
