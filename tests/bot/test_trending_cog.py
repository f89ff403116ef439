"""/trending over the real engine: slash commands in a server feed the counters."""

from __future__ import annotations

from bot.discord_shell.client import PaperBot
from retrieval.engine import Engine
from tests.bot.discordfakes import Recorder, slash
from tests.bot.helpers import run
from tests.bot.test_real_engine import real, real_settings  # noqa: F401  (fixtures)
from tests.waits import until


async def settle(engine: Engine, guild_id: int, expected_total: int) -> None:
    """Completion listeners run as tasks after the command: wait for them (a hang fails)."""

    async def counted() -> bool:
        rows = await engine.store.activity(guild_id, "0000-00-00", 50)
        return sum(row.total for row in rows) >= expected_total

    await until(counted)


async def test_trending_counts_opens_saves_and_asks(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, engine = real
    interaction = await run(bot, slash(bot, "paper", {"id": "icml2026-13"}))
    guild_id = interaction.guild_id
    assert guild_id is not None
    await run(bot, slash(bot, "paper", {"id": "ICML2026-13"}))
    await run(bot, slash(bot, "save", {"id": "icml2026-13"}))
    await run(bot, slash(bot, "ask", {"question": "poisoning attacks on RAG retrievers"}))
    await run(bot, slash(bot, "paper", {"id": "icml2026-13"}, guild=False))  # a DM: not counted
    await settle(engine, guild_id, 6)
    shown = await run(bot, slash(bot, "trending"))
    text = recorder.text(shown)
    first = text.split("\n1. ")[1]
    assert first.startswith("`icml2026-13`")
    assert "2 opened · 1 saved · 1 asked about" in first
    assert text.count("asked about") == 3  # the /ask showed three papers
    assert not any(sent.ephemeral for sent in recorder.for_interaction(shown))
