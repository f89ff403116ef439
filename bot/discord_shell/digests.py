"""Sending watch digests: one embed per digest, to a DM or a channel, claimed before sending.

Which digests this process sends: channel digests for guilds it is connected to, DM digests on
shard 0 (or the only process). A delivery failure (DMs closed, channel gone, no permission)
pauses the watch with a reason, logged once per digest, never retried.
"""

from __future__ import annotations

import logging
import os
import socket
from typing import TYPE_CHECKING

import discord

from bot.discord_shell import render
from bot.text import clip, clip_plain
from retrieval.watches.service import CONSOLE_USER, Digest

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot

log = logging.getLogger(__name__)

CLAIMER = f"{socket.gethostname()}:{os.getpid()}"


def digest_embed(digest: Digest) -> discord.Embed:
    """Up to 5 papers (label, id, matching sentence), then "and N more: /search …"."""
    query = clip_plain(digest.query, 180, fallback="your query")
    embed = discord.Embed(title=f"New papers for your watch: {query}", colour=render.COLOUR)
    for paper in digest.papers:
        value = (
            f"{render.code(paper.paper_id)}\n{clip(paper.sentence, 600)}"
            if paper.sentence
            else render.code(paper.paper_id)
        )
        embed.add_field(
            name=clip_plain(paper.label, 250, fallback=paper.paper_id), value=value, inline=False
        )
    footer = f"Watch {digest.watch_id} · /unwatch {digest.watch_id} to stop"
    if digest.more:
        footer = f"and {digest.more} more: /search {clip_plain(digest.query, 150)} · " + footer
    embed.set_footer(text=footer)
    return embed


def failure_reason(error: discord.HTTPException, by_dm: bool) -> str:
    if isinstance(error, discord.Forbidden):
        return (
            "your DMs are closed to paperbot" if by_dm else "paperbot may not post in that channel"
        )
    if isinstance(error, discord.NotFound):
        return "the user cannot be reached" if by_dm else "the channel no longer exists"
    return f"Discord refused the message (HTTP {error.status})"


class DigestSender:
    """Claims and sends the pending digests this process is responsible for."""

    def __init__(self, bot: PaperBot) -> None:
        self.bot = bot

    def responsible(self, digest: Digest) -> bool:
        if digest.user_id == CONSOLE_USER:
            return False
        if digest.by_dm:
            return self.bot.settings.owns_shard_zero
        return digest.guild_id is None or self.bot.get_guild(digest.guild_id) is not None

    async def destination(self, digest: Digest) -> discord.abc.Messageable:
        if digest.channel_id is not None:
            return self.bot.get_partial_messageable(digest.channel_id)
        user = self.bot.get_user(digest.user_id) or await self.bot.fetch_user(digest.user_id)
        return user.dm_channel or await user.create_dm()

    async def run_once(self) -> int:
        """Send every pending digest this process owns; returns how many were sent."""
        engine = self.bot.engine
        sent = 0
        for digest in await engine.watches.pending():
            if not self.responsible(digest) or not await engine.watches.claim(digest, CLAIMER):
                continue
            try:
                target = await self.destination(digest)
                await target.send(embed=digest_embed(digest), allowed_mentions=render.SAFE_MENTIONS)
            except discord.HTTPException as error:
                reason = failure_reason(error, digest.by_dm)
                log.warning("watch %d paused: %s", digest.watch_id, reason)
                await engine.watches.failed(digest, reason)
                continue
            await engine.watches.delivered(digest)
            sent += 1
        return sent
