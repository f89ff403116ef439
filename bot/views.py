"""Message components: the paginator, the /ask view and the paper view.

Views time out (buttons are then disabled by editing the message), route their errors to the
one error boundary, and answer clicks on shared messages privately to the person who clicked.
Custom ids are discord.py's generated 32-character ids: unique and well under 100 characters.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

import discord

from bot import render, replies
from bot.boundary import handle_interaction_error
from bot.queries import QueryRef, fetch_slice
from bot.text import clip
from config.settings import Settings
from retrieval.api import EngineAPI
from retrieval.models import Answer, Paper

log = logging.getLogger(__name__)

VIEW_TIMEOUT = 600.0
PAGER_TIMEOUT = 300.0
ASK_LINKS = 9
PAPER_LINKS = 8


class TimedView(discord.ui.View):
    """Disables its buttons when it times out; reports errors through the boundary."""

    def __init__(self, *, timeout: float | None = VIEW_TIMEOUT) -> None:
        super().__init__(timeout=timeout)
        self.message: discord.Message | None = None
        self.origin: discord.Interaction | None = None

    async def send(
        self,
        interaction: discord.Interaction,
        rendered: render.Rendered | None = None,
        *,
        embeds: list[discord.Embed] | None = None,
        ephemeral: bool,
    ) -> None:
        """Send a message carrying this view and remember where it went (to disable it later)."""
        message = await replies.send(
            interaction, rendered, embeds=embeds, view=self, ephemeral=ephemeral
        )
        if message is not None:
            self.message = message
        else:
            self.origin = interaction

    def disable(self) -> None:
        for item in self.children:
            if isinstance(item, discord.ui.Button) and item.style is discord.ButtonStyle.link:
                continue
            if isinstance(item, discord.ui.Button | discord.ui.Select):
                item.disabled = True

    async def on_timeout(self) -> None:
        self.disable()
        try:
            if self.message is not None:
                await self.message.edit(view=self, allowed_mentions=render.SAFE_MENTIONS)
            elif self.origin is not None:
                await self.origin.edit_original_response(view=self)
        except discord.HTTPException as error:
            log.debug("could not disable an expired view: %s", error)

    async def on_error(
        self, interaction: discord.Interaction, error: Exception, item: discord.ui.Item[Any], /
    ) -> None:
        await handle_interaction_error(interaction, error)


class OwnedView(TimedView):
    """Only `owner_id` may use it; anyone else gets a private note."""

    def __init__(self, owner_id: int, *, timeout: float | None = PAGER_TIMEOUT) -> None:
        super().__init__(timeout=timeout)
        self.owner_id = owner_id

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        if interaction.user.id == self.owner_id:
            return True
        await interaction.response.send_message(
            "Only the person who asked can use these buttons. Run the command yourself to page.",
            ephemeral=True,
            allowed_mentions=render.SAFE_MENTIONS,
        )
        return False


class PageSource(Protocol):
    """Pages for the paginator. `pages` may change after the first `render`."""

    pages: int
    slow: bool

    async def render(self, page: int) -> list[discord.Embed]: ...


class AnswerPages:
    """Pages of ranked results for a query, `per_page` each, up to `max_results` in all."""

    slow = True

    def __init__(
        self,
        engine: EngineAPI,
        ref: QueryRef,
        *,
        per_page: int,
        max_results: int,
        heading: str,
        start: int = 0,
    ) -> None:
        self.engine = engine
        self.ref = ref
        self.per_page = per_page
        self.start = start
        self.max_results = max_results
        self.heading = heading
        self.pages = 1
        self.last: Answer | None = None

    async def render(self, page: int) -> list[discord.Embed]:
        offset = self.start + page * self.per_page
        answer = await fetch_slice(self.engine, self.ref, offset, self.per_page)
        self.last = answer
        reachable = max(0, min(answer.total, self.max_results) - self.start)
        self.pages = max(1, -(-reachable // self.per_page))
        return [
            render.answer_embed(
                answer, heading=self.heading, show_lead=False, page=(page, self.pages)
            )
        ]


class ListPages:
    """Pages of a reading list (already in memory)."""

    slow = False

    def __init__(self, papers: Sequence[Paper]) -> None:
        self.papers = list(papers)
        self.pages = render.saved_pages(self.papers)

    async def render(self, page: int) -> list[discord.Embed]:
        return [render.saved_embed(self.papers, page)]


class Paginator(OwnedView):
    """First / Prev / page indicator / Next / Last over a PageSource; only the invoker can page."""

    def __init__(
        self, source: PageSource, owner_id: int, *, timeout: float = PAGER_TIMEOUT
    ) -> None:
        super().__init__(owner_id, timeout=timeout)
        self.source = source
        self.page = 0

    def _sync_buttons(self) -> None:
        last = self.source.pages - 1
        self.first.disabled = self.prev.disabled = self.page <= 0
        self.next.disabled = self.last_page.disabled = self.page >= last
        self.indicator.label = f"{self.page + 1}/{self.source.pages}"

    async def first_embeds(self) -> list[discord.Embed]:
        embeds = await self.source.render(0)
        self._sync_buttons()
        return embeds

    async def start(self, interaction: discord.Interaction, *, ephemeral: bool) -> None:
        """Render page 1 and send it (with buttons only when there is more than one page)."""
        embeds = await self.first_embeds()
        if self.source.pages > 1:
            await self.send(interaction, embeds=embeds, ephemeral=ephemeral)
        else:
            self.stop()
            await replies.send(interaction, embeds=embeds, ephemeral=ephemeral)

    async def show(self, interaction: discord.Interaction, page: int) -> None:
        self.page = min(max(page, 0), max(self.source.pages - 1, 0))
        if self.source.slow:
            await interaction.response.defer()
            embeds = await self.source.render(self.page)
            self.page = min(self.page, self.source.pages - 1)
            self._sync_buttons()
            await interaction.edit_original_response(embeds=embeds, view=self)
        else:
            embeds = await self.source.render(self.page)
            self._sync_buttons()
            await interaction.response.edit_message(embeds=embeds, view=self)

    @discord.ui.button(label="First", style=discord.ButtonStyle.secondary, row=0)
    async def first(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await self.show(interaction, 0)

    @discord.ui.button(label="Prev", style=discord.ButtonStyle.primary, row=0)
    async def prev(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await self.show(interaction, self.page - 1)

    @discord.ui.button(label="1/1", style=discord.ButtonStyle.secondary, disabled=True, row=0)
    async def indicator(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await interaction.response.defer()  # pragma: no cover - the indicator is always disabled

    @discord.ui.button(label="Next", style=discord.ButtonStyle.primary, row=0)
    async def next(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await self.show(interaction, self.page + 1)

    @discord.ui.button(label="Last", style=discord.ButtonStyle.secondary, row=0)
    async def last_page(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await self.show(interaction, self.source.pages - 1)

    def disable(self) -> None:
        super().disable()
        self.indicator.disabled = True


def _add_links(
    view: discord.ui.View, links: Sequence[render.Link], first_row: int, room: int
) -> None:
    """Add link buttons: `room` free slots in `first_row`, then full rows of 5 up to row 4."""
    row, free = first_row, room
    for link in links:
        while free == 0:
            row, free = row + 1, 5
        if row > 4:
            return
        view.add_item(discord.ui.Button(label=link.label, url=link.url, row=row))
        free -= 1


class PaperSelect(discord.ui.Select["AskView"]):
    """Open any listed paper in full (privately, for whoever picks it)."""

    def __init__(self, options: Sequence[render.Option]) -> None:
        super().__init__(
            placeholder="Open a paper in full…",
            options=[
                discord.SelectOption(label=o.label, value=o.value, description=o.description)
                for o in options
            ],
            row=0,
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        assert self.view is not None
        await self.view.open_paper(interaction, self.values[0])


class AskView(TimedView):
    """Under an answer: open a listed paper, see more results, follow code links."""

    def __init__(
        self,
        engine: EngineAPI,
        settings: Settings,
        answer: Answer,
        *,
        ref: QueryRef | None,
        heading: str = "More results",
    ) -> None:
        super().__init__()
        self.engine = engine
        self.settings = settings
        self.answer = answer
        self.ref = ref
        self.heading = heading
        options = render.hit_options(answer.hits)
        if options:
            self.add_item(PaperSelect(options))
        room = 5
        if ref is None or answer.total <= len(answer.hits):
            self.remove_item(self.more_results)
        else:
            room = 4
        links = render.paper_links([(hit.rank, hit.paper) for hit in answer.hits], ASK_LINKS)
        _add_links(self, links, first_row=1, room=room)

    @property
    def empty(self) -> bool:
        return not self.children

    @discord.ui.button(label="More results", style=discord.ButtonStyle.primary, row=1)
    async def more_results(
        self, interaction: discord.Interaction, _: discord.ui.Button[Any]
    ) -> None:
        assert self.ref is not None
        await replies.defer(interaction, ephemeral=True)
        source = AnswerPages(
            self.engine,
            self.ref,
            per_page=self.settings.search_results,
            start=len(self.answer.hits),
            max_results=self.settings.max_results,
            heading=self.heading,
        )
        await Paginator(source, interaction.user.id).start(interaction, ephemeral=True)

    async def open_paper(self, interaction: discord.Interaction, paper_id: str) -> None:
        paper = await self.engine.paper(paper_id)
        await PaperView(self.engine, self.settings, paper).send(
            interaction, render.paper_message(paper), ephemeral=True
        )


class PaperView(TimedView):
    """Under a paper: its links, "Similar papers" and "Save" (for whoever clicks)."""

    def __init__(self, engine: EngineAPI, settings: Settings, paper: Paper) -> None:
        super().__init__()
        self.engine = engine
        self.settings = settings
        self.paper = paper
        _add_links(self, render.paper_links([(None, paper)], PAPER_LINKS), first_row=0, room=3)

    @discord.ui.button(label="Similar papers", style=discord.ButtonStyle.primary, row=0)
    async def similar(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await replies.defer(interaction, ephemeral=True)
        ref = QueryRef("similar", self.paper.id)
        answer = await fetch_slice(self.engine, ref, 0, self.settings.search_results)
        await send_answer(
            interaction,
            self.engine,
            self.settings,
            answer,
            ref=ref,
            heading="Similar",
            ephemeral=True,
        )

    @discord.ui.button(label="Save", style=discord.ButtonStyle.success, row=0)
    async def save(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        paper, added = await self.engine.save_paper(interaction.user.id, self.paper.id)
        await replies.send(interaction, content=saved_text(paper, added), ephemeral=True)


def saved_text(paper: Paper, added: bool) -> str:
    title = clip(paper.display_title, 150)
    if added:
        return f"Saved {render.code(paper.id)} {title} to your reading list. See `/saved`."
    return f"{render.code(paper.id)} {title} is already in your reading list."


async def send_answer(
    target: discord.Interaction | discord.Message,
    engine: EngineAPI,
    settings: Settings,
    answer: Answer,
    *,
    ref: QueryRef | None,
    heading: str,
    ephemeral: bool = False,
    show_lead: bool = True,
) -> None:
    """The one way an answer goes out: its embed and its AskView (select, More results, links),
    as the interaction's response or follow-up, or as a reply to a chat message."""
    embed = render.answer_embed(answer, heading=heading, show_lead=show_lead)
    if answer.empty and isinstance(target, discord.Interaction):
        # Nothing matched: the did-you-mean is for the asker only, not the channel.
        await replies.send_private(target, embeds=[embed])
        return
    view: AskView | None = AskView(engine, settings, answer, ref=ref)
    if view is not None and view.empty:
        view.stop()
        view = None
    if isinstance(target, discord.Message):
        sent = await target.reply(
            embed=embed,
            view=view or discord.utils.MISSING,
            mention_author=False,
            allowed_mentions=render.SAFE_MENTIONS,
        )
        if view is not None:
            view.message = sent
    elif view is not None:
        await view.send(target, embeds=[embed], ephemeral=ephemeral)
    else:
        await replies.send(target, embeds=[embed], ephemeral=ephemeral)
