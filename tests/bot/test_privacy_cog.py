"""/privacy and /forget-me over the real engine: one private message, a confirmation button,
and afterwards nothing about the user in the store."""

from __future__ import annotations

from bot.discord_shell.client import PaperBot
from retrieval.engine import Engine
from retrieval.privacy import UserData
from tests.bot.discordfakes import ALICE, Recorder, click, slash
from tests.bot.helpers import labels, run
from tests.bot.test_real_engine import real, real_settings  # noqa: F401  (fixtures)


async def test_privacy_then_forget_me(real: tuple[PaperBot, Engine], recorder: Recorder) -> None:  # noqa: F811
    bot, engine = real
    await engine.save_paper(ALICE, "icml2026-13")
    await engine.store.add_watch(ALICE, None, None, "mixture of experts routing")
    shown = await run(bot, slash(bot, "privacy"))
    text = recorder.text(shown)
    assert all(sent.ephemeral for sent in recorder.for_interaction(shown))
    assert (
        "1 saved paper in your" in text
        and "1 watch on new papers" in text
        and "`icml2026-13`" in text
    )
    assert "mixture of experts routing" in text

    asked = await run(bot, slash(bot, "forget-me"))
    body = recorder.visible(asked)[-1]
    assert labels(body) == ["Delete everything", "Cancel"]
    assert (await engine.store.user_data(ALICE)).total == 2  # nothing deleted before the click
    message = recorder.messages[recorder.for_interaction(asked)[-1].message_id]
    done = await click(bot, message, label="Delete everything")
    result = recorder.callbacks(done)[0]
    assert result.body["type"] == 7
    assert "1 saved paper in your" in result.body["data"]["content"]
    assert "Nothing about you remains" in result.body["data"]["content"]
    assert await engine.store.user_data(ALICE) == UserData()

    again = await run(bot, slash(bot, "privacy"))
    assert "stores nothing about you" in recorder.text(again)


async def test_forget_me_cancel_deletes_nothing(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, engine = real
    await engine.save_paper(ALICE, "icml2026-13")
    asked = await run(bot, slash(bot, "forget-me"))
    message = recorder.messages[recorder.for_interaction(asked)[-1].message_id]
    done = await click(bot, message, label="Cancel")
    assert "nothing was deleted" in recorder.callbacks(done)[0].body["data"]["content"]
    assert (await engine.store.user_data(ALICE)).saved_papers == 1
