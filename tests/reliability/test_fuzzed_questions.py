"""Issue 5 §4, fuzzed: any question text, offset and limit is answered or refused with one line
(`benchmarks/linear_time.py --questions` times the hand-written hostile questions)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval.engine import Engine
from tests.reliability.helpers import make_settings, record, scale
from tests.reliability.test_hostile_questions import ask_outcome

# -- fuzzing -----------------------------------------------------------------------------------

QUESTION_TEXT = st.text(
    alphabet=st.sampled_from(list('"-: in\\$*_`[](){}<>@#&;.\u200b\u202eé模')) | st.characters(),
    max_size=300,
)


@pytest.mark.slow
def test_fuzzed_questions(questions_db: Path) -> None:
    examples = scale(150, 3000)
    outcomes = {"answered": 0, "refused": 0}
    with asyncio.Runner() as runner:
        engine = runner.run(Engine.open(make_settings(questions_db), ingest_seeds=False))
        try:

            @settings(
                max_examples=examples,
                deadline=None,
                database=None,
                suppress_health_check=[HealthCheck.too_slow],
            )
            @given(question=QUESTION_TEXT, offset=st.integers(-5, 60), limit=st.integers(1, 10))
            def ask(question: str, offset: int, limit: int) -> None:
                outcome = runner.run(ask_outcome(engine, question, offset=offset, limit=limit))
                outcomes[outcome.split()[0]] += 1

            ask()
        finally:
            runner.run(engine.close())
    record(
        "hostile questions",
        f"hypothesis questions ({outcomes['answered']} answered, {outcomes['refused']} refused)",
        cases=sum(outcomes.values()),
    )
