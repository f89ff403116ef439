"""The fake engine is checked against the shells' engine type, so bot tests stay faithful."""

from __future__ import annotations

from pathlib import Path

from retrieval.api import EngineAPI
from tests.bot.fakes import FakeEngine

# mypy (run on this module) rejects the assignment if FakeEngine drifts from EngineAPI.
ENGINE: EngineAPI = FakeEngine()


async def test_fake_engine_answers_through_the_protocol() -> None:
    engine: EngineAPI = FakeEngine()
    answer = await engine.ask("moe routing", limit=2)
    assert [hit.rank for hit in answer.hits] == [1, 2]
    report = await engine.ingest([Path("a.txt"), Path("b.txt")], collection="X")
    assert report.files_read == 2 and report.collections == ("X",)
