"""Message components: the paginator, the /ask view and the paper view.

Views time out (buttons are then disabled by editing the message), route their errors to the
one error boundary, and answer clicks on shared messages privately to the person who clicked.
Custom ids are discord.py's generated 32-character ids: unique and well under 100 characters.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import discord

from bot import render, replies
from bot.boundary import handle_interaction_error
from bot.text import clip
from retrieval.models import Answer, Paper

log = logging.getLogger(__name__)

VIEW_TIMEOUT = 600.0
PAGER_TIMEOUT = 300.0
ASK_LINKS = 9
PAPER_LINKS = 8


class EngineLike(Protocol):
    """The part of the engine the views use (retrieval.engine.Engine satisfies it)."""

    async def paper(self, paper_id: str) -> Paper: ...

    async def similar(
        self, paper_id: str, *, limit: int | None = ..., offset: int = ...
    ) -> Answer: ...

    async def save_paper(self, user_id: int, paper_id: str) -> tuple[Paper, bool]: ...

    async def saved_papers(self, user_id: int) -> list[Paper]: ...


class TimedView(discord.ui.View):
    """Disables its buttons when it times out; reports errors through the boundary."""

    def __init__(self, *, timeout: float | None = VIEW_TIMEOUT) -> None:
        super().__init__(timeout=timeout)
        self.message: discord.Message | None = None
        self.origin: discord.Interaction | None = None

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


Fetch = Callable[[int, int], Awaitable[Answer]]


class AnswerPages:
    """Pages of ranked results; `fetch(offset, limit)` returns that slice as an Answer."""

    slow = True

    def __init__(
        self, fetch: Fetch, *, per_page: int, start: int = 0, max_results: int = 50, heading: str
    ) -> None:
        self.fetch = fetch
        self.per_page = per_page
        self.start = start
        self.max_results = max_results
        self.heading = heading
        self.pages = 1
        self.last: Answer | None = None

    async def render(self, page: int) -> list[discord.Embed]:
        answer = await self.fetch(self.start + page * self.per_page, self.per_page)
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
            await replies.send(interaction, embeds=embeds, view=self, ephemeral=ephemeral)
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
        engine: EngineLike,
        answer: Answer,
        *,
        more: Fetch | None,
        per_page: int = 5,
        max_results: int = 50,
        heading: str = "More results",
    ) -> None:
        super().__init__()
        self.engine = engine
        self.answer = answer
        self.more_fetch = more
        self.per_page = per_page
        self.max_results = max_results
        self.heading = heading
        options = render.hit_options(answer.hits)
        if options:
            self.add_item(PaperSelect(options))
        room = 5
        if more is None or answer.total <= len(answer.hits):
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
        assert self.more_fetch is not None
        await replies.defer(interaction, ephemeral=True)
        source = AnswerPages(
            self.more_fetch,
            per_page=self.per_page,
            start=len(self.answer.hits),
            max_results=self.max_results,
            heading=self.heading,
        )
        await Paginator(source, interaction.user.id).start(interaction, ephemeral=True)

    async def open_paper(self, interaction: discord.Interaction, paper_id: str) -> None:
        paper = await self.engine.paper(paper_id)
        view = PaperView(self.engine, paper)
        await replies.send(interaction, render.paper_message(paper), view=view, ephemeral=True)


class PaperView(TimedView):
    """Under a paper: its links, "Similar papers" and "Save" (for whoever clicks)."""

    def __init__(self, engine: EngineLike, paper: Paper, *, per_page: int = 5) -> None:
        super().__init__()
        self.engine = engine
        self.paper = paper
        self.per_page = per_page
        _add_links(self, render.paper_links([(None, paper)], PAPER_LINKS), first_row=0, room=3)

    @discord.ui.button(label="Similar papers", style=discord.ButtonStyle.primary, row=0)
    async def similar(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await replies.defer(interaction, ephemeral=True)
        answer = await self.engine.similar(self.paper.id, limit=self.per_page)
        await send_answer(
            interaction,
            self.engine,
            answer,
            heading="Similar",
            more=similar_fetch(self.engine, self.paper.id),
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


def similar_fetch(engine: EngineLike, paper_id: str) -> Fetch:
    async def fetch(offset: int, limit: int) -> Answer:
        return await engine.similar(paper_id, limit=limit, offset=offset)

    return fetch


async def send_answer(
    interaction: discord.Interaction,
    engine: EngineLike,
    answer: Answer,
    *,
    heading: str,
    more: Fetch | None,
    ephemeral: bool,
    show_lead: bool = True,
) -> None:
    """An answer embed with its AskView (select, More results, links) when it has anything."""
    embed = render.answer_embed(answer, heading=heading, show_lead=show_lead)
    view = AskView(engine, answer, more=more)
    if view.empty:
        view.stop()
        await replies.send(interaction, embeds=[embed], ephemeral=ephemeral)
    else:
        await replies.send(interaction, embeds=[embed], view=view, ephemeral=ephemeral)
