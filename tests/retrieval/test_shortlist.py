"""A guild's shortlist over the real engine: one list per guild, who/when/note kept, ids folded,
unknown papers refused, exports carry the provenance."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Callable

import pytest

from config.settings import Settings
from retrieval.engine import Engine
from retrieval.errors import PaperNotFound
from tests.conftest import SEEDS


@pytest.fixture
async def engine(make_settings: Callable[..., Settings]) -> AsyncIterator[Engine]:
    async with await Engine.open(make_settings(seeds_dir=SEEDS)) as opened:
        yield opened


async def test_add_show_remove_per_guild(engine: Engine) -> None:
    row, added = await engine.shortlist.add(1, "ICML2026-13", 42, "  read   before Friday ")
    assert added and row.paper.id == "icml2026-13" and row.added_by == 42
    assert row.note == "read before Friday" and row.added_at[:4] == "2026"
    again, added_again = await engine.shortlist.add(1, "icml2026-13", 43, "other note")
    assert not added_again and again.added_by == 42 and again.note == "read before Friday"
    await engine.shortlist.add(1, "icml2026-6", 43)
    await engine.shortlist.add(2, "icml2026-7", 44)
    assert [r.paper.id for r in await engine.shortlist.entries(1)] == ["icml2026-13", "icml2026-6"]
    assert [r.paper.id for r in await engine.shortlist.entries(2)] == ["icml2026-7"]
    assert await engine.shortlist.remove(1, "ICML2026-13")
    assert not await engine.shortlist.remove(1, "icml2026-13")
    assert [r.paper.id for r in await engine.shortlist.entries(1)] == ["icml2026-6"]


async def test_unknown_paper_is_refused(engine: Engine) -> None:
    with pytest.raises(PaperNotFound):
        await engine.shortlist.add(1, "icml2026-999", 42)
    assert await engine.shortlist.entries(1) == []


async def test_export_names_curators_and_forgotten_ones(engine: Engine) -> None:
    await engine.shortlist.add(1, "icml2026-13", 42, "first")
    await engine.shortlist.add(1, "icml2026-6", 43)
    await engine.privacy.forget(43)
    name, data, count = await engine.shortlist.export(1, "csv", names={42: "ada"})
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert (name, count) == ("server-reading-list.csv", 2)
    assert [(r["id"], r["added_by"], r["note"]) for r in rows] == [
        ("icml2026-13", "ada", "first"),
        ("icml2026-6", "a former member", ""),
    ]
