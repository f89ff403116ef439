"""/privacy (what paperbot stores about you) and /forget-me (delete it, after a button)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.ui import DynamicItem

from bot.discord_shell import render, replies
from bot.discord_shell.cogs.base import PaperCog
from bot.discord_shell.views import RoutedItem
from bot.text import clip
from retrieval.privacy import PrivacyReport, describe

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot


def privacy_text(report: PrivacyReport) -> str:
    """One private message: counts, then the saved ids and watches themselves (clipped)."""
    lines = describe(report.counts)
    if not lines:
        return "paperbot stores nothing about you."
    parts = ["**What paperbot stores about you**", *(f"• {line}" for line in lines)]
    if report.saved_ids:
        ids = ", ".join(render.code(pid) for pid in report.saved_ids[:30])
        more = f" and {len(report.saved_ids) - 30} more" if len(report.saved_ids) > 30 else ""
        parts.append(f"Saved: {ids}{more}")
    for watch in report.watches[:10]:
        parts.append(f"Watch {watch.id}: {render.code(clip(watch.query, 120), 130)}")
    parts.append(
        "Conversation memory expires on its own; `/forget-me` deletes all of this now. "
        "Details: docs/privacy.md."
    )
    return clip("\n".join(parts), 1900, escaped=False)


class ForgetButton(
    RoutedItem,
    DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"pb:forget:(?P<owner>\d{1,20}):(?P<choice>yes|no)",
):
    """ "Delete everything" / "Cancel" under /forget-me; works after a restart too."""

    def __init__(self, owner: int, confirm: bool) -> None:
        self.owner, self.confirm = owner, confirm
        super().__init__(
            discord.ui.Button(
                label="Delete everything" if confirm else "Cancel",
                style=discord.ButtonStyle.danger if confirm else discord.ButtonStyle.secondary,
                custom_id=f"pb:forget:{owner}:{'yes' if confirm else 'no'}",
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ForgetButton:
        return cls(int(match["owner"]), match["choice"] == "yes")

    async def run(self, interaction: discord.Interaction) -> None:
        if interaction.user.id != self.owner:
            text = "Only the person who ran /forget-me can confirm it."
            await replies.send(interaction, content=text, ephemeral=True)
            return
        text = "Cancelled; nothing was deleted."
        if self.confirm:
            engine = cast("PaperBot", interaction.client).engine
            lines = describe(await engine.privacy.forget(self.owner))
            text = (
                "Deleted:\n"
                + "\n".join(f"• {line}" for line in lines)
                + "\nNothing about you remains."
                if lines
                else "There was nothing stored about you; nothing remains."
            )
        await interaction.response.edit_message(
            content=text, view=None, allowed_mentions=render.SAFE_MENTIONS
        )


def forget_view(owner: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetButton(owner, True))
    view.add_item(ForgetButton(owner, False))
    return view


class PrivacyCog(PaperCog):
    @app_commands.command()
    async def privacy(self, interaction: discord.Interaction) -> None:
        """What paperbot stores about you (only you see the answer)."""
        await replies.defer(interaction, ephemeral=True)
        report = await self.engine.privacy.report(interaction.user.id)
        await replies.send(interaction, content=privacy_text(report), ephemeral=True)

    @app_commands.command(name="forget-me")
    async def forget_me(self, interaction: discord.Interaction) -> None:
        """Delete everything paperbot stores about you (asks you to confirm first)."""
        await replies.defer(interaction, ephemeral=True)
        report = await self.engine.privacy.report(interaction.user.id)
        lines = describe(report.counts)
        if not lines:
            await replies.send(
                interaction, content="paperbot stores nothing about you.", ephemeral=True
            )
            return
        text = "This deletes, for good:\n" + "\n".join(f"• {line}" for line in lines)
        view = forget_view(interaction.user.id)
        await replies.send(interaction, content=text, view=view, ephemeral=True)


async def setup(bot: PaperBot) -> None:
    bot.add_dynamic_items(ForgetButton)
    await bot.add_cog(PrivacyCog(bot))
