"""Whether a message read as a question or a search asks about a paper the user has in front of
them or searches for other papers, judged with the dialogue state: a logistic regression over
the classifier's reading, what the message points at, and how many of its words the open paper
uses. "open source marl benchmarks" right after opening a paper on mean-field games is a search;
"what graph datasets do they run on" is a question about that paper. ChatService asks it of
every search and every question naming no paper; a search becomes a question only when the
message also has the form of one about the open paper (its topic words are the paper's, or it
points at it), since on a newcomer's topic switches the model alone read "what about protein
folding" as a question about a paper on distillation.

The weights (`question_or_search.json`, beside this module) are fitted by
`benchmarks/fit_question_or_search.py` on turns of the training sessions replayed through the
chat (`benchmarks/focus_turns.py`); docs/conversation.md has the cross-validation.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from retrieval import text as analysis
from retrieval.logistic import LogisticModel
from retrieval.paper_answers import (
    is_question,
    names_a_kind_of_answer,
    points_at_the_paper,
    topic_words,
    uses_its_names,
)

MODEL_FILE = Path(__file__).with_name("question_or_search.json")
FEATURES = (
    "odds",  # log(P(question) / P(search)) by the intent classifier, clipped to +-8
    "help",  # P(help) by the intent classifier
    "focus",  # a paper is open (in focus)
    "listed",  # a result list is shown
    "shaped",  # a question word first or a question mark last
    "points",  # "they", "their", "this", "the authors" ...
    "it",  # "it" or "its"
    "kind",  # asks for a kind of answer only a paper gives (result, data, code ...)
    "topic",  # log(1 + topic words)
    "held",  # share of the topic words the open paper's abstract uses (0 with none open)
    "new",  # log(1 + topic words the open paper does not use; all of them with none open)
    "names",  # uses a name the open paper writes ("VPL", "GNNs")
    "words",  # log(1 + words)
)
_IT = re.compile(r"\b(?:it|its|it's)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Context:
    """What the user has in front of them when the message arrives."""

    open_paper: str | None  # title and abstract of the paper in focus, if one is
    listed: bool  # a result list is shown


def features(message: str, probabilities: Mapping[str, float], context: Context) -> list[float]:
    """The `FEATURES` of one message, in that order."""
    question = max(probabilities.get("question", 0.0), 1e-6)
    search = max(probabilities.get("search", 0.0), 1e-6)
    topic = topic_words(message)
    text = context.open_paper
    held = set(analysis.analyze(text)) if text else set()
    used = sum(term in held for term in topic)
    return [
        max(-8.0, min(8.0, math.log(question / search))),
        probabilities.get("help", 0.0),
        float(text is not None),
        float(context.listed),
        float(is_question(message)),
        float(points_at_the_paper(message)),
        float(_IT.search(message) is not None),
        float(names_a_kind_of_answer(message)),
        math.log1p(len(topic)),
        used / len(topic) if topic and text else 0.0,
        math.log1p(len(topic) - used),
        float(bool(text) and uses_its_names(message, text or "")),
        math.log1p(len(message.split())),
    ]


def asks_about_the_paper(
    message: str,
    probabilities: Mapping[str, float],
    context: Context,
    model: LogisticModel | None = None,
) -> bool:
    """Whether `message` is a question about the paper in front of the user rather than a
    search: the fitted model's probability reaches its threshold. (A message asking for papers
    to be found keeps the parser's reading; the chat does not ask the model.)"""
    fitted = model or shipped_model()
    row = features(message, probabilities, context)
    return bool(fitted.probability([row], FEATURES)[0] >= fitted.threshold)


@cache
def shipped_model() -> LogisticModel:
    """The fitted model that ships with paperbot, read once."""
    return LogisticModel.from_json(json.loads(MODEL_FILE.read_text(encoding="utf-8")), FEATURES)
