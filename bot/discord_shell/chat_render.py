"""Chat-service replies (`retrieval.conversation.chat.Reply`) as Discord message parts.

Answers and single papers reuse the /ask and /paper renderings; questions about papers and
comparisons get one embed with a field per paper: its best sentence for the question, or its
code links when the question asked for code.
"""

from __future__ import annotations

import discord

from bot import wording
from bot.discord_shell import render
from bot.discord_shell.views import paper_view
from bot.text import clip, render_excerpt
from config.settings import Settings
from retrieval.conversation.chat import Reply, ReplyKind
from retrieval.conversation.help_topics import help_topic
from retrieval.links import code_links, link_lines
from retrieval.models import Excerpt
from retrieval.paper_answers import QuestionType

FIELD_VALUE_MAX = 1000


def short_text(reply: Reply) -> str | None:
    """The one-line replies: small talk and problems. None for replies with papers."""
    if reply.kind in (ReplyKind.GREETING, ReplyKind.THANKS, ReplyKind.SMALL_TALK):
        return wording.small_talk(reply)
    if reply.kind is ReplyKind.PROBLEM and reply.error is not None:
        return wording.problem(reply.error, reply)
    return None


def reply_parts(
    reply: Reply, settings: Settings
) -> tuple[str | None, list[discord.Embed], discord.ui.View | None]:
    """Content, embeds and components for every reply but a ranked answer (the caller sends
    those with `send_answer`): one message, whichever shell sends it."""
    text = short_text(reply)
    if text is not None:
        return text, [], None
    if reply.kind is ReplyKind.HELP:
        topic = wording.help_topic_line(help_topic(reply.intent.message), console=False)
        return topic, [render.help_embed(settings)], None
    if reply.kind is ReplyKind.PAPERS and len(reply.papers) == 1:
        paper = reply.papers[0].paper
        return None, list(render.paper_message(paper).embeds), paper_view(paper)
    return None, [notes_embed(reply)], None


def notes_embed(reply: Reply) -> discord.Embed:
    """PAPER_QUESTION: each paper with the sentences that answer the question (or what the
    abstract cannot say); COMPARE: the papers side by side, one row per aspect."""
    if reply.kind is ReplyKind.COMPARE:
        return _compare_embed(reply)
    title = "Papers" if reply.kind is ReplyKind.PAPERS else "From the paper"
    about = reply.papers[0].about if reply.papers else None
    if about is not None:
        title = wording.QUESTION_HEADINGS[about.question_type]
    generic = about is not None and about.question_type is not QuestionType.OTHER
    if reply.intent.query and reply.kind is ReplyKind.PAPER_QUESTION and not generic:
        title = f"{title}: {reply.intent.query}"  # the heading alone says what was asked
    embed = discord.Embed(title=clip(title, render.TITLE_MAX), colour=render.COLOUR)
    for note in reply.papers[:10]:
        paper = note.paper
        name = clip(f"{paper.display_title} ({paper.id})", 250)
        if reply.intent.wants_code:
            code = code_links(paper.urls, paper.abstract)
            value = (
                "\n".join(link_lines(code[:5]))
                if code
                else "No code or project link appears in its abstract."
            )
        else:
            value = "\n".join(wording.about_lines(note, _excerpt))
        embed.add_field(name=name, value=value[:FIELD_VALUE_MAX] or "—", inline=False)
    return embed


def _excerpt(sentence: Excerpt) -> str:
    return render_excerpt(sentence, FIELD_VALUE_MAX // 2)


BLANK = "\u200b"  # a zero-width space: Discord refuses empty field names and values


def _compare_embed(reply: Reply) -> discord.Embed:
    """One row of inline fields per aspect, one field per paper (at most three side by side)."""
    notes = reply.papers[:3]
    title = "Compared: " + " vs ".join(note.paper.id for note in notes)
    embed = discord.Embed(title=clip(title, render.TITLE_MAX), colour=render.COLOUR)
    verdict = wording.verdict_line(reply)
    embed.description = "\n".join(
        ([verdict] if verdict else [])
        + [
            f"**{number}.** {clip(note.paper.display_title, 200)} ({note.paper.id})"
            for number, note in enumerate(notes, start=1)
        ]
    )
    budget = min(FIELD_VALUE_MAX, 4500 // max(len(notes) * len(wording.COMPARE_ROWS), 1))
    for row, name in enumerate(wording.COMPARE_ROWS):
        for number, note in enumerate(notes, start=1):
            sentence = wording.compare_rows(note)[row][1] if note.aspects else None
            value = render_excerpt(sentence, budget) if sentence is not None else wording.NOT_SAID
            embed.add_field(name=f"{name} · {number}", value=value or "—", inline=True)
        if len(notes) == 2:
            # Discord lays inline fields three to a line: a blank third keeps each aspect on
            # its own line, paper 1 left and paper 2 right, instead of wrapping rows across.
            embed.add_field(name=BLANK, value=BLANK, inline=True)
    return embed
