"""/stats and /help."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.discord_shell import render, replies
from bot.discord_shell.cogs.base import PaperCog

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot


class Info(PaperCog):
    @app_commands.command()
    async def stats(self, interaction: discord.Interaction) -> None:
        """Papers, latency and event-loop lag here; the processes sharing the database."""
        stats = await self.engine.stats()
        cluster = await self.engine.nodes.cluster()
        here = render.Here(len(self.bot.guilds), self.bot.shard_count)
        embed = render.stats_embed(stats, self.bot.loop_lag.snapshot(), (cluster, here))
        await replies.send(interaction, embeds=[embed], ephemeral=True)

    @app_commands.command(name="help")
    async def help_command(self, interaction: discord.Interaction) -> None:
        """A short guide to paperbot's commands, with examples."""
        await replies.send(interaction, embeds=[render.help_embed(self.settings)], ephemeral=True)


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(Info(bot))
