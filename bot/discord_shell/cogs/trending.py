"""/trending [days], and the counters behind it: after a slash command completes in a server,
the papers it opened (/paper, /similar), saved (/save) or showed for a question (/ask, /search
first page, as recorded when the answer was sent) are counted per guild, per paper, per day. No
user id or question text is stored."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_shell import render, replies
from bot.discord_shell.cogs.base import PaperCog
from bot.discord_shell.interaction_state import progress
from bot.text import clip
from retrieval.errors import PaperbotError

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot

log = logging.getLogger(__name__)

# command -> the counter its paper id option feeds
BY_ID = {"paper": "opens", "similar": "opens", "save": "saves"}


class TrendingCog(PaperCog):
    @commands.Cog.listener()
    async def on_app_command_completion(
        self,
        interaction: discord.Interaction,
        command: app_commands.Command[Any, ..., Any] | app_commands.ContextMenu,
    ) -> None:
        guild_id = interaction.guild_id
        if guild_id is None:
            return
        try:
            await self._count(guild_id, command.qualified_name, interaction)
        except PaperbotError:
            return  # a paper or question that no longer resolves: nothing to count
        except Exception:  # counting must never disturb the command that already answered
            log.exception("could not count activity for /%s", command.qualified_name)

    async def _count(self, guild_id: int, name: str, interaction: discord.Interaction) -> None:
        engine = self.engine
        options = interaction.namespace
        if name in BY_ID and isinstance(getattr(options, "id", None), str):
            paper = await engine.paper(options.id)
            await engine.trending.record(guild_id, BY_ID[name], [paper.id])
        elif name in ("ask", "search"):
            # The papers the answer actually showed, as the command left them: the question is
            # not ranked a second time.
            shown = progress(interaction).shown
            if shown:
                await engine.trending.record(guild_id, "asks", list(shown))

    @app_commands.command()
    @app_commands.describe(days="How many days back (default 7, at most 90)")
    @app_commands.guild_only()
    async def trending(
        self, interaction: discord.Interaction, days: app_commands.Range[int, 1, 90] = 7
    ) -> None:
        """The papers this server opened, saved and asked about most lately."""
        if interaction.guild_id is None:
            await replies.send(interaction, content="Trending is per server.", ephemeral=True)
            return
        await replies.defer(interaction, ephemeral=False)
        rows = await self.engine.trending.top(interaction.guild_id, days, limit=10)
        embed = discord.Embed(title=f"Trending here, last {days} day(s)", colour=render.COLOUR)
        if not rows:
            embed.description = (
                "Nothing yet: open, save or ask about papers with /paper, /save, /ask."
            )
        else:
            embed.description = "\n".join(
                f"{n}. {render.code(row.paper.id)} {clip(row.paper.display_title, 150)}\n"
                f"   {row.opens} opened · {row.saves} saved · {row.asks} asked about"
                for n, row in enumerate(rows, 1)
            )
        await replies.send(interaction, embeds=[embed], ephemeral=False)


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(TrendingCog(bot))
