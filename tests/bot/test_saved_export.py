"""/saved export: BibTeX and CSV files attached to one private message."""

from __future__ import annotations

import csv
import io

import bibtexparser

from bot.discord_shell.client import PaperBot
from tests.bot.discordfakes import ALICE, Recorder, slash
from tests.bot.fakes import FakeEngine
from tests.bot.helpers import run


async def test_saved_export_bibtex_and_csv(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    engine.saved[ALICE] = ["icml2026-1", "neurips2025-5"]
    bib = await run(bot, slash(bot, "saved", {"export": "bibtex"}))
    sent = recorder.for_interaction(bib)[-1]
    name, data = sent.files[0]
    assert name == "reading-list.bib" and sent.ephemeral
    entries = bibtexparser.loads(data.decode()).entries
    assert [e["ID"] for e in entries] == ["paperbot:icml2026-1", "paperbot:neurips2025-5"]
    assert entries[1]["title"] == "Expert Choice Routing" and entries[1]["year"] == "2025"
    table = await run(bot, slash(bot, "saved", {"export": "csv"}))
    name, data = recorder.for_interaction(table)[-1].files[0]
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert name == "reading-list.csv" and [r["id"] for r in rows] == ["icml2026-1", "neurips2025-5"]
