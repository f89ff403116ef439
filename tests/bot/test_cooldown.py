"""The per-user question cooldown: pure, with an injected clock, and wired to commands."""

from __future__ import annotations

from bot.discord_shell.client import PaperBot
from bot.discord_shell.cooldown import Cooldown, wait_text
from tests.bot.conftest import Clock
from tests.bot.discordfakes import BOB, Recorder, slash
from tests.bot.helpers import run


def test_allows_rate_then_refuses_until_the_oldest_expires() -> None:
    clock = Clock()
    cooldown = Cooldown(2, 10, clock=clock)
    assert cooldown.hit(1) is None
    clock.now += 4
    assert cooldown.hit(1) is None
    assert cooldown.hit(1) == 6  # the first question leaves the window at t+10
    assert cooldown.hit(2) is None  # other users are independent
    clock.now += 6
    assert cooldown.hit(1) is None


def test_refused_questions_do_not_extend_the_wait() -> None:
    clock = Clock()
    cooldown = Cooldown(1, 5, clock=clock)
    cooldown.hit(1)
    for _ in range(10):
        cooldown.hit(1)
    clock.now += 5
    assert cooldown.hit(1) is None


def test_wait_text_rounds_up_and_is_never_zero() -> None:
    assert wait_text(0.01).endswith("try again in 1 s.")
    assert wait_text(4.2).endswith("try again in 5 s.")


async def test_sixth_question_in_the_window_gets_an_ephemeral_try_again(
    bot: PaperBot, recorder: Recorder, clock: Clock
) -> None:
    for _ in range(5):
        await run(bot, slash(bot, "ask", {"question": "routing"}))
    refused = await run(bot, slash(bot, "ask", {"question": "routing"}))
    sent = recorder.for_interaction(refused)
    assert len(sent) == 1 and sent[0].ephemeral and sent[0].body["type"] == 4
    assert "try again in 30 s" in sent[0].body["data"]["content"]
    other = await run(bot, slash(bot, "search", {"query": "routing"}, user_id=BOB))
    assert not recorder.for_interaction(other)[0].ephemeral
    clock.now += 31
    allowed = await run(bot, slash(bot, "search", {"query": "routing"}))
    assert recorder.for_interaction(allowed)[0].body["type"] == 5
