"""The database going away while the bot runs: every path a question takes (slash commands,
a deferred answer, a chat message) tells the user privately, once, to try again, within
Discord's 3 s deadline; nothing is logged as an error and no traceback is written.

"Within the deadline" is checked without a clock: a command that defers acknowledges before it
asks the store; one that answers directly asks the store once, and the store gives up well
inside Discord's 3 s. How fast the bot's own part runs is the benchmarks' business
(benchmarks/bot_load.py), not a test's on a shared machine.
"""

from __future__ import annotations

import logging

import pytest

from bot.discord_shell.client import PaperBot
from retrieval.errors import StoreUnavailable
from retrieval.stores.postgres_connect import QUICK_SECONDS
from tests.bot.discordfakes import Recorder, chat_message, slash
from tests.bot.fakes import FakeEngine
from tests.bot.helpers import run
from tests.bot.test_chat import chat, replies

# The PostgreSQL store gives up after QUICK_SECONDS (2 s); the fake waits about as long.
STORE_GIVES_UP = 1.9
# Discord drops an interaction not acknowledged within this.
DISCORD_ACK_SECONDS = 3.0


def test_the_store_gives_up_well_inside_discords_deadline() -> None:
    # A direct answer waits for one store call: a second is left for everything else.
    assert QUICK_SECONDS <= DISCORD_ACK_SECONDS - 1.0


@pytest.mark.parametrize(
    ("command", "options", "sent_before_the_store"),
    [
        ("ask", {"question": "models routing attention"}, 1),  # defers, then follows up
        ("save", {"id": "icml2026-1"}, 0),  # answers without deferring
        ("paper", {"id": "icml2026-1"}, 0),
    ],
)
async def test_a_command_during_an_outage_gets_one_private_retry_line_in_time(
    bot: PaperBot,
    recorder: Recorder,
    engine: FakeEngine,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    options: dict[str, str],
    sent_before_the_store: int,
) -> None:
    engine.fail_with = StoreUnavailable()
    engine.delay = STORE_GIVES_UP
    store_calls = engine._maybe_fail
    sent_at_each_call: list[int] = []

    async def store_call() -> None:
        sent_at_each_call.append(len(recorder.sent))
        await store_calls()

    monkeypatch.setattr(engine, "_maybe_fail", store_call)
    with caplog.at_level(logging.INFO):
        interaction = await run(bot, slash(bot, command, options))
    sent = recorder.for_interaction(interaction)
    # The first request (defer or the answer) is the acknowledgement Discord waits 3 s for:
    # sent before the store is asked (defer), or after one store call and no retry (answer).
    assert sent_at_each_call == [sent_before_the_store]
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
