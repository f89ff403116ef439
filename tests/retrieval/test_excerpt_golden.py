"""Answers show the excerpts, leads and explained sentences the golden file recorded (over the
seed lists; re-record with `benchmarks/excerpt_golden.py record` when a change is meant)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import SEEDS
from tests.retrieval.excerpt_golden import run

GOLDEN = Path(__file__).with_name("excerpts_golden.json")


async def test_answers_show_the_recorded_excerpts(tmp_path: Path) -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    found = await run(SEEDS, tmp_path / "db" / "paperbot.db")
    assert sorted(found) == sorted(golden)
    for budget, rows in golden.items():
        assert len(found[budget]) == len(rows) >= 100
        for want, got in zip(rows, found[budget], strict=True):
            assert got == want, (budget, want["question"])
