"""Time the hostile inputs of the linear-time tests against their bounds.

    PYTHONPATH=. .venv/bin/python benchmarks/linear_time.py [--repeats 3]

The tests feed these shapes (long runs of one character, nested brackets, repeated phrases: what
made a regex backtrack or a loop rescan) to the analyzer, the sentence splitter, the labeler,
the paper-id parser and the chat parser, and check what comes back. How long that takes is
measured here instead, so that no test fails because the shared machine was busy: a quadratic
loop or catastrophic backtracking is slow on every run and shows up as NOT MET.

Process CPU time, the fastest of `--repeats` runs per input. Prints one line per group (its
slowest input and the bound) and exits 1 when any bound is not met.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from retrieval.conversation.intents import parse_message
from retrieval.ids import paper_key
from retrieval.labels import derive_label, extract_urls
from retrieval.sentences import split_sentences
from tests.retrieval.conversation.conftest import COLLECTIONS
from tests.retrieval.conversation.test_properties import (
    HOSTILE_SHAPES,
    NORMAL_MESSAGES,
    PAST_THE_CHAT_LIMIT,
)
from tests.retrieval.conversation.test_sentence_rules import LONG_WORDS
from tests.retrieval.test_labels import HOSTILE_TEXTS
from tests.retrieval.test_sentences import LONG_INPUTS
from tests.retrieval.test_text import long_texts, scan


@dataclass(frozen=True)
class Group:
    name: str
    call: Callable[[str], object]
    inputs: Sequence[str]
    bound_seconds: float  # per input


def _label(text: str) -> None:
    derive_label(text)
    extract_urls(text)


def _parse(text: str) -> None:
    parse_message(text, COLLECTIONS)


GROUPS = [
    Group("analyzer (analyze, word_spans, acronyms), 100k chars", scan, long_texts(100_000), 1.0),
    Group("sentence splitter, 100k chars", split_sentences, LONG_INPUTS, 1.0),
    Group("labeler (derive_label + extract_urls)", _label, HOSTILE_TEXTS, 0.5),
    Group("paper id parser, 100k chars", paper_key, LONG_WORDS, 0.05),
    Group("chat parser, 4,000 chars", _parse, HOSTILE_SHAPES, 0.05),
    Group("chat parser, just past the chat limit", _parse, PAST_THE_CHAT_LIMIT, 0.005),
    # The target is about 100 µs a message.
    Group("chat parser, a normal message", _parse, NORMAL_MESSAGES, 0.001),
]


def fastest(call: Callable[[str], object], text: str, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        call(text)
        best = min(best, time.process_time() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    failed = 0
    for group in GROUPS:
        group.call(group.inputs[0])  # warm caches and compiled regexes
        times = [(fastest(group.call, text, args.repeats), text) for text in group.inputs]
        slowest, text = max(times)
        verdict = "MET" if slowest < group.bound_seconds else "NOT MET"
        failed += verdict != "MET"
        print(
            f"{group.name}: slowest {slowest * 1000:.2f} ms ({text[:16]!r}, {len(text)} chars) "
            f"over {len(times)} inputs; bound {group.bound_seconds * 1000:g} ms: {verdict}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
