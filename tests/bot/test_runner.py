"""run_bot: the engine opens before the gateway; SIGTERM closes the bot, then the engine."""

from __future__ import annotations

import asyncio
import os
import signal
from types import SimpleNamespace

import discord
import pytest
from pydantic import SecretStr

from bot.discord_shell import runner
from bot.discord_shell.client import PaperBot
from config.settings import Settings
from tests.bot.fakes import FakeEngine
from tests.waits import until


async def test_sigterm_closes_gateway_then_database(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    engine = FakeEngine()
    started = asyncio.Event()

    async def open_engine(_: Settings) -> FakeEngine:
        events.append("engine opened")
        return engine

    async def start(self: PaperBot, token: str, *, reconnect: bool = True) -> None:
        events.append(f"gateway started with {token}")
        started.set()
        await asyncio.Event().wait()

    original_close = PaperBot.close

    async def close(self: PaperBot) -> None:
        events.append("gateway closed")
        await original_close(self)

    async def engine_close() -> None:
        events.append("database closed")

    monkeypatch.setattr(runner.Engine, "open", open_engine)
    monkeypatch.setattr(PaperBot, "start", start)
    monkeypatch.setattr(PaperBot, "close", close)
    monkeypatch.setattr(engine, "close", engine_close)
    monkeypatch.setattr(runner, "configure_logging", lambda _: None)
    with_token = settings.model_copy(update={"discord_token": SecretStr("tok")})

    task = asyncio.create_task(runner.run_bot(with_token))
    await asyncio.wait_for(started.wait(), 5)
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.wait_for(task, 5)
    assert events[:2] == ["engine opened", "gateway started with tok"]
    assert events[-2:] == ["gateway closed", "database closed"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_a_clean_stop_removes_this_process_from_the_registry(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, sig: signal.Signals
) -> None:
    engine = FakeEngine()
    engine.live.current = SimpleNamespace(generation=7)  # type: ignore[attr-defined]
    started = asyncio.Event()

    async def open_engine(_: Settings) -> FakeEngine:
        return engine

    async def start(self: PaperBot, token: str, *, reconnect: bool = True) -> None:
        started.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(runner.Engine, "open", open_engine)
    monkeypatch.setattr(PaperBot, "start", start)
    monkeypatch.setattr(runner, "configure_logging", lambda _: None)
    with_token = settings.model_copy(update={"discord_token": SecretStr("tok")})
    task = asyncio.create_task(runner.run_bot(with_token))
    await asyncio.wait_for(started.wait(), 5)
    await until(lambda: bool(engine.nodes.rows))  # the first heartbeat is in
    os.kill(os.getpid(), sig)
    await asyncio.wait_for(task, 5)
    assert engine.nodes.rows == []  # /stats and `paperbot status` show no stale process


async def test_login_failure_still_closes_the_database(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = FakeEngine()

    async def open_engine(_: Settings) -> FakeEngine:
        return engine

    async def start(self: PaperBot, token: str, *, reconnect: bool = True) -> None:
        raise RuntimeError("401 Unauthorized")

    monkeypatch.setattr(runner.Engine, "open", open_engine)
    monkeypatch.setattr(PaperBot, "start", start)
    monkeypatch.setattr(runner, "configure_logging", lambda _: None)
    with_token = settings.model_copy(update={"discord_token": SecretStr("tok")})
    with pytest.raises(RuntimeError, match="401"):
        await runner.run_bot(with_token)
    assert engine.closed


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (OSError(111, "Connect call failed ('162.159.135.232', 443)"), "cannot reach Discord"),
        (discord.LoginFailure("Improper token has been passed."), "refused the token"),
    ],
)
async def test_unreachable_discord_is_one_logged_line(
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    error: Exception,
    words: str,
) -> None:
    engine = FakeEngine()

    async def open_engine(_: Settings) -> FakeEngine:
        return engine

    async def start(self: PaperBot, token: str, *, reconnect: bool = True) -> None:
        raise error

    monkeypatch.setattr(runner.Engine, "open", open_engine)
    monkeypatch.setattr(PaperBot, "start", start)
    monkeypatch.setattr(runner, "configure_logging", lambda _: None)
    with_token = settings.model_copy(update={"discord_token": SecretStr("tok")})
    with caplog.at_level("ERROR"), pytest.raises(runner.DiscordUnavailable) as raised:
        await runner.run_bot(with_token)
    line = str(raised.value)
    assert words in line and "\n" not in line
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == [line]
    assert engine.closed


async def test_heartbeats_keep_beating_after_a_store_failure(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    beats: list[tuple[str, int, int]] = []
    guilds = iter([3, 3, 4, 4, 4, 4])

    class FlakyNodes:
        async def beat(self, shard_ids: str, generation: int, guilds: int = 0) -> None:
            if not beats and "heartbeat not recorded" not in caplog.text:
                raise OSError("database away")
            beats.append((shard_ids, generation, guilds))

    engine = FakeEngine()
    engine.nodes = FlakyNodes()  # type: ignore[assignment]
    engine.live.current = SimpleNamespace(generation=7)  # type: ignore[attr-defined]
    fast = settings.model_copy(update={"heartbeat_seconds": 0.01, "shard_ids": [1, 0]})
    task = asyncio.create_task(
        runner.heartbeats(engine, fast, lambda: next(guilds, 4))  # type: ignore[arg-type]
    )
    await until(lambda: len(beats) >= 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The guild count is read at each beat (the failed first beat read 3 too).
    assert beats[:2] == [("0,1", 7, 3), ("0,1", 7, 4)]
    assert "heartbeat not recorded: OSError: database away" in caplog.text
