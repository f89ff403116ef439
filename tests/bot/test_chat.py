"""Chat questions: mentions and DMs get the /ask answer as a reply, with typing, no pings."""

from __future__ import annotations

import pytest

from bot.discord_shell.client import PaperBot
from bot.discord_shell.cogs.chat import Chat, strip_mentions
from config.settings import Settings
from tests.bot.conftest import Clock
from tests.bot.discordfakes import BOT_ID, CHANNEL_ID, Recorder, chat_message
from tests.bot.fakes import FakeEngine

HOURGLASS = "%E2%8F%B3"


def chat(bot: PaperBot) -> Chat:
    # load_extension executes the module afresh, so compare by name, not class identity
    cog = bot.get_cog("Chat")
    assert cog is not None and type(cog).__name__ == "Chat"
    return cog  # type: ignore[return-value]


def replies(recorder: Recorder) -> list[dict]:
    return [s.body for s in recorder.sent if s.kind == "channel_message"]


def test_strip_mentions() -> None:
    assert strip_mentions(f"<@{BOT_ID}> hi <@!{BOT_ID}>", BOT_ID) == "hi"


async def test_mention_gets_a_reply_with_typing_and_no_ping(
    bot: PaperBot, recorder: Recorder
) -> None:
    message = chat_message(bot, "which papers study models routing attention?", mentions_bot=True)
    await chat(bot).on_message(message)
    kinds = [s.kind for s in recorder.sent]
    assert kinds[0] == "typing" and "channel_message" in kinds
    reply = replies(recorder)[-1]
    assert reply["message_reference"]["message_id"] == message.id
    assert reply["allowed_mentions"] == {"parse": [], "replied_user": False}
    assert reply["embeds"][0]["fields"][0]["name"].startswith("1. ")
    assert any(row["components"] for row in reply["components"])


async def test_dm_gets_an_answer(bot: PaperBot, recorder: Recorder) -> None:
    await chat(bot).on_message(chat_message(bot, "diffusion video", dm=True))
    assert "Diffusion" in replies(recorder)[-1]["embeds"][0]["fields"][0]["name"]


async def test_plain_guild_message_is_ignored_without_the_intent(
    bot: PaperBot, recorder: Recorder
) -> None:
    await chat(bot).on_message(chat_message(bot, "routing"))
    assert recorder.sent == []


async def test_bots_are_ignored(bot: PaperBot, recorder: Recorder) -> None:
    await chat(bot).on_message(chat_message(bot, "routing", dm=True, author_bot=True))
    assert recorder.sent == []


async def test_chat_channel_needs_the_intent(
    settings: Settings, engine: FakeEngine, recorder: Recorder
) -> None:
    enabled = settings.model_copy(
        update={"message_content_intent": True, "chat_channel_ids": [CHANNEL_ID]}
    )
    bot = PaperBot(enabled, engine, auto_sync=False)
    assert bot.intents.message_content
    await bot._async_setup_hook()
    await bot.setup_hook()
    import discord

    from tests.bot.discordfakes import user_payload

    state = bot._connection
    state.user = discord.ClientUser(state=state, data=user_payload(BOT_ID, "paperbot", bot=True))  # type: ignore[arg-type]
    bot.http.request = recorder.http_request  # type: ignore[method-assign]
    await chat(bot).on_message(chat_message(bot, "routing"))
    assert replies(recorder)
    await chat(bot).on_message(chat_message(bot, "routing", channel_id=CHANNEL_ID + 50))
    assert len(replies(recorder)) == 1


async def test_empty_mention_gets_a_hint(bot: PaperBot, recorder: Recorder) -> None:
    await chat(bot).on_message(chat_message(bot, "", mentions_bot=True))
    assert "/ask" in replies(recorder)[-1]["content"]


@pytest.mark.parametrize(
    "question",
    [
        "@everyone @here <@&123> <@456> routing",
        "`routing`" * 300,
        "||routing|| \u200b\u200d\u2060 routing " * 100,
        "x" * 4000,
    ],
)
async def test_hostile_chat_questions_get_valid_non_pinging_replies(
    bot: PaperBot, recorder: Recorder, question: str
) -> None:
    await chat(bot).on_message(chat_message(bot, question, mentions_bot=True))
    reply = replies(recorder)[-1]
    assert reply["allowed_mentions"]["parse"] == []
    # recorder.problems (checked at teardown) covers every Discord limit


async def test_a_burst_gets_the_answers_then_one_reaction_then_silence(
    bot: PaperBot, recorder: Recorder, clock: Clock
) -> None:
    for number in range(30):
        await chat(bot).on_message(chat_message(bot, f"routing {number}", dm=True))
    answers = replies(recorder)
    assert len(answers) == 5 and all(a["embeds"] for a in answers)
    assert [s.kind for s in recorder.sent].count("reaction") == 1
    assert HOURGLASS in recorder.sent[-1].body["path"] or any(
        HOURGLASS in s.body.get("path", "") for s in recorder.sent if s.kind == "reaction"
    )
    clock.now += 31  # a new window: answered again
    await chat(bot).on_message(chat_message(bot, "routing again", dm=True))
    assert len(replies(recorder)) == 6


async def test_without_add_reactions_the_notice_is_one_short_reply(
    bot: PaperBot, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.discord_shell.cogs.chat.can_react", lambda message: False)
    for number in range(12):
        await chat(bot).on_message(chat_message(bot, f"routing {number}", mentions_bot=True))
    sent = replies(recorder)
    assert len(sent) == 6
    assert "try again in" in sent[-1]["content"] and not sent[-1].get("embeds")
    assert "reaction" not in [s.kind for s in recorder.sent]


async def test_the_same_question_twice_is_answered_once(
    bot: PaperBot, recorder: Recorder, clock: Clock
) -> None:
    await chat(bot).on_message(chat_message(bot, "Routing?", dm=True))
    await chat(bot).on_message(chat_message(bot, "  routing? ", dm=True))
    assert len(replies(recorder)) == 1
    clock.now += 61
    await chat(bot).on_message(chat_message(bot, "routing?", dm=True))
    assert len(replies(recorder)) == 2


async def test_errors_in_chat_are_replies(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    engine.fail_with = RuntimeError("boom")
    await chat(bot).on_message(chat_message(bot, "routing", dm=True))
    assert "error reference" in replies(recorder)[-1]["content"]
