"""Time `parse_message` per message: ordinary chat messages and 4,000-character hostile ones.

.venv/bin/python benchmarks/intent_speed.py [--repeat 2000]
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

from retrieval.conversation.intents import parse_message

MESSAGES = [
    "hi",
    "thanks!",
    "icml2026-13",
    "the second one",
    "more",
    "compare 1 and 3",
    "does the second one have code?",
    "what is DRIFT?",
    "ICML 2026 papers about mixture of experts",
    "which papers attack RAG retrievers?",
    "is there any work on watermarking LLM text?",
    'papers on "mixture of experts" -survey in:icml2026',
]
HOSTILE = ["icml2026 " * 444, "hi " * 1333, "compare 1 and " * 285, "a" * 4000, "ICML'" * 800]


@dataclass(frozen=True)
class Loaded:
    name: str
    slug: str


COLLECTIONS = [Loaded("ICML 2026", "icml2026"), Loaded("ICLR 2024", "iclr2024")]


def _per_call(text: str, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        parse_message(text, COLLECTIONS)
    return (time.perf_counter() - start) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=2000)
    repeat = parser.parse_args().repeat
    times = {message: _per_call(message, repeat) for message in MESSAGES}
    for message, seconds in sorted(times.items(), key=lambda item: -item[1]):
        print(f"{seconds * 1e6:8.1f} µs  {message}")
    median, slowest = statistics.median(times.values()), max(times.values())
    print(f"median {median * 1e6:.1f} µs, max {slowest * 1e6:.1f} µs")
    for text in HOSTILE:
        print(f"{_per_call(text, 20) * 1e3:8.2f} ms  {len(text)} chars: {text[:20]!r}...")


if __name__ == "__main__":
    main()
