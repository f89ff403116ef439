"""/watch, /watches, /unwatch, and the loop that sends watch digests (discord_shell/digests.py)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import tasks

from bot.discord_shell import render, replies
from bot.discord_shell.cogs.base import PaperCog
from bot.discord_shell.digests import DigestSender
from bot.text import clip
from retrieval.watches.service import WatchRow

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot

log = logging.getLogger(__name__)


def watch_line(watch: WatchRow) -> str:
    where = f"<#{watch.channel_id}>" if watch.channel_id else "DM"
    fired = (
        f"last fired {watch.last_fired_at[:16].replace('T', ' ')} UTC"
        if watch.last_fired_at
        else "not fired yet"
    )
    query = render.code(clip(watch.query, 150, escaped=False), 160)
    line = f"**{watch.id}** · {query} · {where} · {fired}"
    if watch.paused_reason:
        line += (
            f"\n  paused: {clip(watch.paused_reason, 200)} (`/unwatch {watch.id}` and watch again)"
        )
    return line


class WatchCog(PaperCog):
    def __init__(self, bot: PaperBot) -> None:
        super().__init__(bot)
        self.sender = DigestSender(bot)
        self.deliveries = tasks.loop(seconds=bot.settings.watch_poll_seconds)(self._deliver)

    async def cog_load(self) -> None:
        self.deliveries.start()

    async def cog_unload(self) -> None:
        self.deliveries.cancel()

    async def _deliver(self) -> None:
        if not self.bot.is_ready():
            return
        try:
            await self.sender.run_once()
        except Exception:  # one bad round must not stop later ones
            log.exception("sending watch digests failed; will look again next round")

    @app_commands.command()
    @app_commands.describe(
        query='What to watch for, as in /search ("phrases", -term, in:collection)',
        channel="Announce in this channel instead of by DM (needs Manage Server)",
    )
    async def watch(
        self,
        interaction: discord.Interaction,
        query: app_commands.Range[str, 1, 300],
        channel: app_commands.AppCommandChannel | None = None,
    ) -> None:
        """Get told when newly added papers match a query."""
        guild_id = interaction.guild_id
        if channel is not None:
            refusal = self._channel_refusal(interaction, channel)
            if refusal:
                await replies.send(interaction, content=refusal, ephemeral=True)
                return
        await replies.defer(interaction, ephemeral=True)
        row = await self.engine.watches.add(
            interaction.user.id,
            query,
            guild_id=guild_id,
            channel_id=channel.id if channel is not None else None,
        )
        where = f"in <#{row.channel_id}>" if row.channel_id else "by DM"
        text = (
            f"Watch **{row.id}** saved: papers added later that match "
            f"{render.code(clip(row.query, 150, escaped=False), 160)} will be announced {where}. "
            "See `/watches`."
        )
        await replies.send(interaction, content=text, ephemeral=True)

    def _channel_refusal(
        self, interaction: discord.Interaction, channel: app_commands.AppCommandChannel
    ) -> str | None:
        """Why a channel watch is refused, or None: members need Manage Server (or to be an
        owner), and paperbot must be able to post there."""
        if interaction.guild is None:
            return "Channel watches work in servers; in DMs, use `/watch` without a channel."
        allowed = interaction.permissions.manage_guild or (
            interaction.user.id in self.settings.owner_ids
        )
        if not allowed:
            return (
                "Announcing in a channel needs the Manage Server permission; "
                "`/watch` without a channel sends you DMs."
            )
        if channel.type not in (discord.ChannelType.text, discord.ChannelType.news):
            return "Watches can announce in text or announcement channels only."
        me, resolved = interaction.guild.me, channel.resolve()
        # Without the channel or the bot's member in the cache the first delivery tells: a
        # refused one pauses the watch with the reason.
        if me is not None and isinstance(resolved, discord.abc.GuildChannel):
            permissions = resolved.permissions_for(me)
            if not (permissions.send_messages and permissions.embed_links):
                return (
                    f"paperbot cannot post embeds in <#{channel.id}>; "
                    "give it Send Messages and Embed Links there."
                )
        return None

    @app_commands.command()
    async def watches(self, interaction: discord.Interaction) -> None:
        """Your watches: query, where they are announced, when each last fired."""
        await replies.defer(interaction, ephemeral=True)
        rows = await self.engine.watches.of(interaction.user.id)
        if not rows:
            text = "You have no watches. Add one with `/watch query`."
        else:
            text = "\n".join(["**Your watches**", *(watch_line(row) for row in rows[:20])])
        await replies.send(interaction, content=clip(text, 1900, escaped=False), ephemeral=True)

    @app_commands.command()
    @app_commands.describe(id="The watch number shown by /watches")
    async def unwatch(
        self, interaction: discord.Interaction, id: app_commands.Range[int, 1]
    ) -> None:
        """Stop a watch."""
        removed = await self.engine.watches.remove(interaction.user.id, id)
        text = (
            f"Watch **{id}** removed."
            if removed
            else f"You have no watch **{id}**. See `/watches`."
        )
        await replies.send(interaction, content=text, ephemeral=True)


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(WatchCog(bot))
