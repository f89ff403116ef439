"""Chat questions: a mention or a DM gets the same answer as /ask, as a reply.

Mentions and DMs carry their content without the privileged message-content intent. Plain
messages in `settings.chat_channel_ids` are answered only when that intent is enabled.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot import render
from bot.boundary import handle_chat_error
from bot.chat_throttle import Action
from bot.cogs.base import PaperCog
from bot.cooldown import wait_text
from bot.queries import QueryRef, fetch_slice
from bot.views import send_answer
from retrieval.models import Answer

if TYPE_CHECKING:
    from bot.client import PaperBot

log = logging.getLogger(__name__)

BUSY_REACTION = "\N{HOURGLASS WITH FLOWING SAND}"
EMPTY_QUESTION = (
    "Ask me about ML papers, e.g. `@paperbot which papers study MoE routing?` — "
    "or use `/ask`. `/help` has more."
)


def can_react(message: discord.Message) -> bool:
    """Reactions work in DMs; in a server the bot needs Add Reactions (and history) there."""
    guild = message.guild
    if guild is None or guild.me is None:
        return guild is None
    permissions = message.channel.permissions_for(guild.me)
    return permissions.add_reactions and permissions.read_message_history


def strip_mentions(content: str, bot_id: int) -> str:
    """The question without the bot's own mention(s)."""
    return re.sub(rf"<@!?{bot_id}>", " ", content).strip()


class Chat(PaperCog):
    def wants(self, message: discord.Message) -> bool:
        """Should paperbot answer this message?"""
        me = self.bot.user
        if me is None or message.author.bot or message.author.id == me.id:
            return False
        if message.guild is None:
            return True
        if me.id in message.raw_mentions or me in message.mentions:
            return True
        settings = self.settings
        return settings.message_content_intent and message.channel.id in settings.chat_channel_ids

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if not self.wants(message):
            return
        assert self.bot.user is not None
        try:
            await self.answer(message, strip_mentions(message.content, self.bot.user.id))
        except Exception as error:
            await handle_chat_error(message, error)

    async def answer(self, message: discord.Message, question: str) -> None:
        decision = self.bot.chat_throttle.decide(message.author.id, message.channel.id, question)
        if decision.action is Action.SILENT:
            return
        if decision.action is Action.NOTICE:
            await self.notice_busy(message, decision.wait)
            return
        if not question:
            await message.reply(
                EMPTY_QUESTION, mention_author=False, allowed_mentions=render.SAFE_MENTIONS
            )
            return
        async with message.channel.typing():
            answer = await self.respond(message, question)
        await send_answer(
            message,
            self.bot,
            answer,
            ref=QueryRef("ask", question),
            heading="Answer",
        )

    async def notice_busy(self, message: discord.Message, wait: float) -> None:
        """The one notice of a throttle window: a ⏳ reaction when allowed, else one short line."""
        if can_react(message):
            try:
                await message.add_reaction(BUSY_REACTION)
                return
            except discord.HTTPException as error:
                log.info("could not react to message %s (%s); replying instead", message.id, error)
        await message.reply(
            wait_text(wait), mention_author=False, allowed_mentions=render.SAFE_MENTIONS
        )

    async def respond(self, message: discord.Message, question: str) -> Answer:
        """The one place a chat message becomes an answer: the seam for the conversation
        service (scope from `message.author`/`message.channel`, a reply's
        `message.reference`); `send_answer` returns the sent message for the answer map."""
        return await fetch_slice(
            self.engine, QueryRef("ask", question), 0, self.settings.answer_results
        )


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(Chat(bot))
