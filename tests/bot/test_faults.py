"""Discord faults at the boundary: an interaction whose deadline passed (10062), a follow-up whose
token is gone (10015), a follow-up that fails for another reason. Each is logged, nothing escapes
the command, nothing is acknowledged twice, and the bot keeps answering afterwards."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import discord
import pytest

from bot.discord_shell.client import PaperBot
from tests.bot.discordfakes import Recorder, click, slash
from tests.bot.helpers import run

QUESTION = "models routing attention"


class Response:
    """What discord.HTTPException reads from an aiohttp response."""

    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason


def not_found(code: int) -> discord.NotFound:
    text = {10062: "Unknown interaction", 10015: "Unknown Webhook"}[code]
    return discord.NotFound(Response(404, "Not Found"), {"message": text, "code": code})  # type: ignore[arg-type]


def server_error() -> discord.HTTPException:
    return discord.DiscordServerError(
        Response(503, "Service Unavailable"),  # type: ignore[arg-type]
        {"message": "upstream connect error", "code": 0},
    )


def kind_of(route: Any) -> str:
    if route.path.endswith("/callback"):
        return "callback"
    return {"POST": "followup", "PATCH": "edit", "DELETE": "delete"}.get(route.method, "get")


class Faults:
    """Wraps the recorder: every request is counted by kind; chosen ones raise instead."""

    def __init__(self, recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
        self.attempts: list[str] = []
        self.plan: dict[str, list[Callable[[], Exception]]] = {}
        real = recorder.request

        async def request(route: Any, session: Any, **kwargs: Any) -> Any:
            kind = kind_of(route)
            self.attempts.append(kind)
            planned = self.plan.get(kind)
            if planned:
                raise planned.pop(0)()
            return await real(route, session, **kwargs)

        monkeypatch.setattr(recorder, "request", request)

    def fail(self, kind: str, *errors: Callable[[], Exception]) -> None:
        self.plan.setdefault(kind, []).extend(errors)


@pytest.fixture
def faults(recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> Faults:
    return Faults(recorder, monkeypatch)


async def still_answers(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(bot, slash(bot, "ask", {"question": QUESTION}))
    assert [s.kind for s in recorder.for_interaction(interaction)] == ["callback", "followup"]
    assert "Answer" in recorder.text(interaction)


def levels(caplog: pytest.LogCaptureFixture) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for record in caplog.records:
        out.setdefault(record.levelno, []).append(record.getMessage())
    return out


async def test_deadline_passed_is_logged_once_and_not_answered_again(
    bot: PaperBot, recorder: Recorder, faults: Faults, caplog: pytest.LogCaptureFixture
) -> None:
    faults.fail("callback", lambda: not_found(10062))
    with caplog.at_level(logging.INFO):
        interaction = await run(bot, slash(bot, "ask", {"question": QUESTION}))
    # the defer failed with 10062; no second callback, no follow-up on a dead token
    assert faults.attempts == ["callback"]
    assert recorder.for_interaction(interaction) == []
    logged = levels(caplog)
    assert any("expired" in m and "10062" in m for m in logged[logging.WARNING])
    assert logging.ERROR not in logged
    await still_answers(bot, recorder)


async def test_follow_up_with_unknown_webhook_is_logged_and_swallowed(
    bot: PaperBot, recorder: Recorder, faults: Faults, caplog: pytest.LogCaptureFixture
) -> None:
    faults.fail("followup", lambda: not_found(10015))
    with caplog.at_level(logging.INFO):
        interaction = await run(bot, slash(bot, "ask", {"question": QUESTION}))
    # defer worked, the answer's follow-up got 10015: the token is gone, so nothing more is tried
    assert faults.attempts == ["callback", "followup"]
    assert recorder.acks[interaction.id] == 1
    logged = levels(caplog)
    assert any("expired" in m and "10015" in m for m in logged[logging.WARNING])
    assert logging.ERROR not in logged
    await still_answers(bot, recorder)


async def test_failed_follow_up_is_reported_to_the_user_when_still_possible(
    bot: PaperBot, recorder: Recorder, faults: Faults, caplog: pytest.LogCaptureFixture
) -> None:
    faults.fail("followup", server_error)
    with caplog.at_level(logging.INFO):
        interaction = await run(bot, slash(bot, "ask", {"question": QUESTION}))
    # one acknowledgement; the public "thinking…" is removed and an ephemeral apology follows
    assert faults.attempts == ["callback", "followup", "delete", "followup"]
    assert recorder.acks[interaction.id] == 1
    sent = recorder.for_interaction(interaction)
    assert sent[-1].kind == "followup" and sent[-1].ephemeral
    assert "error reference" in sent[-1].body["content"]
    statuses = [
        getattr(r.exc_info[1], "status", None) for r in caplog.records if r.exc_info is not None
    ]
    assert 503 in statuses
    await still_answers(bot, recorder)


async def test_when_even_the_apology_fails_it_is_logged_not_raised(
    bot: PaperBot, recorder: Recorder, faults: Faults, caplog: pytest.LogCaptureFixture
) -> None:
    faults.fail("followup", server_error, server_error)
    with caplog.at_level(logging.INFO):
        interaction = await run(bot, slash(bot, "ask", {"question": QUESTION}))
    assert faults.attempts.count("callback") == 1
    assert recorder.acks[interaction.id] == 1
    assert any("could not report an error" in m for m in levels(caplog)[logging.WARNING])
    await still_answers(bot, recorder)


async def test_expired_error_report_is_not_retried(
    bot: PaperBot, recorder: Recorder, faults: Faults, caplog: pytest.LogCaptureFixture
) -> None:
    # the answer fails (503), then Discord says the token is gone while removing "thinking…"
    faults.fail("followup", server_error)
    faults.fail("delete", lambda: not_found(10015))
    with caplog.at_level(logging.INFO):
        interaction = await run(bot, slash(bot, "ask", {"question": QUESTION}))
    assert faults.attempts == ["callback", "followup", "delete"]
    assert recorder.acks[interaction.id] == 1
    assert any("could not report an error" in m for m in levels(caplog)[logging.WARNING])


async def test_expired_button_click_is_logged_and_the_view_keeps_working(
    bot: PaperBot, recorder: Recorder, faults: Faults, caplog: pytest.LogCaptureFixture
) -> None:
    interaction = await run(bot, slash(bot, "search", {"query": QUESTION, "results": 2}))
    message = recorder.messages[recorder.for_interaction(interaction)[-1].message_id or ""]
    faults.fail("callback", lambda: not_found(10062))
    before = len(faults.attempts)
    with caplog.at_level(logging.INFO):
        late = await click(bot, message, label="Next")
    assert faults.attempts[before:] == ["callback"]
    assert recorder.for_interaction(late) == []
    assert any("expired" in m for m in levels(caplog)[logging.WARNING])
    again = await click(bot, message, label="Next")
    assert [s.kind for s in recorder.for_interaction(again)] == ["callback", "edit"]


async def test_expired_autocomplete_is_logged_once(
    bot: PaperBot, recorder: Recorder, faults: Faults, caplog: pytest.LogCaptureFixture
) -> None:
    # discord.py answers autocomplete itself and logs a failure ("Ignoring exception in
    # autocomplete"); paperbot adds no second attempt and the next one works.
    faults.fail("callback", lambda: not_found(10062))
    with caplog.at_level(logging.INFO):
        await run(bot, slash(bot, "paper", {"id": "rout"}, focused="id"))
    assert faults.attempts == ["callback"]
    assert any("autocomplete" in m for m in levels(caplog)[logging.ERROR])
    again = await run(bot, slash(bot, "paper", {"id": "rout"}, focused="id"))
    assert recorder.callbacks(again)[0].body["type"] == 8
