"""The one error boundary: known errors become a friendly ephemeral line, the rest an apology.

Used by the command tree (`PaperTree.on_error`), by every view's `on_error`, and by chat.
Unexpected errors are logged with their traceback and a short reference id the user can quote.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass

import discord
from discord import app_commands

from bot import wording
from bot.discord_shell.cooldown import wait_text
from bot.discord_shell.render import SAFE_MENTIONS, error_text
from bot.discord_shell.replies import send_private
from retrieval.errors import PaperbotError

log = logging.getLogger(__name__)


class OnCooldown(app_commands.CheckFailure):
    """The user asked more questions than the cooldown allows."""

    def __init__(self, retry_after: float) -> None:
        self.retry_after = retry_after
        super().__init__(wait_text(retry_after))


class NotAllowed(app_commands.CheckFailure):
    """The user may not run this command; the message says who may."""


class UserInputError(PaperbotError):
    """A value the user typed is not acceptable; the message says why (bot-side validation)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What to tell the user about an error, and whether it was expected."""

    message: str
    expected: bool
    reference: str | None = None


def unwrap(error: BaseException) -> BaseException:
    """The error a command (or a transformer) actually raised."""
    for _ in range(5):
        if isinstance(error, app_commands.CommandInvokeError):
            error = error.original
        elif isinstance(error, app_commands.TransformerError) and isinstance(
            error.__cause__, PaperbotError
        ):
            error = error.__cause__
        else:
            break
    return error


def judge(error: BaseException) -> Verdict:
    """Map an error to what the user sees (pure)."""
    error = unwrap(error)
    if isinstance(error, PaperbotError):
        # The shells' own wording for domain errors (ids, collections, references).
        return Verdict(wording.problem(error), True)
    if isinstance(error, OnCooldown | NotAllowed):
        return Verdict(str(error), True)
    if isinstance(error, app_commands.NoPrivateMessage):
        return Verdict("This command only works in a server.", True)
    if isinstance(error, app_commands.MissingPermissions | app_commands.CheckFailure):
        return Verdict("You don't have permission to use this command.", True)
    if isinstance(error, app_commands.TransformerError):
        return Verdict(f"That value isn't valid for `{error.type.name}`.", True)
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return Verdict("This command changed since your client loaded it; try again shortly.", True)
    reference = secrets.token_hex(4)
    return Verdict(
        f"Sorry, something went wrong on my side (error reference `{reference}`).",
        False,
        reference,
    )


# Discord's codes for an interaction that can no longer be answered: the 3 s deadline passed
# (10062 Unknown interaction) or the token is gone (10015 Unknown Webhook). Any further
# callback or follow-up would fail the same way.
EXPIRED_CODES = frozenset({10062, 10015})


def expired(error: BaseException) -> bool:
    """Is this Discord saying the interaction can no longer be answered?"""
    return isinstance(error, discord.NotFound) and error.code in EXPIRED_CODES


def _describe(interaction: discord.Interaction) -> str:
    command = interaction.command.qualified_name if interaction.command else None
    custom_id = (interaction.data or {}).get("custom_id") if interaction.data else None
    return f"command={command or '-'} component={custom_id or '-'} user={interaction.user.id}"


async def handle_interaction_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer exactly once (response if free, else follow-up) with the verdict, ephemerally.

    An interaction Discord no longer accepts (deadline passed, token gone) is only logged:
    another callback or follow-up would fail the same way.
    """
    original = unwrap(error)
    if expired(original):
        age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        log.warning(
            "interaction expired before it was answered (%s, %.1f s old): %s",
            _describe(interaction),
            age,
            original,
        )
        return
    verdict = judge(error)
    if verdict.expected:
        log.info("refused %s: %s", _describe(interaction), original)
    else:
        log.error(
            "error %s in %s",
            verdict.reference,
            _describe(interaction),
            exc_info=(type(original), original, original.__traceback__),
        )
    if interaction.type is discord.InteractionType.autocomplete:
        return
    try:
        await send_private(interaction, content=error_text(verdict.message))
    except discord.HTTPException as http_error:
        log.warning(
            "could not report an error to the user (%s): %s", _describe(interaction), http_error
        )


async def handle_chat_error(message: discord.Message, error: BaseException) -> None:
    """The chat boundary: reply to the message with the verdict, never pinging anyone."""
    verdict = judge(error)
    if verdict.expected:
        log.info("refused chat message %s from %s: %s", message.id, message.author.id, error)
    else:
        log.error(
            "error %s answering message %s from %s",
            verdict.reference,
            message.id,
            message.author.id,
            exc_info=(type(error), error, error.__traceback__),
        )
    try:
        await message.reply(
            error_text(verdict.message), mention_author=False, allowed_mentions=SAFE_MENTIONS
        )
    except discord.HTTPException as http_error:
        log.warning("could not report an error in chat: %s", http_error)
