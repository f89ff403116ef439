"""What answers show as excerpts, recorded for a fixed set of questions: the golden file the
excerpt code is compared with (`tests/retrieval/excerpts_golden.json`, over the seed lists),
written by `benchmarks/excerpt_golden.py`.

Questions come from the abstracts themselves (three-word windows of their sentences, so nearly
every one matches something) plus a few with operators; each is asked through `Engine.ask` at
two excerpt budgets (the default and the smallest, which cuts sentences to windows), and
`Engine.explain` gives the best sentence of the first papers. An excerpt is written as text
with matched words in ⟦ ⟧.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from config.settings import Settings
from retrieval.engine import Engine
from retrieval.lists import find_paper_files, read_paper_file
from retrieval.models import Excerpt

WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]{2,}")
QUESTIONS = 200
LIMIT = 3
SMALL_BUDGET = 80
FIXED = (
    "mixture of experts routing",
    '"language models" -vision',
    "zzzz qqqq",
    "reinforcement learning -policy",
    "LLM reasoning physics",
    "diffusion",
)


def questions(abstracts: Sequence[str], count: int) -> list[str]:
    """`count` questions: fixed ones, then three-word windows taken in turn from the abstracts
    (from their start, middle and end), deterministic."""
    found = list(FIXED)
    words = [WORD.findall(abstract) for abstract in abstracts]
    round_ = 0
    while len(found) < count and round_ < 3:
        for own in words:
            if len(found) >= count:
                break
            if len(own) < 3:
                continue
            start = (len(own) - 3) * round_ // 2
            found.append(" ".join(own[start : start + 3]))
        round_ += 1
    return found


def shown(excerpt: Excerpt | None) -> str | None:
    if excerpt is None:
        return None
    return "".join(f"⟦{span.text}⟧" if span.match else span.text for span in excerpt.spans)


async def record(engine: Engine, texts: Sequence[str], limit: int) -> list[dict[str, Any]]:
    """Each question's page (ids and excerpts), lead and the explained best sentences."""
    rows = []
    for text in texts:
        answer = await engine.ask(text, limit=limit)
        ids = [hit.paper.id for hit in answer.hits]
        explained = await engine.explain(ids, text) if ids else []
        rows.append(
            {
                "question": text,
                "ids": ids,
                "excerpts": [shown(hit.excerpt) for hit in answer.hits],
                "lead": shown(answer.lead),
                "lead_id": answer.lead_paper_id,
                "explain": [shown(found) for found in explained],
            }
        )
    return rows


async def run(seeds: Path, db: Path) -> dict[str, Any]:
    """Budget -> the recorded rows, for the lists in `seeds` ingested into a new `db`."""
    abstracts = [
        paper.abstract
        for path in find_paper_files([seeds])
        for paper in read_paper_file(path).papers
    ]
    texts = questions(abstracts, QUESTIONS)
    found: dict[str, Any] = {}
    for budget in (None, SMALL_BUDGET):
        values: dict[str, Any] = {"db_path": db, "seeds_dir": seeds}
        if budget is not None:
            values["excerpt_chars"] = budget
        settings = Settings(_env_file=None, **values)  # type: ignore[call-arg]
        async with await Engine.open(settings) as engine:
            found[str(settings.excerpt_chars)] = await record(engine, texts, LIMIT)
    return found
