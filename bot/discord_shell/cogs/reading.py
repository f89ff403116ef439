"""Reading lists: /save, /unsave and /saved (paginated, exportable as .md, .txt, .bib, .csv)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.discord_shell import render, replies
from bot.discord_shell.attachments import EXPORT_CHOICES, TOO_BIG, export_attachment
from bot.discord_shell.cogs.base import PaperCog
from bot.discord_shell.options import paper_choices, resolve_paper, saved_choices
from bot.discord_shell.views import saved_page, saved_text
from bot.wording import plural

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot


class Reading(PaperCog):
    @app_commands.command()
    @app_commands.describe(id="A paper id such as icml2026-7 (start typing for suggestions)")
    @app_commands.autocomplete(id=paper_choices)
    async def save(
        self, interaction: discord.Interaction, id: app_commands.Range[str, 1, 100]
    ) -> None:
        """Save a paper to your reading list."""
        paper = await resolve_paper(self.engine, id)
        paper, added = await self.engine.save_paper(interaction.user.id, paper.id)
        await replies.send(interaction, content=saved_text(paper, added), ephemeral=True)

    @app_commands.command()
    @app_commands.describe(id="The id of a paper in your reading list")
    @app_commands.autocomplete(id=saved_choices)
    async def unsave(
        self, interaction: discord.Interaction, id: app_commands.Range[str, 1, 100]
    ) -> None:
        """Remove a paper from your reading list."""
        removed = await self.engine.unsave_paper(interaction.user.id, id.strip())
        shown = render.code(id.strip(), 100)
        text = (
            f"Removed {shown} from your reading list."
            if removed
            else f"{shown} is not in your reading list. See `/saved`."
        )
        await replies.send(interaction, content=text, ephemeral=True)

    @app_commands.command()
    @app_commands.describe(export="Get the whole list as a file instead of pages")
    @app_commands.choices(export=EXPORT_CHOICES)
    async def saved(
        self,
        interaction: discord.Interaction,
        export: app_commands.Choice[str] | None = None,
    ) -> None:
        """Your reading list, 10 per page, or exported as a file (Markdown, text, BibTeX, CSV)."""
        await replies.defer(interaction, ephemeral=True)
        papers = await self.engine.saved_papers(interaction.user.id)
        if export is not None and papers:
            attachment = export_attachment(papers, export.value, title="Reading list")
            if attachment is None:
                await replies.send(interaction, content=TOO_BIG, ephemeral=True)
                return
            text = f"Your reading list: {plural(len(papers), 'paper')}."
            await replies.send(
                interaction, content=text, file=replies.to_file(attachment), ephemeral=True
            )
            return
        embed, view = saved_page(papers, interaction.user.id, 0)
        await replies.send(interaction, embeds=[embed], view=view, ephemeral=True)


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(Reading(bot))
