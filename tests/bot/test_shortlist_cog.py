"""/shortlist over the real engine: curators only for add/remove, public paged list with who and
when, exports in every format."""

from __future__ import annotations

import bibtexparser

from bot.discord_shell.client import PaperBot
from retrieval.engine import Engine
from tests.bot.discordfakes import ALICE, BOB, Recorder, slash
from tests.bot.helpers import run
from tests.bot.test_real_engine import real, real_settings  # noqa: F401  (fixtures)

MANAGE_MESSAGES = 1 << 13


async def test_curate_show_export_remove(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, _ = real
    refused = await run(bot, slash(bot, "shortlist add", {"id": "icml2026-13"}, user_id=BOB))
    assert "needs the Manage Messages permission" in recorder.text(refused)
    assert recorder.callbacks(refused)[0].ephemeral
    added = await run(
        bot,
        slash(
            bot,
            "shortlist add",
            {"id": "ICML2026-13", "note": "for Friday"},
            permissions=MANAGE_MESSAGES,
        ),
    )
    assert "Added `icml2026-13`" in recorder.text(added)
    assert not recorder.for_interaction(added)[-1].ephemeral
    await run(bot, slash(bot, "shortlist add", {"id": "icml2026-6"}, permissions=MANAGE_MESSAGES))
    twice = await run(
        bot, slash(bot, "shortlist add", {"id": "icml2026-6"}, permissions=MANAGE_MESSAGES)
    )
    assert "already on the list (added by <@" in recorder.text(twice)

    shown = await run(bot, slash(bot, "shortlist show", user_id=BOB))
    text = recorder.text(shown)
    assert not any(sent.ephemeral for sent in recorder.for_interaction(shown))
    assert text.index("`icml2026-13`") < text.index("`icml2026-6`")
    assert f"added by <@{ALICE}> on 20" in text and ": for Friday" in text

    for fmt, suffix in (("bibtex", "bib"), ("csv", "csv"), ("md", "md"), ("txt", "txt")):
        exported = await run(bot, slash(bot, "shortlist export", {"format": fmt}, user_id=BOB))
        name, data = recorder.for_interaction(exported)[-1].files[0]
        assert name == f"server-reading-list.{suffix}"
        assert "icml2026-13" in data.decode() and "icml2026-6" in data.decode()
        if fmt == "bibtex":
            keys = [e["ID"] for e in bibtexparser.loads(data.decode()).entries]
            assert keys == ["paperbot:icml2026-13", "paperbot:icml2026-6"]

    removed = await run(
        bot, slash(bot, "shortlist remove", {"id": "icml2026-13"}, permissions=MANAGE_MESSAGES)
    )
    assert "Removed `icml2026-13`" in recorder.text(removed)
    after = await run(bot, slash(bot, "shortlist show"))
    assert "icml2026-13" not in recorder.text(after) and "(1)" in recorder.text(after)


async def test_an_empty_list_exports_no_file_and_says_how_to_fill_it(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, _ = real
    exported = await run(bot, slash(bot, "shortlist export", {"format": "bibtex"}, user_id=BOB))
    sent = recorder.for_interaction(exported)
    assert not any(message.files for message in sent)
    assert "The server reading list is empty" in recorder.text(exported)
    assert "`/shortlist add`" in recorder.text(exported)
    assert sent[-1].ephemeral


async def test_shortlist_needs_a_server(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, _ = real
    dm = await run(bot, slash(bot, "shortlist show", guild=False))
    text = recorder.text(dm)
    assert "The server reading list lives in servers" in text
