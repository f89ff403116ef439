"""Starting the bot: engine first, then the gateway; SIGINT/SIGTERM close the bot, then the engine.

The command line (`bot/terminal/cli.py`) calls `run_bot` and `sync_commands`; it checks the
token first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable

import aiohttp
import discord

from bot.discord_shell.client import PaperBot
from bot.logs import configure_logging
from config.settings import Settings
from retrieval.engine import Engine
from retrieval.errors import PaperbotError
from retrieval.nodes import shard_text

log = logging.getLogger(__name__)


class DiscordUnavailable(PaperbotError):
    """The bot could not log in or connect; the message is one line saying what to do."""


def startup_error(error: BaseException | None) -> BaseException:
    """A failed login or connection as one logged line (a DiscordUnavailable); other errors
    are returned unchanged, to be raised with their traceback."""
    if isinstance(error, discord.LoginFailure):
        line = (
            "Discord refused the token: check PAPERBOT_DISCORD_TOKEN "
            "(Developer Portal > Bot > Reset Token)"
        )
    elif isinstance(error, discord.PrivilegedIntentsRequired):
        line = (
            "Discord refused the Message Content intent: enable it in the Developer Portal "
            "(Bot > Privileged Gateway Intents) or set PAPERBOT_MESSAGE_CONTENT_INTENT=false"
        )
    elif isinstance(
        error,
        OSError
        | aiohttp.ClientError
        | discord.GatewayNotFound
        | discord.ConnectionClosed
        | discord.DiscordServerError,
    ):
        line = (
            f"cannot reach Discord ({type(error).__name__}: {error}); check the network or "
            "proxy, then run `paperbot run` again"
        )
    else:
        return error if error is not None else RuntimeError("the gateway task failed")
    log.error("%s", line)
    return DiscordUnavailable(line)


def _token(settings: Settings) -> str:
    if settings.discord_token is None:
        raise ValueError("PAPERBOT_DISCORD_TOKEN is not set")
    return settings.discord_token.get_secret_value()


async def run_bot(settings: Settings) -> None:
    """Open the engine (ingesting seeds on first start), then run the bot until a signal."""
    configure_logging(settings)
    token = _token(settings)
    engine = await Engine.open(settings)
    # Papers ingested by another process (`paperbot ingest` in a terminal) reach this one.
    follower = asyncio.create_task(engine.live.follow(settings.corpus_poll_seconds))
    bot = PaperBot(settings, engine)
    beats = asyncio.create_task(
        heartbeats(engine, settings, lambda: len(bot.guilds)), name="paperbot-heartbeat"
    )
    try:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        installed: list[signal.Signals] = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
                installed.append(sig)
        async with bot:
            runner = asyncio.create_task(bot.start(token), name="paperbot-gateway")
            waiter = asyncio.create_task(stop.wait(), name="paperbot-stop")
            done, _ = await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if waiter in done:
                log.info("signal received; closing the gateway")
            await bot.close()
            waiter.cancel()
            if runner.done() and not runner.cancelled() and runner.exception() is not None:
                raise startup_error(runner.exception())
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
        for sig in installed:
            loop.remove_signal_handler(sig)
    finally:
        follower.cancel()
        beats.cancel()
        # The heartbeat task must be gone before the row is removed, or a last beat could
        # write it back; a stopped process then leaves no "stale" row behind for /stats.
        with contextlib.suppress(asyncio.CancelledError):
            await beats
        try:
            await engine.nodes.leave()
        except Exception as error:  # any store failure: the row goes stale, as after a crash
            log.warning("node row not removed: %s: %s", type(error).__name__, error)
        await engine.close()
        log.info("database closed")


async def heartbeats(engine: Engine, settings: Settings, guilds: Callable[[], int]) -> None:
    """Record this process in the store every `heartbeat_seconds` until cancelled, for
    `paperbot status` and /stats (`guilds()`: how many guilds its shards hold now). A failed
    beat is a warning: the bot answers without its registry."""
    shards = shard_text(settings.shard_ids)
    while True:
        try:
            await engine.nodes.beat(shards, engine.live.current.generation, guilds())
        except Exception as error:  # any store failure: the next beat tries again
            log.warning("heartbeat not recorded: %s: %s", type(error).__name__, error)
        await asyncio.sleep(settings.heartbeat_seconds)


async def sync_commands(settings: Settings, guild_id: int | None) -> str:
    """Log in over REST (no gateway), sync the command tree once, and say what happened."""
    configure_logging(settings)
    token = _token(settings)
    engine = await Engine.open(settings)
    try:
        async with PaperBot(settings, engine, auto_sync=False) as bot:
            await bot.login(token)
            return await bot.sync_now(guild_id)
    finally:
        await engine.close()
