"""The engine stays a thin façade: its jobs live in their own modules."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_engine_facade_stays_under_250_lines() -> None:
    lines = (ROOT / "retrieval" / "engine.py").read_text(encoding="utf-8").count("\n")
    assert lines < 250, f"retrieval/engine.py has {lines} lines; move a job into its own module"
