"""Time `Engine.ask` end to end (rank + fetch + excerpts) on an existing database.

    .venv/bin/python benchmarks/ask_latency.py [--db PATH] [--repeat 20]

With no --db it uses a fresh temporary database holding only the bundled seeds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from config.settings import Settings
from retrieval.engine import Engine

QUESTIONS = [
    "which papers attack RAG retrievers?",
    "anything on MoE routing?",
    "poisoning attacks on retrieval-augmented generation",
    "long-context attention sparsity",
    "reinforcement learning for LLM reasoning",
    "diffusion models for image generation",
    "graph neural networks oversmoothing",
    "is there any work on watermarking LLM text?",
    "federated learning privacy",
    "benchmark for multi-agent reasoning",
    "test-time scaling of language models",
    "causal discovery with few tests",
]


async def measure(db: Path, repeat: int) -> None:
    settings = Settings(_env_file=None, db_path=db)  # type: ignore[call-arg]
    started = time.perf_counter()
    engine = await Engine.open(settings)
    await engine.ask(QUESTIONS[0])
    cold = (time.perf_counter() - started) * 1000
    timings = []
    try:
        for _ in range(repeat):
            for question in QUESTIONS:
                begin = time.perf_counter()
                await engine.ask(question)
                timings.append((time.perf_counter() - begin) * 1000)
        stats = await engine.stats()
    finally:
        await engine.close()
    timings.sort()
    p99 = timings[int(0.99 * (len(timings) - 1))]
    p95 = timings[int(0.95 * (len(timings) - 1))]
    print("| papers | questions | ask p50 | ask p95 | ask p99 | open + first answer |")
    print("|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {stats.papers:,} | {len(timings)} | {statistics.median(timings):.2f} ms "
        f"| {p95:.2f} ms | {p99:.2f} ms | {cold:.0f} ms |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(measure(args.db or Path(folder) / "seeds.db", args.repeat))


if __name__ == "__main__":
    main()
