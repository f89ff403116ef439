"""Chat over the real engine: greetings, follow-ups by position, ids and problems, as Discord
replies (the chat service behind the cog)."""

from __future__ import annotations

from typing import Any

from bot import wording
from bot.discord_shell.client import PaperBot
from bot.discord_shell.cogs.chat import Chat
from retrieval.engine import Engine
from tests.bot.discordfakes import Recorder, chat_message
from tests.bot.test_real_engine import real, real_settings  # noqa: F401  (fixtures)


def chat(bot: PaperBot) -> Chat:
    cog = bot.get_cog("Chat")
    assert cog is not None and type(cog).__name__ == "Chat"
    return cog  # type: ignore[return-value]


def last_reply(recorder: Recorder) -> dict[str, Any]:
    return [s.body for s in recorder.sent if s.kind == "channel_message"][-1]


async def say(bot: PaperBot, recorder: Recorder, text: str) -> dict[str, Any]:
    await chat(bot).on_message(chat_message(bot, text, mentions_bot=True))
    return last_reply(recorder)


async def test_a_conversation_in_a_channel(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, engine = real
    hello = await say(bot, recorder, "hi")
    assert "Ask me about papers" in hello["content"] and not hello.get("embeds")

    answer = await say(bot, recorder, "ICML 2026 papers about mixture of experts routing")
    fields = answer["embeds"][0]["fields"]
    assert len(fields) == 3
    second_id = (
        (await engine.ask("mixture of experts routing", collection="icml2026")).hits[1].paper.id
    )

    opened = await say(bot, recorder, "the second one")
    embed = opened["embeds"][0]
    assert any(field["value"] == f"`{second_id}`" for field in embed["fields"])

    code = await say(bot, recorder, "does it have code?")
    paper = await engine.paper(second_id)
    value = code["embeds"][0]["fields"][0]["value"]
    assert (paper.urls[0] in value) if paper.urls else ("No code" in value)

    # A number past the page fetches the results up to it; past the last result it says so.
    total = (await engine.ask("mixture of experts routing", collection="icml2026")).total
    assert total < 9
    too_far = await say(bot, recorder, "the ninth one")
    assert too_far["content"].startswith(f"There were only {total} results")


async def test_an_unknown_id_names_real_ones_and_a_stale_position_asks_for_a_question(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, _ = real
    past = await say(bot, recorder, "icml2026-999")
    assert past["content"] == (
        "No paper has the id `icml2026-999`. ICML 2026 has ids icml2026-1 to icml2026-38."
    )
    missing = await say(bot, recorder, "icml2062-5")
    assert missing["content"].startswith("No paper has the id `icml2062-5`. Closest: `icml2026-")
    orphan = await say(bot, recorder, "the second one")
    assert orphan["content"] == "Second of what? Ask a question first."


async def test_compare_and_more_like_it_in_chat(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, engine = real
    await say(bot, recorder, "mixture of experts routing")
    top = (await engine.ask("mixture of experts routing")).hits
    compared = await say(bot, recorder, "compare the first two")
    embed = compared["embeds"][0]
    first, second = top[0].paper.id, top[1].paper.id
    assert embed["title"] == f"Compared: {first} vs {second}"
    # Side by side: one line of inline fields per aspect, paper 1 then paper 2, and a blank
    # third field so that Discord (three inline fields to a line) does not wrap the rows.
    names = [field["name"] for field in embed["fields"]]
    assert names == [
        name
        for row in ("Proposes", "Evaluated on", "Result")
        for name in (f"{row} · 1", f"{row} · 2", "\u200b")
    ]
    assert all(field["inline"] for field in embed["fields"])
    assert f"({first})" in embed["description"] and f"({second})" in embed["description"]
    similar = await say(bot, recorder, "more like the first one")
    assert similar["embeds"][0]["title"].startswith(f"Similar: papers like {top[0].paper.id}")


async def test_a_misspelt_question_is_corrected_once_and_bye_is_a_farewell(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, _ = real
    answer = await say(bot, recorder, "mixture of experts routng")
    assert answer["content"].startswith("Searched for **routing** instead of **routng**")
    assert answer["embeds"][0]["fields"]
    more = await say(bot, recorder, "more")
    assert not more.get("content") and more["embeds"][0]["fields"]
    bye = await say(bot, recorder, "bye!")
    assert bye["content"] in wording.FAREWELLS and not bye.get("embeds")


async def test_a_summary_in_chat_is_headed_and_short(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, _ = real
    await say(bot, recorder, "icml2026-1")
    summary = await say(bot, recorder, "what is it about?")
    embed = summary["embeds"][0]
    assert embed["title"] == "Summary"
    assert embed["fields"][0]["name"].endswith("(icml2026-1)")
    assert 1 <= len(embed["fields"][0]["value"].split("\n")) <= 3


async def test_help_about_watches_names_the_slash_commands_above_the_guide(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, _ = real
    reply = await say(bot, recorder, "how do i get notified when new papers come out?")
    assert reply["content"].startswith("**Watches**: `/watch query:`")
    assert reply["embeds"][0]["title"] == "How to use paperbot"


async def test_how_do_i_use_this_shows_the_follow_ups_in_discord(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, _ = real
    reply = await say(bot, recorder, "how do I use this?")
    guide = reply["embeds"][0]["description"]
    for phrase in ("the second one", "more", "#5", "compare 1 3", "same but for iclr", "go back"):
        assert f"“{phrase}”" in guide
    assert "/watch query:" in guide and "/shortlist add" in guide


async def test_more_and_go_back_page_the_list_they_show(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
) -> None:
    bot, engine = real
    await say(bot, recorder, "mixture of experts routing")
    top = (await engine.ask("mixture of experts routing")).hits
    await say(bot, recorder, "more like the first one")
    more = await say(bot, recorder, "more")
    # "more" after similar papers is still a list of similar papers, and is headed so.
    assert more["embeds"][0]["title"].startswith(f"Similar: papers like {top[0].paper.id}")
    back = await say(bot, recorder, "go back")
    assert back["embeds"][0]["title"] == "Answer: mixture of experts routing"
    assert [field["name"].split(".")[0] for field in back["embeds"][0]["fields"]] == [
        "1",
        "2",
        "3",
    ]
