"""Small helpers shared by the bot tests."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_shell.client import PaperBot


async def run(bot: PaperBot, interaction: discord.Interaction) -> discord.Interaction:
    """Dispatch an application-command or autocomplete interaction like discord.py does."""
    await bot.tree._call(interaction)
    return interaction


def labels(body: dict[str, Any]) -> list[str | None]:
    return [c.get("label") for row in body.get("components", []) for c in row["components"]]


def disabled(body: dict[str, Any]) -> dict[str | None, bool]:
    return {
        c.get("label") or c.get("placeholder"): bool(c.get("disabled"))
        for row in body.get("components", [])
        for c in row["components"]
    }
