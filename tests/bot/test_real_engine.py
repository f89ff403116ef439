"""The bot over the real engine on a temporary database (seeds from the project)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from bot.discord_shell.client import PaperBot
from config.settings import PROJECT_ROOT, Settings
from retrieval.engine import Engine
from tests.bot.discordfakes import BOT_ID, Recorder, slash, user_payload
from tests.bot.helpers import run


@pytest.fixture
def real_settings(tmp_path: Path) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        db_path=tmp_path / "db.sqlite",
        seeds_dir=PROJECT_ROOT / "seeds",
        cooldown_questions=100,
    )


async def open_bot(settings: Settings, recorder: Recorder) -> tuple[PaperBot, Engine]:
    engine = await Engine.open(settings)
    bot = PaperBot(settings, engine, auto_sync=False)
    await bot._async_setup_hook()
    await bot.setup_hook()
    state = bot._connection
    state.user = discord.ClientUser(state=state, data=user_payload(BOT_ID, "paperbot", bot=True))  # type: ignore[arg-type]
    bot.http.request = recorder.http_request  # type: ignore[method-assign]
    return bot, engine


@pytest.fixture
async def real(
    real_settings: Settings, recorder: Recorder
) -> AsyncIterator[tuple[PaperBot, Engine]]:
    bot, engine = await open_bot(real_settings, recorder)
    yield bot, engine
    await bot.close()
    await engine.close()
    assert recorder.problems == [], recorder.problems


async def test_ask_moe_routing_finds_the_moe_paper(
    real: tuple[PaperBot, Engine], recorder: Recorder
) -> None:
    bot, _ = real
    interaction = await run(bot, slash(bot, "ask", {"question": "which papers study MoE routing?"}))
    body = recorder.visible(interaction)[-1]
    embed = body["embeds"][0]
    assert "**" in embed["description"]
    # the two seed papers about routing in mixture-of-experts models lead, in either order
    leading = " ".join(field["value"] for field in embed["fields"][:2])
    assert "`icml2026-33`" in leading
    assert "`icml2026-18`" in leading


async def test_hostile_question_over_the_real_engine(
    real: tuple[PaperBot, Engine], recorder: Recorder
) -> None:
    bot, _ = real
    hostile = ("@everyone <@&123> `x` ||attention|| \u200b\u200d routing " * 100)[:4000]
    interaction = await run(bot, slash(bot, "ask", {"question": hostile}))
    sent = recorder.for_interaction(interaction)
    assert sent[0].body["type"] == 5 and sent[-1].kind in ("followup", "delete")


async def test_paper_autocomplete_and_reading_list_survive_a_restart(
    real_settings: Settings, recorder: Recorder
) -> None:
    bot, engine = await open_bot(real_settings, recorder)
    auto = await run(bot, slash(bot, "paper", {"id": "rout"}, focused="id"))
    choices = recorder.callbacks(auto)[0].body["data"]["choices"]
    assert choices and len(choices) <= 25
    paper_id = choices[0]["value"]
    await run(bot, slash(bot, "save", {"id": paper_id}))
    shown = await run(bot, slash(bot, "paper", {"id": paper_id.upper()}))
    assert recorder.callbacks(shown)[0].body["type"] == 4
    await bot.close()
    await engine.close()

    bot, engine = await open_bot(real_settings, recorder)
    saved = await run(bot, slash(bot, "saved"))
    assert f"`{paper_id}`" in recorder.text(saved)
    await bot.close()
    await engine.close()
    assert recorder.problems == []


async def test_autocomplete_finds_the_readmes_id_in_any_case_and_zero_padding(
    real: tuple[PaperBot, Engine], recorder: Recorder
) -> None:
    bot, _ = real
    for typed in ("ICML2026-07", "icml2026-7", "ICML2026 07"):
        interaction = await run(bot, slash(bot, "paper", {"id": typed}, focused="id"))
        choices = recorder.callbacks(interaction)[-1].body["data"]["choices"]
        assert choices[0]["value"] == "icml2026-7", typed
