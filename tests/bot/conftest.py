"""Fixtures: a PaperBot with its cogs loaded (never logged in), a fake engine, and a recorder
standing in for Discord's HTTP side. Every test fails if the bot broke a Discord rule."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import discord
import pytest
from discord.webhook.async_ import async_context

from bot.discord_shell.client import PaperBot
from config.settings import Settings
from tests.bot.discordfakes import BOT_ID, Recorder, user_payload
from tests.bot.fakes import FakeEngine


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        db_path=tmp_path / "db.sqlite",
        owner_ids=[424242],
        cooldown_questions=5,
        cooldown_seconds=30,
    )


@pytest.fixture
def engine() -> FakeEngine:
    return FakeEngine()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    recorder = Recorder()
    token = async_context.set(recorder)
    yield recorder
    async_context.reset(token)


@pytest.fixture
async def bot(
    settings: Settings, engine: FakeEngine, clock: Clock, recorder: Recorder
) -> AsyncIterator[PaperBot]:
    bot = PaperBot(settings, engine, auto_sync=False, clock=clock)
    await bot._async_setup_hook()
    await bot.setup_hook()
    state = bot._connection
    state.user = discord.ClientUser(state=state, data=user_payload(BOT_ID, "paperbot", bot=True))  # type: ignore[arg-type]
    state.application_id = 900_000_000_000_000_001
    bot.http.request = recorder.http_request  # type: ignore[method-assign]
    yield bot
    views = {
        item.view
        for items in list(state._view_store._views.values())
        for item in list(items.values())
        if item.view is not None
    }
    for view in views:
        view.stop()
    assert recorder.problems == [], recorder.problems
