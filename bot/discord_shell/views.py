"""Message components that survive restarts: every button and menu is a `DynamicItem`.

State lives in the custom id (at most 100 characters): the action, the invoker for paging, the
page, and the query (inline, or a short key into `QueryKeys` when too long). discord.py routes a
click to the item class whose template matches, whichever process sent the message, so nothing
is edited or disabled at shutdown. Clicks whose state is unknown (a long query from before a
restart, buttons from an older version) get a private note and a fresh answer, never a failure.
Callbacks go through the one error boundary (discord.py would only log their errors).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

import discord
from discord.ui import DynamicItem

from bot import wording
from bot.discord_shell import render, replies
from bot.discord_shell.boundary import handle_interaction_error
from bot.discord_shell.interaction_state import progress
from bot.discord_shell.queries import QueryKeys, QueryRef, decode_query, encode_query, fetch_slice
from bot.text import clip
from retrieval.models import Answer, Paper

if TYPE_CHECKING:
    from config.settings import Settings
    from retrieval.api import EngineAPI

log = logging.getLogger(__name__)

ID_MAX = 100
ASK_LINKS = 9
PAPER_LINKS = 8
NOT_YOURS = "Only the person who asked can use these buttons. Run the command yourself to page."
STALE = (
    "These buttons are from an earlier session and I no longer remember their question"
    "; here is a fresh answer."
)
STALE_NO_QUESTION = (
    "These buttons are from an earlier session and I no longer remember their question. "
    "Ask again with `/ask` or `/search`."
)
_UNESCAPE = re.compile(r"\\([\\*_~|`\[\]<#>\-+.])")


class BotServices(Protocol):
    """What the components use of `client.PaperBot`: named here, not imported, so the client
    (which registers these components) and this module do not import each other."""

    @property
    def engine(self) -> EngineAPI: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def query_keys(self) -> QueryKeys: ...


def _bot(interaction: discord.Interaction) -> BotServices:
    return cast("BotServices", interaction.client)


class RoutedItem:
    """Routes a dynamic item's errors to the error boundary; subclasses implement `run`."""

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await self.run(interaction)
        except Exception as error:
            await handle_interaction_error(interaction, error)

    async def run(self, interaction: discord.Interaction) -> None:
        raise NotImplementedError


# -- what a click may need: the question behind a stale button -------------------------------
def question_from_message(message: discord.Message | None) -> str | None:
    """The question an answer message shows in its title ("Answer: …"), unescaped, if any."""
    if message is None or not message.embeds or not message.embeds[0].title:
        return None
    _, _, question = message.embeds[0].title.partition(": ")
    question = _UNESCAPE.sub(r"\1", question.replace("@\u200b", "@")).removesuffix("…").strip()
    return question or None


async def answer_stale(interaction: discord.Interaction) -> None:
    """A click whose state is gone: say so privately, and answer the message's question again."""
    bot = _bot(interaction)
    question = question_from_message(interaction.message)
    if question is None:
        await replies.send(interaction, content=STALE_NO_QUESTION, ephemeral=True)
        return
    await replies.defer(interaction, ephemeral=True)
    ref = QueryRef("ask", question)
    answer = await fetch_slice(bot.engine, ref, 0, bot.settings.answer_results)
    await send_answer(
        interaction, bot, answer, ref=ref, heading="Answer", ephemeral=True, note=STALE
    )


# -- the items ---------------------------------------------------------------------------------
class OpenPaper(RoutedItem, DynamicItem[discord.ui.Select[discord.ui.View]], template=r"pb:open"):
    """Open any listed paper in full, privately, for whoever picks it."""

    @classmethod
    def make(cls, options: Sequence[render.Option]) -> OpenPaper:
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id="pb:open",
            placeholder="Open a paper in full…",
            options=[
                discord.SelectOption(label=o.label, value=o.value, description=o.description)
                for o in options
            ],
            row=0,
        )
        return cls(select)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> OpenPaper:
        return cls(cast("discord.ui.Select[discord.ui.View]", item))

    async def run(self, interaction: discord.Interaction) -> None:
        bot = _bot(interaction)
        paper = await bot.engine.paper(self.item.values[0])
        await replies.send(
            interaction, render.paper_message(paper), view=paper_view(paper), ephemeral=True
        )


class MoreResults(
    RoutedItem,
    DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"pb:more:(?P<start>\d{1,4}):(?P<q>.+)",
):
    """Under an answer: the following results, in a private paginator for whoever clicks."""

    def __init__(self, start: int, query: str) -> None:
        self.start = start
        self.query = query
        super().__init__(
            discord.ui.Button(
                label="More results",
                style=discord.ButtonStyle.primary,
                custom_id=f"pb:more:{start}:{query}",
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> MoreResults:
        return cls(int(match["start"]), match["q"])

    async def run(self, interaction: discord.Interaction) -> None:
        bot = _bot(interaction)
        ref = decode_query(self.query, bot.query_keys)
        if ref is None:
            await answer_stale(interaction)
            return
        await replies.defer(interaction, ephemeral=True)
        heading = "Similar" if ref.kind == "similar" else "More results"
        await send_pages(
            interaction,
            ref,
            owner=interaction.user.id,
            per_page=bot.settings.search_results,
            start=self.start,
            heading=heading,
            ephemeral=True,
        )


PAGER_SLOTS = {
    "f": ("First", discord.ButtonStyle.secondary),
    "p": ("Prev", discord.ButtonStyle.primary),
}
PAGER_SLOTS |= {
    "n": ("Next", discord.ButtonStyle.primary),
    "l": ("Last", discord.ButtonStyle.secondary),
}


class PageButton(
    RoutedItem,
    DynamicItem[discord.ui.Button[discord.ui.View]],
    template=(
        r"pb:pg:(?P<owner>\d{1,20}):(?P<page>\d{1,4}):(?P<per>\d{1,2}):(?P<start>\d{1,4})"
        r":(?P<slot>[fpnl]):(?P<q>.+)"
    ),
):
    """First / Prev / Next / Last over ranked results; only the invoker may page."""

    def __init__(
        self, owner: int, page: int, per: int, start: int, slot: str, query: str, *, off: bool
    ) -> None:
        self.owner, self.page, self.per, self.start, self.query = owner, page, per, start, query
        label, style = PAGER_SLOTS[slot]
        custom_id = f"pb:pg:{owner}:{page}:{per}:{start}:{slot}:{query}"
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=custom_id, disabled=off, row=0)
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PageButton:
        return cls(
            int(match["owner"]),
            int(match["page"]),
            int(match["per"]),
            int(match["start"]),
            match["slot"],
            match["q"],
            off=False,
        )

    async def run(self, interaction: discord.Interaction) -> None:
        if interaction.user.id != self.owner:
            await replies.send(interaction, content=NOT_YOURS, ephemeral=True)
            return
        bot = _bot(interaction)
        ref = decode_query(self.query, bot.query_keys)
        if ref is None:
            await answer_stale(interaction)
            return
        await interaction.response.defer()
        heading = _heading_of(interaction.message)
        embeds, view, _ = await answer_page(
            bot,
            ref,
            owner=self.owner,
            page=self.page,
            per_page=self.per,
            start=self.start,
            heading=heading,
        )
        await interaction.edit_original_response(embeds=embeds, view=view)


class SavedPage(
    RoutedItem,
    DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"pb:saved:(?P<owner>\d{1,20}):(?P<page>\d{1,4}):(?P<slot>[fpnl])",
):
    """Pages of a reading list (read afresh from the store on every click)."""

    def __init__(self, owner: int, page: int, slot: str, *, off: bool) -> None:
        self.owner, self.page = owner, page
        label, style = PAGER_SLOTS[slot]
        custom_id = f"pb:saved:{owner}:{page}:{slot}"
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=custom_id, disabled=off, row=0)
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> SavedPage:
        return cls(int(match["owner"]), int(match["page"]), match["slot"], off=False)

    async def run(self, interaction: discord.Interaction) -> None:
        if interaction.user.id != self.owner:
            await replies.send(interaction, content=NOT_YOURS, ephemeral=True)
            return
        papers = await _bot(interaction).engine.saved_papers(self.owner)
        embed, view = saved_page(papers, self.owner, self.page)
        await interaction.response.edit_message(embeds=[embed], view=view)


class PageIndicator(
    RoutedItem, DynamicItem[discord.ui.Button[discord.ui.View]], template=r"pb:at:\d{1,4}"
):
    """The disabled "2/5" (or "4-8", the results shown) between the paging buttons (dynamic so
    no view is kept per message)."""

    def __init__(self, page: int, label: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"pb:at:{page}",
                disabled=True,
                row=0,
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PageIndicator:
        return cls(0, "1/1")

    async def run(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()  # pragma: no cover - the indicator is disabled


class SimilarPapers(
    RoutedItem,
    DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"pb:sim:(?P<id>.+)",
):
    """Under a paper: papers like it, privately for whoever clicks."""

    def __init__(self, paper_id: str) -> None:
        self.paper_id = paper_id
        super().__init__(
            discord.ui.Button(
                label="Similar papers",
                style=discord.ButtonStyle.primary,
                custom_id=f"pb:sim:{paper_id}",
                row=0,
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> SimilarPapers:
        return cls(match["id"])

    async def run(self, interaction: discord.Interaction) -> None:
        bot = _bot(interaction)
        await replies.defer(interaction, ephemeral=True)
        ref = QueryRef("similar", self.paper_id)
        answer = await fetch_slice(bot.engine, ref, 0, bot.settings.search_results)
        await send_answer(interaction, bot, answer, ref=ref, heading="Similar", ephemeral=True)


class SavePaper(
    RoutedItem,
    DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"pb:save:(?P<id>.+)",
):
    """Under a paper: save it to the reading list of whoever clicks."""

    def __init__(self, paper_id: str) -> None:
        self.paper_id = paper_id
        super().__init__(
            discord.ui.Button(
                label="Save",
                style=discord.ButtonStyle.success,
                custom_id=f"pb:save:{paper_id}",
                row=0,
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> SavePaper:
        return cls(match["id"])

    async def run(self, interaction: discord.Interaction) -> None:
        engine = _bot(interaction).engine
        paper, added = await engine.save_paper(interaction.user.id, self.paper_id)
        await replies.send(interaction, content=saved_text(paper, added), ephemeral=True)


# Registered in PaperBot.setup_hook (bot/discord_shell/client.py).
PERSISTENT_ITEMS: tuple[type[DynamicItem[Any]], ...] = (
    OpenPaper,
    MoreResults,
    PageButton,
    SavedPage,
    PageIndicator,
    SimilarPapers,
    SavePaper,
)


async def dispatch_older(interaction: discord.Interaction) -> bool:
    """Older-version components (random 32-hex ids): a select opens its paper, a button answers
    afresh. Returns False when the interaction is not one of them."""
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = str(data.get("custom_id") or "")
    if interaction.type is not discord.InteractionType.component or not re.fullmatch(
        r"[0-9a-f]{32}", custom_id
    ):
        return False
    try:
        if data.get("component_type") == discord.ComponentType.select.value and data.get("values"):
            paper = await _bot(interaction).engine.paper(str(data["values"][0]))
            await replies.send(
                interaction, render.paper_message(paper), view=paper_view(paper), ephemeral=True
            )
        else:
            await answer_stale(interaction)
    except Exception as error:
        await handle_interaction_error(interaction, error)
    return True


# -- building component sets -------------------------------------------------------------------
def _view() -> discord.ui.View:
    return discord.ui.View(timeout=None)


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


def answer_view(answer: Answer, ref: QueryRef | None, keys: QueryKeys) -> discord.ui.View | None:
    """Under an answer: open a listed paper, More results, code links. None when empty."""
    view = _view()
    options = render.hit_options(answer.hits)
    if options:
        view.add_item(OpenPaper.make(options))
    room = 5
    if ref is not None and answer.total > len(answer.hits):
        start = len(answer.hits) + (answer.hits[0].rank - 1 if answer.hits else 0)
        prefix = f"pb:more:{start}:"
        query = encode_query(ref, ID_MAX - len(prefix), keys)
        more = MoreResults(start, query)
        more.row = 1
        view.add_item(more)
        room = 4
    links = render.paper_links([(hit.rank, hit.paper) for hit in answer.hits], ASK_LINKS)
    _add_links(view, links, first_row=1, room=room)
    return view if view.children else None


def paper_view(paper: Paper) -> discord.ui.View:
    """Under a paper: "Similar papers", "Save" (ids permitting) and its links."""
    view = _view()
    room = 5
    if len(f"pb:sim:{paper.id}") <= ID_MAX:
        view.add_item(SimilarPapers(paper.id))
        view.add_item(SavePaper(paper.id))
        room = 3
    _add_links(view, render.paper_links([(None, paper)], PAPER_LINKS), first_row=0, room=room)
    return view


def add_pager(
    view: discord.ui.View, page: int, pages: int, make: Any, shown: str | None = None
) -> None:
    """First / Prev / indicator / Next / Last; `make(target, slot, off)` builds a button. The
    indicator says `shown` when given (the ranks on the page), else "page/pages"."""
    last = pages - 1
    view.add_item(make(0, "f", page <= 0))
    view.add_item(make(max(page - 1, 0), "p", page <= 0))
    view.add_item(PageIndicator(page, shown or f"{page + 1}/{pages}"))
    view.add_item(make(min(page + 1, last), "n", page >= last))
    view.add_item(make(last, "l", page >= last))


async def answer_page(
    bot: BotServices,
    ref: QueryRef,
    *,
    owner: int,
    page: int,
    per_page: int,
    start: int,
    heading: str,
) -> tuple[list[discord.Embed], discord.ui.View | None, Answer]:
    """One page of ranked results with its paging buttons (None when one page holds all), and
    the answer it shows."""
    max_results = bot.settings.max_results
    answer = await fetch_slice(bot.engine, ref, start + page * per_page, per_page)
    reachable = max(0, min(answer.total, max_results) - start)
    pages = max(1, -(-reachable // per_page))
    if page >= pages and page > 0:
        page = pages - 1
        answer = await fetch_slice(bot.engine, ref, start + page * per_page, per_page)
    # Pages count from `start` ("More results" begins after the answer's own), so the footer and
    # the indicator name the ranks shown, never a page number that reads as another page.
    embed = render.answer_embed(answer, heading=heading, show_lead=False)
    if pages <= 1:
        return [embed], None, answer
    prefix = f"pb:pg:{owner}:{pages}:{per_page}:{start}:f:"
    query = encode_query(ref, ID_MAX - len(prefix), bot.query_keys)
    view = _view()
    add_pager(
        view,
        page,
        pages,
        lambda target, slot, off: PageButton(owner, target, per_page, start, slot, query, off=off),
        wording.shown_range(answer) or None,
    )
    return [embed], view, answer


async def send_pages(
    interaction: discord.Interaction,
    ref: QueryRef,
    *,
    owner: int,
    per_page: int,
    heading: str,
    ephemeral: bool,
    start: int = 0,
) -> None:
    """The first page of ranked results, with paging buttons when there is more than one."""
    embeds, view, answer = await answer_page(
        _bot(interaction),
        ref,
        owner=owner,
        page=0,
        per_page=per_page,
        start=start,
        heading=heading,
    )
    progress(interaction).shown = tuple(hit.paper.id for hit in answer.hits)
    await replies.send(interaction, embeds=embeds, view=view, ephemeral=ephemeral)


def saved_page(
    papers: Sequence[Paper], owner: int, page: int
) -> tuple[discord.Embed, discord.ui.View | None]:
    pages = render.saved_pages(papers)
    page = min(max(page, 0), pages - 1)
    embed = render.saved_embed(papers, page)
    if pages <= 1:
        return embed, None
    view = _view()
    add_pager(view, page, pages, lambda target, slot, off: SavedPage(owner, target, slot, off=off))
    return embed, view


def _heading_of(message: discord.Message | None) -> str:
    if message is None or not message.embeds or not message.embeds[0].title:
        return "Search"
    heading, _, _ = message.embeds[0].title.partition(": ")
    return heading or "Search"


def saved_text(paper: Paper, added: bool) -> str:
    title = clip(paper.display_title, 150)
    if added:
        return f"Saved {render.code(paper.id)} {title} to your reading list. See `/saved`."
    return f"{render.code(paper.id)} {title} is already in your reading list."


async def send_answer(
    target: discord.Interaction | discord.Message,
    bot: BotServices,
    answer: Answer,
    *,
    ref: QueryRef | None,
    heading: str,
    ephemeral: bool = False,
    show_lead: bool = True,
    note: str | None = None,
) -> discord.Message | None:
    """The one way an answer goes out: its embed and components (select, More results, links),
    as the interaction's response or follow-up, or as a reply to a chat message. A slash
    command's no-match note is private. Returns the sent message when discord.py gives it
    (chat replies, follow-ups), e.g. to remember which answer it shows."""
    embed = render.answer_embed(answer, heading=heading, show_lead=show_lead)
    if isinstance(target, discord.Message):
        view = answer_view(answer, ref, bot.query_keys)
        return await target.reply(
            content=note,
            embed=embed,
            view=view or discord.utils.MISSING,
            mention_author=False,
            allowed_mentions=render.SAFE_MENTIONS,
        )
    if answer.empty:
        await replies.send_private(target, content=note, embeds=[embed])
        return None
    progress(target).shown = tuple(hit.paper.id for hit in answer.hits)
    view = answer_view(answer, ref, bot.query_keys)
    return await replies.send(target, content=note, embeds=[embed], view=view, ephemeral=ephemeral)
