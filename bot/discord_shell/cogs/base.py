"""The common base of paperbot's cogs: typed access to the injected bot, settings and engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord.ext import commands

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot
    from config.settings import Settings
    from retrieval.api import EngineAPI


class PaperCog(commands.Cog):
    def __init__(self, bot: PaperBot) -> None:
        self.bot = bot

    @property
    def engine(self) -> EngineAPI:
        return self.bot.engine

    @property
    def settings(self) -> Settings:
        return self.bot.settings
