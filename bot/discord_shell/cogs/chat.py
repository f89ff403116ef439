"""Chat: a mention or a DM is understood by the chat service (greetings, ids, follow-ups,
collections named in words, questions about papers) and answered as a reply.

Mentions and DMs carry their content without the privileged message-content intent. Plain
messages in `settings.chat_channel_ids` are answered only when that intent is enabled. A reply
to one of paperbot's answers resolves "the second one" against that answer.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot import wording
from bot.discord_shell import render
from bot.discord_shell.boundary import handle_chat_error
from bot.discord_shell.chat_render import reply_parts
from bot.discord_shell.chat_throttle import Action
from bot.discord_shell.cogs.base import PaperCog
from bot.discord_shell.cooldown import wait_text
from bot.discord_shell.queries import QueryRef
from bot.discord_shell.views import send_answer
from bot.text import escape
from retrieval.conversation import IntentKind
from retrieval.conversation.chat import ChatService, Conversation, Reply

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot

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
        follow_up = await self.service.is_follow_up(question, self.conversation(message))
        decision = self.bot.chat_throttle.decide(
            message.author.id, message.channel.id, question, follow_up=follow_up
        )
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
            reply = await self.respond(message, question)
        sent = await self.send_reply(message, reply)
        if sent is not None:
            await self.service.remember_sent(sent.id, self.conversation(message), reply)

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

    @property
    def service(self) -> ChatService:
        return self.bot.chat_service

    @staticmethod
    def conversation(message: discord.Message) -> Conversation:
        """Memory is per user and channel in servers, per user in DMs."""
        channel = None if message.guild is None else message.channel.id
        return Conversation.of(message.author.id, channel)

    async def respond(self, message: discord.Message, question: str) -> Reply:
        """The one place a chat message becomes a reply: understood by the chat service, with a
        Discord reply to one of the bot's answers resolving against that answer."""
        reference = message.reference
        replied = reference.message_id if reference is not None else None
        return await self.service.handle(question, self.conversation(message), reply_to=replied)

    async def send_reply(self, message: discord.Message, reply: Reply) -> discord.Message | None:
        """Render a reply; returns the message that shows papers (for replies to it)."""
        if reply.answer is not None:
            return await send_chat_answer(message, self.bot, reply)
        content, embeds, view = reply_parts(reply, self.settings)
        sent = await message.reply(
            content=content,
            embeds=embeds,
            view=view or discord.utils.MISSING,
            mention_author=False,
            allowed_mentions=render.SAFE_MENTIONS,
        )
        return sent if reply.papers else None


async def send_chat_answer(
    target: discord.Message | discord.Interaction,
    bot: PaperBot,
    reply: Reply,
    *,
    ephemeral: bool = False,
) -> discord.Message | None:
    """A ranked reply (a search, "more", similar papers) as /ask sends answers."""
    assert reply.answer is not None
    answer = reply.answer
    missing = reply.unknown_collection
    notes = [wording.unknown_collection(missing)] if missing else []
    if reply.corrected:
        notes.append(wording.corrected_line(reply.corrected, lambda word: f"**{escape(word)}**"))
    note = "\n".join(notes) or None
    # The list's own query and filter (from the state: "more", "go back" and "top 10" name
    # none), so the buttons page the list that is shown.
    state = reply.state
    if reply.intent.kind is IntentKind.SIMILAR:
        ref, heading = QueryRef("similar", _similar_to(reply)), "Similar"
    elif state is not None and state.similar_to is not None:
        ref, heading = QueryRef("similar", state.similar_to, state.collection), "Similar"
    else:
        collection = state.collection if state is not None else reply.intent.collection
        ref, heading = QueryRef("ask", answer.question, collection), "Answer"
    return await send_answer(
        target, bot, answer, ref=ref, heading=heading, note=note, ephemeral=ephemeral
    )


def _similar_to(reply: Reply) -> str:
    """The paper a "similar" reply is about, from the engine's question "papers like <id> …"."""
    assert reply.answer is not None
    return reply.answer.question.removeprefix("papers like ").split(" ", 1)[0]


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(Chat(bot))
