"""Answering interactions: acknowledge once, defer early, follow up after, never ping.

Every command and view sends through `send`, which picks the initial response or the follow-up
webhook from `interaction.response.is_done()` and always passes `SAFE_MENTIONS`.
"""

from __future__ import annotations

import io
from typing import Any

import discord

from bot.discord_shell.interaction_state import progress
from bot.discord_shell.render import SAFE_MENTIONS, Rendered


def started(interaction: discord.Interaction) -> float:
    """When paperbot started handling this interaction (perf_counter seconds)."""
    return progress(interaction).started


async def defer(interaction: discord.Interaction, *, ephemeral: bool) -> None:
    """Acknowledge now ("thinking…"); the answer follows. Does nothing if already acknowledged."""
    if interaction.response.is_done():
        return
    if interaction.type is discord.InteractionType.component:
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)
    else:
        await interaction.response.defer(ephemeral=ephemeral)
    progress(interaction).deferred_public = not ephemeral


def to_file(attachment: tuple[str, bytes]) -> discord.File:
    name, data = attachment
    return discord.File(io.BytesIO(data), filename=name)


async def send(
    interaction: discord.Interaction,
    rendered: Rendered | None = None,
    *,
    content: str | None = None,
    embeds: list[discord.Embed] | None = None,
    view: discord.ui.View | None = None,
    file: discord.File | None = None,
    ephemeral: bool,
) -> discord.Message | None:
    """Send one message as the response, or as a follow-up once the response is done.

    Returns the follow-up message, or None for a direct response (its message is reached
    through `interaction.original_response()`)."""
    if rendered is not None:
        embeds = [*(embeds or []), *rendered.embeds]
        content = content or rendered.content
        if rendered.attachment is not None and file is None:
            file = to_file(rendered.attachment)
    kwargs: dict[str, Any] = {"allowed_mentions": SAFE_MENTIONS, "ephemeral": ephemeral}
    if content:
        kwargs["content"] = content
    if embeds:
        kwargs["embeds"] = embeds
    if view is not None:
        kwargs["view"] = view
    if file is not None:
        kwargs["file"] = file
    if interaction.response.is_done():
        message = await interaction.followup.send(wait=True, **kwargs)
        progress(interaction).filled = True
        return message
    await interaction.response.send_message(**kwargs)
    return None


async def send_private(
    interaction: discord.Interaction,
    *,
    content: str | None = None,
    embeds: list[discord.Embed] | None = None,
) -> None:
    """Send a message only the user sees, even after a public "thinking…" acknowledgement.

    The first follow-up would fill that public placeholder, so it is deleted first.
    """
    state = progress(interaction)
    if interaction.response.is_done() and state.deferred_public and not state.filled:
        await interaction.delete_original_response()
        state.filled = True
    await send(interaction, content=content, embeds=embeds, ephemeral=True)
