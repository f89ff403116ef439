"""/admin reload, ingest and sync: for owners in settings or members with Manage Server.

Uploads are checked (size, extension, UTF-8) before anything reaches the engine, whose ingest is
atomic and reports the exact bad line.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_shell import render, replies
from bot.discord_shell.boundary import NotAllowed, UserInputError
from bot.discord_shell.cogs.base import PaperCog
from bot.discord_shell.options import bot_of
from bot.text import clip
from retrieval.lists import PAPER_FILE_SUFFIXES

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot


def is_admin(interaction: discord.Interaction) -> bool:
    """Owners named in settings, or members with Manage Server in this guild."""
    if interaction.user.id in bot_of(interaction).settings.owner_ids:
        return True
    permissions = interaction.permissions
    return interaction.guild_id is not None and permissions.manage_guild


def require_admin(interaction: discord.Interaction) -> bool:
    if not is_admin(interaction):
        raise NotAllowed("Only the bot's owners or members with Manage Server can do that.")
    return True


def require_owner(interaction: discord.Interaction) -> bool:
    if interaction.user.id not in bot_of(interaction).settings.owner_ids:
        raise NotAllowed("Only the bot's owners (PAPERBOT_OWNER_IDS) can sync commands.")
    return True


def check_upload(filename: str, size: int, max_bytes: int) -> str:
    """Validate an upload before reading it; returns a safe base filename."""
    name = PurePath(filename.replace("\\", "/")).name or "upload.txt"
    if not name.lower().endswith(PAPER_FILE_SUFFIXES):
        raise UserInputError(f"Upload a `.txt` paper list or a `.jsonl` file (got `{name[:80]}`).")
    if size <= 0:
        raise UserInputError(f"`{name[:80]}` is empty.")
    if size > max_bytes:
        raise UserInputError(
            f"`{name[:80]}` is {render.human_bytes(size)}; the limit is "
            f"{render.human_bytes(max_bytes)} (PAPERBOT_MAX_UPLOAD_BYTES)."
        )
    return name


def check_text(name: str, data: bytes, max_bytes: int) -> None:
    """The downloaded bytes: within the limit and UTF-8."""
    if len(data) > max_bytes:
        raise UserInputError(
            f"`{name[:80]}` is larger than the {render.human_bytes(max_bytes)} limit."
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UserInputError(
            f"`{name[:80]}` is not UTF-8 text (byte {error.start}); save it as UTF-8."
        ) from None


@app_commands.default_permissions(manage_guild=True)
class Admin(
    PaperCog,
    commands.GroupCog,
    group_name="admin",
    group_description="Manage paperbot's papers (owners and Manage Server)",
):
    """/admin reload, /admin ingest, /admin sync."""

    @app_commands.command()
    @app_commands.check(require_admin)
    async def reload(self, interaction: discord.Interaction) -> None:
        """Re-read the seeds folder and report what was added and skipped."""
        await replies.defer(interaction, ephemeral=True)
        report = await self.engine.reload_seeds()
        embed = render.ingest_embed(report, title="Reloaded the seeds folder")
        await replies.send(interaction, embeds=[embed], ephemeral=True)

    @app_commands.command()
    @app_commands.describe(
        file="A .txt paper list or a .jsonl file",
        collection="Put the papers in this collection (default: from the file's header or name)",
    )
    @app_commands.check(require_admin)
    async def ingest(
        self,
        interaction: discord.Interaction,
        file: discord.Attachment,
        collection: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        """Add papers from an uploaded .txt list or .jsonl file (all or nothing)."""
        limit = self.settings.max_upload_bytes
        name = check_upload(file.filename, file.size, limit)
        await replies.defer(interaction, ephemeral=True)
        try:
            data = await file.read()
        except (discord.HTTPException, OSError) as error:
            raise UserInputError(f"Couldn't download `{name[:80]}` from Discord: {error}") from None
        check_text(name, data, limit)
        report = await self.engine.ingest_bytes(name, data, collection=collection)
        embed = render.ingest_embed(report, title=f"Ingested {clip(name, 200)}")
        await replies.send(interaction, embeds=[embed], ephemeral=True)

    @app_commands.command()
    @app_commands.describe(scope="Where to sync: this server (instant) or everywhere (slow)")
    @app_commands.choices(
        scope=[
            app_commands.Choice(name="this server", value="guild"),
            app_commands.Choice(name="global", value="global"),
        ]
    )
    @app_commands.check(require_owner)
    async def sync(self, interaction: discord.Interaction, scope: app_commands.Choice[str]) -> None:
        """Sync the slash commands with Discord (owners only; mind the daily limit)."""
        await replies.defer(interaction, ephemeral=True)
        guild_id = interaction.guild_id if scope.value == "guild" else None
        if scope.value == "guild" and guild_id is None:
            raise UserInputError("Run this in a server to sync there, or choose global.")
        summary = await bot_of(interaction).sync_now(guild_id, here=interaction.guild_id)
        await replies.send(interaction, content=summary, ephemeral=True)


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(Admin(bot))
