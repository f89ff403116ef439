"""Reading lists: /save, /unsave, /saved (paginated) and the .md/.txt export."""

from __future__ import annotations

from bot.discord_shell.client import PaperBot
from tests.bot.discordfakes import ALICE, Recorder, click, slash
from tests.bot.fakes import PAPERS, FakeEngine
from tests.bot.helpers import labels, run


async def test_save_unsave_round_trip(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    saved = await run(bot, slash(bot, "save", {"id": "ICML2026-3"}))
    assert "Saved `icml2026-3`" in recorder.text(saved)
    assert recorder.callbacks(saved)[0].ephemeral
    again = await run(bot, slash(bot, "save", {"id": "icml2026-3"}))
    assert "already in your reading list" in recorder.text(again)
    removed = await run(bot, slash(bot, "unsave", {"id": "icml2026-3"}))
    assert "Removed `icml2026-3`" in recorder.text(removed)
    missing = await run(bot, slash(bot, "unsave", {"id": "icml2026-3"}))
    assert "is not in your reading list" in recorder.text(missing)
    assert engine.saved[ALICE] == []


async def test_save_unknown_paper_is_an_ephemeral_error(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(bot, slash(bot, "save", {"id": "nope-99"}))
    sent = recorder.callbacks(interaction)
    assert sent[0].ephemeral and "No paper has the id" in sent[0].body["data"]["content"]


async def test_empty_reading_list(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(bot, slash(bot, "saved"))
    assert "Nothing saved yet" in recorder.text(interaction)
    assert recorder.for_interaction(interaction)[0].ephemeral


async def test_saved_is_paginated(bot: PaperBot, recorder: Recorder, engine: FakeEngine) -> None:
    many = {f"icml2026-{n}": PAPERS[n % 5] for n in range(100, 123)}
    engine.papers.update(many)
    engine.saved[ALICE] = list(many)
    interaction = await run(bot, slash(bot, "saved"))
    body = recorder.visible(interaction)[-1]
    assert labels(body) == ["First", "Prev", "1/3", "Next", "Last"]
    message = recorder.messages[recorder.for_interaction(interaction)[-1].message_id]
    last = await click(bot, message, label="Last")
    sent = recorder.for_interaction(last)
    assert sent[0].body["type"] == 7  # in-memory pages update the message directly
    assert sent[0].body["data"]["embeds"][0]["footer"]["text"].startswith("Page 3/3")


async def test_export_markdown_and_text(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    engine.saved[ALICE] = ["icml2026-1", "neurips2025-5"]
    md = await run(bot, slash(bot, "saved", {"export": "md"}))
    name, data = recorder.for_interaction(md)[-1].files[0]
    assert name == "reading-list.md"
    text = data.decode()
    assert text.startswith("# Reading list") and "## Expert Choice Routing" in text
    assert "<https://github.com/example/moe>" in text
    txt = await run(bot, slash(bot, "saved", {"export": "txt"}))
    name, data = recorder.for_interaction(txt)[-1].files[0]
    assert name == "reading-list.txt" and "id: icml2026-1" in data.decode()


async def test_unsave_autocompletes_from_the_reading_list(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    engine.saved[ALICE] = ["icml2026-1", "neurips2025-5"]
    interaction = await run(bot, slash(bot, "unsave", {"id": "choice"}, focused="id"))
    choices = recorder.callbacks(interaction)[0].body["data"]["choices"]
    assert [c["value"] for c in choices] == ["neurips2025-5"]
