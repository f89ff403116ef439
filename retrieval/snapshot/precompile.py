"""Compile the engine's numba kernels into their cache, once, right after installing.

numba compiles a kernel at its first call: about 48 s for top-k on a 2-core machine, after which
every process loads it from the cache in well under a second. `run.py` runs this after each
install, so the first question of a new install is not the slow one:

    python -m retrieval.snapshot.precompile

It asks one question of a throwaway SQLite corpus of three abstracts (an acronym, several words,
excerpts: every kernel a question runs), with the same argument types real corpora give. It
never touches the configured database.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from retrieval.engine import Engine
from retrieval.parameters import Settings
from retrieval.snapshot import compiled

_LIST = """Kernel warm-up papers

Retrieval-augmented generation (RAG) systems retrieve passages for a language model. Attacks on
RAG retrievers poison the corpus so that the retriever returns adversarial passages.

Mixture of experts (MoE) models route each token to a few experts, and routing decides quality.

Graph neural networks oversmooth as they grow deep, and residual connections keep them apart.
"""
_QUESTION = "attacks on retrieval-augmented generation retrievers"


async def compile_kernels(folder: Path) -> int:
    """Ask one question of a throwaway corpus in `folder`; the number of papers it found."""
    seeds = folder / "seeds"
    seeds.mkdir()
    (seeds / "warm.txt").write_text(_LIST, encoding="utf-8")
    settings = Settings(
        db_path=folder / "warm.db",
        database_url=None,
        index_dir=folder / "index",
        seeds_dir=seeds,
    )
    async with await Engine.open(settings, warm=False) as engine:
        answer = await engine.ask(_QUESTION)
    return answer.total


def main() -> int:
    """Progress on stderr: `run.py` runs this before a command whose stdout may be JSON."""
    if not compiled.available():
        print("paperbot: numba is not installed; questions use the numpy paths", file=sys.stderr)
        return 0
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="paperbot-kernels-") as folder:
            found = asyncio.run(compile_kernels(Path(folder)))
    except KeyboardInterrupt:
        return 130  # run.py says it was interrupted
    except Exception as error:  # best effort: the kernels still compile at their first use
        print(f"paperbot: could not compile the search kernels now: {error}", file=sys.stderr)
        return 1
    took = time.perf_counter() - started
    # `found` is only a self-check (the warm-up question matched its abstract); a user needs
    # to know that the slow part is over and will not come back.
    checked = "" if found else " (the warm-up question found nothing; answers still work)"
    print(
        f"paperbot: search engine ready in {took:.0f} s; saved, so later runs skip this{checked}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
