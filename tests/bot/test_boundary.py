"""The one error boundary: known -> friendly ephemeral, unexpected -> apology with a reference,
follow-up once the response is done, and never a second acknowledgement."""

from __future__ import annotations

import logging

import discord
import pytest
from discord import app_commands

from bot.discord_shell.boundary import NotAllowed, OnCooldown, handle_interaction_error, judge
from bot.discord_shell.client import PaperBot
from retrieval.errors import PaperNotFound, QueryError
from tests.bot.discordfakes import Recorder, slash


async def _noop(interaction: discord.Interaction) -> None:
    pass


COMMAND = app_commands.Command(name="noop", description="noop", callback=_noop)


def test_judge_known_and_unknown() -> None:
    assert judge(PaperNotFound("x")).expected
    assert (
        judge(app_commands.CommandInvokeError(COMMAND, QueryError("too long"))).message
        == "too long"
    )
    assert "try again in 3 s" in judge(OnCooldown(2.5)).message
    assert judge(NotAllowed("owners only")).message == "owners only"
    assert "permission" in judge(app_commands.MissingPermissions(["manage_guild"])).message
    verdict = judge(ZeroDivisionError())
    assert not verdict.expected and verdict.reference and verdict.reference in verdict.message


@pytest.fixture
def interaction(bot: PaperBot) -> discord.Interaction:
    return slash(bot, "help")


async def test_known_error_before_any_response_is_an_ephemeral_response(
    interaction: discord.Interaction, recorder: Recorder
) -> None:
    await handle_interaction_error(interaction, PaperNotFound("nope-1"))
    sent = recorder.for_interaction(interaction)
    assert len(sent) == 1 and sent[0].kind == "callback" and sent[0].ephemeral
    assert "No paper has the id `nope-1`" in sent[0].body["data"]["content"]


async def test_after_a_response_the_error_is_a_follow_up_not_a_second_ack(
    interaction: discord.Interaction, recorder: Recorder
) -> None:
    await interaction.response.send_message(
        "first", allowed_mentions=discord.AllowedMentions.none()
    )
    await handle_interaction_error(interaction, RuntimeError("late"))
    kinds = [s.kind for s in recorder.for_interaction(interaction)]
    assert kinds == ["callback", "followup"]
    assert recorder.for_interaction(interaction)[-1].ephemeral
    assert recorder.acks[interaction.id] == 1


async def test_after_an_ephemeral_defer_the_follow_up_fills_the_loading_message(
    interaction: discord.Interaction, recorder: Recorder
) -> None:
    await interaction.response.defer(ephemeral=True)
    await handle_interaction_error(interaction, QueryError("bad question"))
    kinds = [s.kind for s in recorder.for_interaction(interaction)]
    assert kinds == ["callback", "followup"]


async def test_unexpected_error_is_logged_with_traceback_and_reference(
    interaction: discord.Interaction, recorder: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    try:
        raise KeyError("secret detail")
    except KeyError as error:
        caught = error
    with caplog.at_level(logging.ERROR, logger="bot.discord_shell.boundary"):
        await handle_interaction_error(
            interaction, app_commands.CommandInvokeError(COMMAND, caught)
        )
    content = recorder.for_interaction(interaction)[0].body["data"]["content"]
    assert "secret detail" not in content
    reference = content.split("`")[1]
    record = next(r for r in caplog.records if reference in r.getMessage())
    assert record.exc_info and record.exc_info[0] is KeyError


async def test_autocomplete_errors_are_not_answered_twice(
    bot: PaperBot, recorder: Recorder
) -> None:
    interaction = slash(bot, "paper", {"id": "x"}, focused="id")
    await handle_interaction_error(interaction, RuntimeError("boom"))
    assert recorder.for_interaction(interaction) == []
