"""/paper, /random and /collections: one paper in full, a random one, what is loaded."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.discord_shell import render, replies
from bot.discord_shell.cogs.base import PaperCog
from bot.discord_shell.options import (
    collection_choices,
    ephemeral_for,
    paper_choices,
    resolve_paper,
)
from bot.discord_shell.views import paper_view
from retrieval.models import Paper

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot


class Papers(PaperCog):
    async def show_paper(
        self, interaction: discord.Interaction, paper: Paper, *, ephemeral: bool
    ) -> None:
        await replies.send(
            interaction, render.paper_message(paper), view=paper_view(paper), ephemeral=ephemeral
        )

    @app_commands.command()
    @app_commands.describe(
        id="A paper id such as icml2026-7 (start typing for suggestions)",
        private="Only you see the paper (default: everyone in the channel)",
    )
    @app_commands.autocomplete(id=paper_choices)
    async def paper(
        self,
        interaction: discord.Interaction,
        id: app_commands.Range[str, 1, 100],
        private: bool | None = None,
    ) -> None:
        """Show one paper in full, with its links and buttons for similar papers and saving."""
        paper = await resolve_paper(self.engine, id)
        await self.show_paper(interaction, paper, ephemeral=ephemeral_for(interaction, private))

    @app_commands.command(name="random")
    @app_commands.describe(
        collection="Pick from this collection only",
        private="Only you see the paper (default: everyone in the channel)",
    )
    @app_commands.autocomplete(collection=collection_choices)
    async def random_paper(
        self,
        interaction: discord.Interaction,
        collection: app_commands.Range[str, 1, 100] | None = None,
        private: bool | None = None,
    ) -> None:
        """Show a random paper, for browsing."""
        paper = await self.engine.random_paper(collection)
        await self.show_paper(interaction, paper, ephemeral=ephemeral_for(interaction, private))

    @app_commands.command()
    async def collections(self, interaction: discord.Interaction) -> None:
        """List the loaded collections and their paper counts."""
        infos = await self.engine.collections()
        await replies.send(interaction, embeds=[render.collections_embed(infos)], ephemeral=True)


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(Papers(bot))
