"""Starting the bot: engine first, then the gateway; SIGINT/SIGTERM close the bot, then the engine.

The command line (`bot/cli.py`) calls `run_bot` and `sync_commands`; it checks the token first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from bot.client import PaperBot
from bot.logs import configure_logging
from config.settings import Settings
from retrieval.engine import Engine

log = logging.getLogger(__name__)


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
    try:
        bot = PaperBot(settings, engine)
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
            if runner.done() and not runner.cancelled():
                runner.result()  # re-raise login failures and the like
            else:
                runner.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await runner
        for sig in installed:
            loop.remove_signal_handler(sig)
    finally:
        follower.cancel()
        await engine.close()
        log.info("database closed")


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
