"""/ask, /search and /similar: ranked answers with excerpts, pages and paper links."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.discord_shell import replies
from bot.discord_shell.boundary import UserInputError
from bot.discord_shell.chat_render import reply_parts
from bot.discord_shell.cogs.base import PaperCog
from bot.discord_shell.cogs.chat import send_chat_answer
from bot.discord_shell.options import (
    collection_choices,
    ephemeral_for,
    paper_choices,
    question_cooldown,
    resolve_paper,
)
from bot.discord_shell.queries import QueryRef, fetch_slice
from bot.discord_shell.views import send_answer, send_pages
from retrieval.conversation.chat import Conversation, ReplyKind

if TYPE_CHECKING:
    from bot.discord_shell.client import PaperBot

QUESTION_MAX = 4000
# An `in:collection` filter typed in the query (see retrieval/query.py's syntax).
IN_FILTER = re.compile(r"(?:^|\s)-?in:\S", re.IGNORECASE)


class Answers(PaperCog):
    @app_commands.command()
    @app_commands.describe(
        question="What you want to know, e.g. which papers study MoE routing?",
        private="Only you see the answer (default: everyone in the channel)",
    )
    @question_cooldown
    async def ask(
        self,
        interaction: discord.Interaction,
        question: app_commands.Range[str, 1, QUESTION_MAX],
        private: bool | None = None,
    ) -> None:
        """Ask a question: the best answer sentence and the top papers."""
        ephemeral = ephemeral_for(interaction, private)
        await replies.defer(interaction, ephemeral=ephemeral)
        # The same understanding as chat: ids, "the second one", collections named in words.
        channel = interaction.channel_id if interaction.guild_id is not None else None
        who = Conversation.of(interaction.user.id, channel)  # the same memory as chat there
        reply = await self.bot.chat_service.handle(question, who)
        if reply.answer is not None:
            await send_chat_answer(interaction, self.bot, reply, ephemeral=ephemeral)
            return
        content, embeds, view = reply_parts(reply, self.settings)
        private_note = reply.kind is ReplyKind.PROBLEM or not (embeds or reply.papers)
        await replies.send(
            interaction,
            content=content,
            embeds=embeds,
            view=view,
            ephemeral=ephemeral or private_note,
        )

    @app_commands.command()
    @app_commands.describe(
        query='Words to search for; "exact phrase", -exclude and in:collection work',
        collection="Only search this collection",
        results="Results per page (default: the server's setting)",
        private="Only you see the results (default: everyone in the channel)",
    )
    @app_commands.autocomplete(collection=collection_choices)
    @question_cooldown
    async def search(
        self,
        interaction: discord.Interaction,
        query: app_commands.Range[str, 1, QUESTION_MAX],
        collection: app_commands.Range[str, 1, 100] | None = None,
        results: app_commands.Range[int, 1, 10] | None = None,
        private: bool | None = None,
    ) -> None:
        """Search all papers, a page at a time, with buttons to page through the results."""
        if collection and IN_FILTER.search(query):
            raise UserInputError(
                "Choose the collection one way: `in:` in the query or the `collection` option, "
                "not both."
            )
        ephemeral = ephemeral_for(interaction, private)
        await replies.defer(interaction, ephemeral=ephemeral)
        await send_pages(
            interaction,
            QueryRef("ask", query, collection),
            owner=interaction.user.id,
            per_page=results or self.settings.search_results,
            heading="Search",
            ephemeral=ephemeral,
        )

    @app_commands.command()
    @app_commands.describe(
        id="A paper id such as icml2026-7 (start typing for suggestions)",
        private="Only you see the results (default: everyone in the channel)",
    )
    @app_commands.autocomplete(id=paper_choices)
    @question_cooldown
    async def similar(
        self,
        interaction: discord.Interaction,
        id: app_commands.Range[str, 1, 100],
        private: bool | None = None,
    ) -> None:
        """Papers similar to one paper."""
        ephemeral = ephemeral_for(interaction, private)
        paper = await resolve_paper(self.engine, id)
        await replies.defer(interaction, ephemeral=ephemeral)
        ref = QueryRef("similar", paper.id)
        answer = await fetch_slice(self.engine, ref, 0, self.settings.search_results)
        await send_answer(
            interaction,
            self.bot,
            answer,
            ref=ref,
            heading="Similar",
            ephemeral=ephemeral,
        )


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(Answers(bot))
