"""/shortlist show|add|remove|export: one shared reading list per server, curated by members
with Manage Messages (or PAPERBOT_SHORTLIST_CURATOR_ROLE_ID), visible to everyone."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.ui import DynamicItem

from bot.discord_shell import render, replies
from bot.discord_shell.attachments import EXPORT_CHOICES, TOO_BIG, UPLOAD_LIMIT_BYTES
from bot.discord_shell.cogs.base import PaperCog
from bot.discord_shell.options import paper_choices, resolve_paper
from bot.discord_shell.views import PAGER_SLOTS, RoutedItem, add_pager
from bot.text import clip
from retrieval.shortlist import FORGOTTEN, ShortlistRow

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot

PER_PAGE = 8
NOT_IN_GUILD = "The server reading list lives in servers; use `/save` for your own list."


def curator_text(user_id: int) -> str:
    # A mention inside an embed shows the member's name and never pings.
    return FORGOTTEN if user_id == 0 else f"<@{user_id}>"


def entry_line(number: int, row: ShortlistRow) -> str:
    when = row.added_at[:10]
    line = (
        f"{number}. {render.code(row.paper.id)} {clip(row.paper.display_title, 160)}\n"
        f"   added by {curator_text(row.added_by)} on {when}"
    )
    if row.note:
        line += f": {clip(row.note, 200)}"
    return line


class ShortlistPages:
    """The guild's list in pages of PER_PAGE entries (already in memory)."""

    def __init__(self, rows: Sequence[ShortlistRow], guild_name: str) -> None:
        self.rows = list(rows)
        self.guild_name = guild_name
        self.pages = max(1, -(-len(self.rows) // PER_PAGE))

    def clamp(self, page: int) -> int:
        return min(max(page, 0), self.pages - 1)

    def view(self, page: int) -> discord.ui.View | None:
        """Paging buttons that survive restarts (anyone may page a public list)."""
        if self.pages <= 1:
            return None
        view = discord.ui.View(timeout=None)
        add_pager(
            view, page, self.pages, lambda target, slot, off: ShortlistPage(target, slot, off)
        )
        return view

    async def render(self, page: int) -> list[discord.Embed]:
        page = self.clamp(page)
        title = clip(f"{self.guild_name} reading list ({len(self.rows)})", 250, escaped=False)
        embed = discord.Embed(title=title, colour=render.COLOUR)
        if not self.rows:
            embed.description = "Nothing here yet. Curators add papers with `/shortlist add`."
            return [embed]
        start = page * PER_PAGE
        chunk = self.rows[start : start + PER_PAGE]
        embed.description = "\n".join(
            entry_line(start + offset + 1, row) for offset, row in enumerate(chunk)
        )
        embed.set_footer(text=f"Page {page + 1}/{self.pages} · /shortlist export for a file")
        return [embed]


async def _pages(bot: PaperBot, interaction: discord.Interaction) -> ShortlistPages:
    rows = await bot.engine.shortlist.entries(interaction.guild_id or 0)
    name = interaction.guild.name if interaction.guild else "Server"
    return ShortlistPages(rows, name)


class ShortlistPage(
    RoutedItem,
    DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"pb:sl:(?P<page>\d{1,4}):(?P<slot>[fpnl])",
):
    """A paging button under /shortlist show; the list is read afresh on every click."""

    def __init__(self, page: int, slot: str, off: bool) -> None:
        self.page = page
        label, style = PAGER_SLOTS[slot]
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                custom_id=f"pb:sl:{page}:{slot}",
                disabled=off,
                row=0,
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ShortlistPage:
        return cls(int(match["page"]), match["slot"], False)

    async def run(self, interaction: discord.Interaction) -> None:
        pages = await _pages(cast("PaperBot", interaction.client), interaction)
        page = pages.clamp(self.page)
        embeds = await pages.render(page)
        await interaction.response.edit_message(embeds=embeds, view=pages.view(page))


class ShortlistCog(PaperCog):
    shortlist = app_commands.Group(
        name="shortlist", description="This server's shared reading list", guild_only=True
    )

    def _may_curate(self, interaction: discord.Interaction) -> bool:
        if interaction.permissions.manage_messages:
            return True
        role_id = self.settings.shortlist_curator_role_id
        member = interaction.user
        return (
            role_id is not None
            and isinstance(member, discord.Member)
            and any(role.id == role_id for role in member.roles)
        )

    async def _refused(self, interaction: discord.Interaction) -> bool:
        if interaction.guild_id is None:
            await replies.send(interaction, content=NOT_IN_GUILD, ephemeral=True)
            return True
        if not self._may_curate(interaction):
            text = "Curating the server reading list needs the Manage Messages permission."
            await replies.send(interaction, content=text, ephemeral=True)
            return True
        return False

    @shortlist.command(name="show")
    async def show(self, interaction: discord.Interaction) -> None:
        """The server reading list, with who added each paper and when."""
        if interaction.guild_id is None:
            await replies.send(interaction, content=NOT_IN_GUILD, ephemeral=True)
            return
        await replies.defer(interaction, ephemeral=False)
        pages = await _pages(cast("PaperBot", interaction.client), interaction)
        embeds = await pages.render(0)
        await replies.send(interaction, embeds=embeds, view=pages.view(0), ephemeral=False)

    @shortlist.command(name="add")
    @app_commands.describe(id="A paper id such as icml2026-7", note="Why read it (optional)")
    @app_commands.autocomplete(id=paper_choices)
    async def add(
        self,
        interaction: discord.Interaction,
        id: app_commands.Range[str, 1, 100],
        note: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        """Add a paper to the server reading list (Manage Messages)."""
        if await self._refused(interaction) or interaction.guild_id is None:
            return
        paper = await resolve_paper(self.engine, id)
        row, added = await self.engine.shortlist.add(
            interaction.guild_id, paper.id, interaction.user.id, note
        )
        title = clip(row.paper.display_title, 150)
        text = (
            f"Added {render.code(row.paper.id)} {title} to the server reading list."
            if added
            else f"{render.code(row.paper.id)} is already on the list "
            f"(added by {curator_text(row.added_by)} on {row.added_at[:10]})."
        )
        await replies.send(interaction, content=text, ephemeral=False)

    @shortlist.command(name="remove")
    @app_commands.describe(id="The id of a paper on the server reading list")
    async def remove(
        self, interaction: discord.Interaction, id: app_commands.Range[str, 1, 100]
    ) -> None:
        """Remove a paper from the server reading list (Manage Messages)."""
        if await self._refused(interaction) or interaction.guild_id is None:
            return
        removed = await self.engine.shortlist.remove(interaction.guild_id, id)
        shown = render.code(id.strip(), 100)
        text = (
            f"Removed {shown} from the server reading list."
            if removed
            else f"{shown} is not on the server reading list. See `/shortlist show`."
        )
        await replies.send(interaction, content=text, ephemeral=not removed)

    @shortlist.command(name="export")
    @app_commands.describe(format="File format")
    @app_commands.choices(format=EXPORT_CHOICES)
    async def export(
        self, interaction: discord.Interaction, format: app_commands.Choice[str]
    ) -> None:
        """The server reading list as a file (Markdown, text, BibTeX, CSV)."""
        if interaction.guild_id is None:
            await replies.send(interaction, content=NOT_IN_GUILD, ephemeral=True)
            return
        await replies.defer(interaction, ephemeral=True)
        guild_id = interaction.guild_id
        names = {}
        if interaction.guild is not None:
            for row in await self.engine.shortlist.entries(guild_id):
                member = interaction.guild.get_member(row.added_by)
                if member is not None:
                    names[row.added_by] = member.display_name
        name, data, count = await self.engine.shortlist.export(guild_id, format.value, names=names)
        if not count:
            # An empty file reads as an export that worked; say what to do instead.
            await replies.send(interaction, content=EMPTY_EXPORT, ephemeral=True)
            return
        if len(data) > UPLOAD_LIMIT_BYTES:
            await replies.send(interaction, content=TOO_BIG, ephemeral=True)
            return
        text = f"Server reading list: {count} paper(s)."
        await replies.send(
            interaction, content=text, file=replies.to_file((name, data)), ephemeral=True
        )


EMPTY_EXPORT = (
    "The server reading list is empty, so there is nothing to export. "
    "Add papers with `/shortlist add`."
)


async def setup(bot: PaperBot) -> None:
    bot.add_dynamic_items(ShortlistPage)
    await bot.add_cog(ShortlistCog(bot))
