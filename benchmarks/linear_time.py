"""Time the hostile inputs of the linear-time tests against their bounds.

    PYTHONPATH=. .venv/bin/python benchmarks/linear_time.py [--repeats 3] [--questions]

The tests feed these shapes (long runs of one character, nested brackets, repeated phrases: what
made a regex backtrack or a loop rescan) to the analyzer, the sentence splitter, the labeler,
the paper-id parser and the chat parser, and check what comes back. How long that takes is
measured here instead, so that no test fails because the shared machine was busy: a quadratic
loop or catastrophic backtracking is slow on every run and shows up as NOT MET.

Process CPU time, the fastest of `--repeats` runs per input. Prints one line per group (its
slowest input and the bound) and exits 1 when any bound is not met.

`--questions` also builds the reliability tests' synthetic corpus (5,000 papers, seconds)
and times their hostile questions through `Engine.ask` (under 2 s each, on the default engine and
one allowing 100k-character questions) and each long-question pattern at 20k and 80k characters
(the 80k one may cost at most 8x the 20k one, plus 20 ms for timer noise).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from retrieval.conversation.intents import parse_message
from retrieval.engine import Engine
from retrieval.ids import paper_key
from retrieval.labels import derive_label, extract_urls
from retrieval.sentences import split_sentences
from tests.reliability.conftest import _build_questions_db
from tests.reliability.helpers import make_settings
from tests.reliability.test_hostile_questions import PATTERNS, QUESTIONS, ask_outcome
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

QUESTION_SECONDS = 2.0


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


async def _asked_seconds(engine: Engine, question: str, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        await ask_outcome(engine, question)
        best = min(best, time.process_time() - started)
    return best


async def questions(repeats: int) -> int:
    """The hostile-question bounds; how many were not met."""
    failed = 0
    with tempfile.TemporaryDirectory() as folder:
        db_path = await _build_questions_db(Path(folder))
        engine = await Engine.open(make_settings(db_path), ingest_seeds=False)
        wide = await Engine.open(
            make_settings(db_path, max_query_chars=100_000, max_query_terms=1024),
            ingest_seeds=False,
        )
        try:
            await ask_outcome(engine, "mixture experts routing")  # load kernels and caches
            times = [
                (await _asked_seconds(which, text, 1), name)
                for name, text in QUESTIONS.items()
                for which in (engine, wide)
            ]
            slowest, name = max(times)
            verdict = "MET" if slowest < QUESTION_SECONDS else "NOT MET"
            failed += verdict != "MET"
            print(
                f"hostile questions: slowest {slowest * 1000:.0f} ms ({name}) over {len(times)}; "
                f"bound {QUESTION_SECONDS * 1000:g} ms: {verdict}"
            )
            for pattern, build in sorted(PATTERNS.items()):
                small = await _asked_seconds(wide, build(20_000), repeats)
                large = await _asked_seconds(wide, build(80_000), repeats)
                ok = large <= 8 * small + 0.02 and large < QUESTION_SECONDS
                failed += not ok
                print(
                    f"question pattern {pattern}: 20k chars {small * 1000:.1f} ms, 80k chars "
                    f"{large * 1000:.1f} ms (bound 8x + 20 ms): {'MET' if ok else 'NOT MET'}"
                )
        finally:
            await engine.close()
            await wide.close()
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--questions", action="store_true", help="the hostile questions too")
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
    if args.questions:
        failed += asyncio.run(questions(args.repeats))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
