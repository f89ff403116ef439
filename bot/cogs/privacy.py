"""/privacy (what paperbot stores about you) and /forget-me (delete it, after a button)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot import render, replies
from bot.cogs.base import PaperCog
from bot.text import clip
from bot.views import OwnedView
from retrieval.privacy import PrivacyReport, describe

if TYPE_CHECKING:
    from bot.client import PaperBot
    from retrieval.engine import Engine

CONFIRM_TIMEOUT = 120.0


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


class ForgetView(OwnedView):
    """ "Delete everything" / "Cancel" for the person who ran /forget-me."""

    def __init__(self, engine: Engine, owner_id: int) -> None:
        super().__init__(owner_id, timeout=CONFIRM_TIMEOUT)
        self.engine = engine

    @discord.ui.button(label="Delete everything", style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        deleted = await self.engine.privacy.forget(self.owner_id)
        self.stop()
        lines = describe(deleted)
        text = (
            "Deleted:\n" + "\n".join(f"• {line}" for line in lines) + "\nNothing about you remains."
            if lines
            else "There was nothing stored about you; nothing remains."
        )
        await interaction.response.edit_message(
            content=text, view=None, allowed_mentions=render.SAFE_MENTIONS
        )

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        self.stop()
        await interaction.response.edit_message(
            content="Cancelled; nothing was deleted.",
            view=None,
            allowed_mentions=render.SAFE_MENTIONS,
        )


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
        view = ForgetView(self.engine, interaction.user.id)
        await replies.send(interaction, content=text, view=view, ephemeral=True)


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(PrivacyCog(bot))
