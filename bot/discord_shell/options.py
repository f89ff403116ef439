"""Shared command plumbing: the question cooldown check, autocompletes and typed-value checks."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, cast

import discord
from discord import app_commands

from bot.discord_shell.boundary import OnCooldown
from bot.discord_shell.render import CHOICE_NAME_MAX, choice_name
from bot.text import clip_plain, one_line
from retrieval.errors import PaperNotFound
from retrieval.models import Paper

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot
    from retrieval.api import EngineAPI

log = logging.getLogger(__name__)

AUTOCOMPLETE_MAX = 25


def bot_of(interaction: discord.Interaction) -> PaperBot:
    return cast("PaperBot", interaction.client)


def enforce_cooldown(interaction: discord.Interaction) -> bool:
    """App-command check: count a question against the user's cooldown, or refuse."""
    wait = bot_of(interaction).cooldown.hit(interaction.user.id)
    if wait is not None:
        raise OnCooldown(wait)
    return True


question_cooldown = app_commands.check(enforce_cooldown)


def ephemeral_for(interaction: discord.Interaction, private: bool | None) -> bool:
    """Public by default (settings.public_answers); the `private` option overrides."""
    if private is not None:
        return private
    return not bot_of(interaction).settings.public_answers


async def paper_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Autocomplete over paper ids and labels: at most 25 choices, names at most 100 chars."""
    try:
        pairs = await bot_of(interaction).engine.suggest_papers(one_line(current)[:200], limit=25)
    except Exception:  # autocomplete must answer; an empty list is better than a failure
        log.exception("paper autocomplete failed for %r", current[:100])
        return []
    choices: list[app_commands.Choice[str]] = []
    for paper_id, label in pairs[:AUTOCOMPLETE_MAX]:
        if 0 < len(paper_id) <= CHOICE_NAME_MAX:
            choices.append(app_commands.Choice(name=choice_name(paper_id, label), value=paper_id))
    return choices


async def saved_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Autocomplete over the user's own reading list (for /unsave)."""
    try:
        papers = await bot_of(interaction).engine.saved_papers(interaction.user.id)
    except Exception:
        log.exception("reading-list autocomplete failed")
        return []
    wanted = one_line(current).casefold()
    return [
        app_commands.Choice(name=choice_name(paper.id, paper.display_title), value=paper.id)
        for paper in papers
        if 0 < len(paper.id) <= CHOICE_NAME_MAX
        and (wanted in paper.id or wanted in paper.display_title.casefold())
    ][:AUTOCOMPLETE_MAX]


async def collection_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Autocomplete over collection names and slugs."""
    try:
        infos = await bot_of(interaction).engine.collections()
    except Exception:
        log.exception("collection autocomplete failed")
        return []
    wanted = one_line(current).casefold()
    choices = [
        app_commands.Choice(name=clip_plain(f"{info.name} ({info.papers})", 100), value=info.slug)
        for info in infos
        if wanted in info.name.casefold() or wanted in info.slug
    ]
    return choices[:AUTOCOMPLETE_MAX]


async def resolve_paper(engine: EngineAPI, value: str) -> Paper:
    """The paper a typed value names: an id (any case), or else the best autocomplete match.

    Users may ignore suggestions, so a free-text value that is not an id gets a helpful error
    naming the closest paper instead of a silent failure.
    """
    text = one_line(value)
    try:
        return await engine.paper(text)
    except PaperNotFound as error:
        if error.suggestion:
            raise
        pairs = await engine.suggest_papers(text, limit=1)
        if pairs:
            raise PaperNotFound(clip_plain(text, 80), suggestion=pairs[0][0]) from None
        raise PaperNotFound(clip_plain(text, 80)) from None
