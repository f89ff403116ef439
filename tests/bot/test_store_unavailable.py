"""The database going away while the bot runs: every path a question takes (slash commands,
a deferred answer, a chat message) tells the user privately, once, to try again, within
Discord's 3 s deadline; nothing is logged as an error and no traceback is written."""

from __future__ import annotations

import logging
import time

import pytest

from bot.discord_shell.client import PaperBot
from retrieval.errors import StoreUnavailable
from tests.bot.discordfakes import Recorder, chat_message, slash
from tests.bot.fakes import FakeEngine
from tests.bot.helpers import run
from tests.bot.test_chat import chat, replies

# The PostgreSQL store gives up after QUICK_SECONDS (2 s); the fake waits about as long.
STORE_GIVES_UP = 1.9


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("ask", {"question": "models routing attention"}),  # defers, then follows up
        ("save", {"id": "icml2026-1"}),  # answers without deferring
        ("paper", {"id": "icml2026-1"}),
    ],
)
async def test_a_command_during_an_outage_gets_one_private_retry_line_in_time(
    bot: PaperBot,
    recorder: Recorder,
    engine: FakeEngine,
    caplog: pytest.LogCaptureFixture,
    command: str,
    options: dict[str, str],
) -> None:
    engine.fail_with = StoreUnavailable()
    engine.delay = STORE_GIVES_UP
    started = time.perf_counter()
    with caplog.at_level(logging.INFO):
        interaction = await run(bot, slash(bot, command, options))
    sent = recorder.for_interaction(interaction)
    # The first request (defer or the answer) is the acknowledgement Discord waits 3 s for.
    assert time.perf_counter() - started < 3.0
    assert sent[0].kind == "callback" and len(recorder.callbacks(interaction)) == 1
    shown = [s for s in sent if s.message.get("content")]
    assert len(shown) == 1 and shown[0].ephemeral
    assert StoreUnavailable.MESSAGE in shown[0].message["content"]
    assert "error reference" not in shown[0].message["content"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert "Traceback" not in caplog.text
    # Back up: the same command is answered normally.
    engine.fail_with, engine.delay = None, 0.0
    again = await run(bot, slash(bot, command, options))
    assert StoreUnavailable.MESSAGE not in recorder.text(again)


async def test_a_chat_question_during_an_outage_gets_the_retry_line(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine, caplog: pytest.LogCaptureFixture
) -> None:
    engine.fail_with = StoreUnavailable()
    with caplog.at_level(logging.INFO):
        await chat(bot).on_message(chat_message(bot, "models routing attention?", dm=True))
    [reply] = replies(recorder)
    assert StoreUnavailable.MESSAGE in reply["content"]
    assert "error reference" not in reply["content"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
