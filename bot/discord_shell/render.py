"""Pure rendering: engine results -> embeds and component specs inside every Discord limit.

Nothing here talks to Discord. Text from abstracts or users is escaped (see `bot.text`) before
bold marks are added, and every size is budgeted so one message stays within 6,000 characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import discord

from bot import wording
from bot.discord_shell.looplag import LagStats
from bot.text import (
    clip,
    clip_plain,
    escape,
    one_line,
    readable,
    render_excerpt,
    split_raw,
)
from config.settings import Settings
from retrieval.models import Answer, CollectionInfo, EngineStats, Hit, IngestReport, Paper
from retrieval.nodes import ClusterStats

# Every message the bot sends uses this: text from abstracts and users must never ping.
SAFE_MENTIONS = discord.AllowedMentions.none()

COLOUR = discord.Colour(0x3B82F6)
ERROR_COLOUR = discord.Colour(0xEF4444)

# Discord's limits (see shared/docs/discord-limits.md).
CONTENT_MAX = 2000
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 2048
EMBEDS_TOTAL_MAX = 6000
EMBEDS_PER_MESSAGE = 10
BUTTON_LABEL_MAX = 80
SELECT_TEXT_MAX = 100
SELECT_OPTIONS_MAX = 25
CHOICE_NAME_MAX = 100
LINK_URL_MAX = 512

# Headroom so small later additions (page markers) never push a message over a wall.
_TOTAL_BUDGET = EMBEDS_TOTAL_MAX - 200
_LEAD_MAX = 900


@dataclass(frozen=True, slots=True)
class Rendered:
    """One message: embeds, optional content and an optional attachment (filename, bytes)."""

    embeds: tuple[discord.Embed, ...] = ()
    content: str | None = None
    attachment: tuple[str, bytes] | None = None


@dataclass(frozen=True, slots=True)
class Link:
    label: str
    url: str


@dataclass(frozen=True, slots=True)
class Option:
    label: str
    value: str
    description: str


def code(text: str, limit: int = 100) -> str:
    """Inline code for ids: backticks cannot be escaped inside code, so they are replaced."""
    safe = clip_plain(text.replace("`", "'"), limit)
    return f"`{safe}`"


def _quoted(word: str) -> str:
    return f"**{escape(clip(word, 60))}**"


def _footer(text: str) -> str:
    return clip_plain(text, FOOTER_MAX)


def _hit_field(hit: Hit, budget: int) -> tuple[str, str]:
    paper = hit.paper
    prefix = f"{hit.rank}. "
    name = prefix + clip(readable(paper.display_title), FIELD_NAME_MAX - len(prefix))
    header = f"{code(paper.id)} · {clip(paper.collection, 100) or '—'}"
    also_in = clip(", ".join(one_line(name) for name in paper.also_in if one_line(name)), 100)
    if also_in:
        header += f" (also in {also_in})"
    room = max(0, min(FIELD_VALUE_MAX, budget) - len(header) - 1)
    excerpt = render_excerpt(hit.excerpt, room) if room >= 20 else ""
    value = f"{header}\n{excerpt}" if excerpt else header
    return name, value[:FIELD_VALUE_MAX]


def answer_embed(
    answer: Answer,
    *,
    heading: str = "Answer",
    show_lead: bool = True,
) -> discord.Embed:
    """The lead sentence and one field per hit; used by /ask, /search pages, /similar and chat.
    The footer names the ranks shown ("4-8 of 31 matching papers"), as the terminal's does."""
    title = clip(f"{heading}: {one_line(answer.question)}", TITLE_MAX)
    lines: list[str] = []
    if answer.notice:
        lines.append(f"*{clip(answer.notice, 300)}*")
    if answer.empty:
        suggestion = f"**{clip(answer.suggestion, 200)}**" if answer.suggestion else None
        example = f"`/ask question: {wording.EXAMPLE_QUESTION}`"
        lines += wording.no_match_lines(
            suggestion,
            example=example,
            within=answer.query.collections,
            unknown=tuple(_quoted(word) for word in answer.unmatched),
        )
    else:
        lines += [clip(line, 300) for line in wording.coverage_lines(answer, _quoted)]
    if not answer.empty and show_lead and answer.lead is not None:
        lead = render_excerpt(answer.lead, _LEAD_MAX)
        named = wording.lead_source(answer)
        source = f" — {code(answer.lead_paper_id)}" if answer.lead_paper_id else ""
        if named is not None:  # not the top result's sentence: say whose it is first
            lines.append(f"> **{escape(named)}:** {lead}" if lead else "")
        else:
            lines.append(f"> {lead}{source}" if lead else "")
    description = "\n".join(line for line in lines if line)[:DESCRIPTION_MAX]

    shown = f"{wording.results_line(answer)}{wording.searched_in(answer)}"
    footer = f"{shown} · {answer.took_ms:.0f} ms"
    embed = discord.Embed(title=title, description=description or None, colour=COLOUR)
    embed.set_footer(text=_footer(footer))

    hits = answer.hits[:25]
    if hits:
        fixed = len(title) + len(description) + len(embed.footer.text or "")
        per_hit = (_TOTAL_BUDGET - fixed) // len(hits)
        for hit in hits:
            name, value = _hit_field(hit, per_hit - FIELD_NAME_MAX // 4)
            embed.add_field(name=name, value=value, inline=False)
    return embed


def paper_message(paper: Paper, *, heading: str | None = None) -> Rendered:
    """The full abstract, split over embeds when long; attached as a file when it won't fit.
    Title and abstract are `readable` (LaTeX and markdown reduced), as the terminal shows them."""
    title = clip(readable(paper.display_title), TITLE_MAX) or f"Paper {clip(paper.id, 200)}"
    fields: list[tuple[str, str]] = [
        ("Id", code(paper.id)),
        ("Collection", clip(paper.collection, 200) or "—"),
    ]
    also_in = clip(", ".join(one_line(name) for name in paper.also_in if one_line(name)), 1000)
    if also_in:
        fields.append(("Also in", also_in))
    authors = clip(", ".join(one_line(a) for a in paper.authors if one_line(a)), 1000)
    if authors:
        fields.append(("Authors", authors))
    footer = _footer(heading or "Buttons: links, similar papers, save to your reading list")
    fixed = len(title) + sum(len(n) + len(v) for n, v in fields) + len(footer)

    budget = _TOTAL_BUDGET - fixed
    pieces = split_raw(readable(paper.abstract), DESCRIPTION_MAX - 100) or ["(no abstract)"]
    kept: list[str] = []
    attachment: tuple[str, bytes] | None = None
    for piece in pieces:
        chunk = escape(piece)
        if len(chunk) <= budget and len(kept) < EMBEDS_PER_MESSAGE - 1:
            kept.append(chunk)
            budget -= len(chunk)
            continue
        note = "… *(the full abstract is in the attached file)*"
        room = budget - len(note)
        head = split_raw(piece, room)[0] if room > 200 else ""
        kept.append(escape(head) + note if head else note.removeprefix("… "))
        attachment = (f"{_safe_filename(paper.id)}.txt", _plain_paper(paper).encode())
        break

    embeds: list[discord.Embed] = []
    for index, chunk in enumerate(kept):
        embed = discord.Embed(description=chunk, colour=COLOUR)
        if index == 0:
            embed.title = title
            for name, value in fields:
                embed.add_field(name=name, value=value, inline=True)
        if index == len(kept) - 1:
            embed.set_footer(text=footer)
        embeds.append(embed)
    return Rendered(embeds=tuple(embeds), attachment=attachment)


def _safe_filename(text: str) -> str:
    safe = "".join(char if char.isalnum() or char in "-_" else "_" for char in text)
    return safe[:60] or "paper"


def _plain_paper(paper: Paper) -> str:
    title = one_line(readable(paper.display_title))
    lines = [title, f"id: {paper.id}", f"collection: {paper.collection}"]
    lines += [f"link: {url}" for url in paper.urls]
    return "\n".join(lines) + "\n\n" + readable(paper.abstract) + "\n"


def valid_url(url: str) -> bool:
    """Link buttons need an absolute http(s) URL of at most 512 characters."""
    if len(url) > LINK_URL_MAX or any(char.isspace() for char in url):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in {"http", "https"} and bool(parts.hostname)


def paper_links(papers: Sequence[tuple[int | None, Paper]], limit: int) -> list[Link]:
    """Link buttons for the papers' code/project URLs: unique, valid, at most `limit`."""
    links: list[Link] = []
    seen: set[str] = set()
    for rank, paper in papers:
        for url in paper.urls:
            if url in seen or not valid_url(url):
                continue
            seen.add(url)
            host = (urlsplit(url).hostname or "link").removeprefix("www.")
            label = f"{rank} · {host}" if rank is not None else host
            links.append(Link(clip_plain(label, BUTTON_LABEL_MAX), url))
            if len(links) >= limit:
                return links
    return links


def hit_options(hits: Sequence[Hit]) -> list[Option]:
    """Select-menu options to open any listed paper (unique values, all texts <= 100)."""
    options: list[Option] = []
    seen: set[str] = set()
    for hit in hits:
        paper_id = hit.paper.id
        if paper_id in seen or not 0 < len(paper_id) <= SELECT_TEXT_MAX:
            continue
        seen.add(paper_id)
        label = clip_plain(f"{hit.rank}. {hit.paper.display_title}", SELECT_TEXT_MAX)
        description = clip_plain(f"{paper_id} · {hit.paper.collection}", SELECT_TEXT_MAX)
        options.append(Option(label, paper_id, description))
        if len(options) == SELECT_OPTIONS_MAX:
            break
    return options


def choice_name(paper_id: str, label: str) -> str:
    """An autocomplete choice name: `label (id)`, at most 100 characters, never empty."""
    suffix = f" ({paper_id})"
    if len(suffix) >= CHOICE_NAME_MAX - 10:
        return clip_plain(paper_id, CHOICE_NAME_MAX)
    return clip_plain(label, CHOICE_NAME_MAX - len(suffix), fallback=paper_id) + suffix


def collections_embed(infos: Sequence[CollectionInfo]) -> discord.Embed:
    embed = discord.Embed(title="Collections", colour=COLOUR)
    if not infos:
        embed.description = "No collections are loaded yet."
        return embed
    lines: list[str] = []
    used = 0
    for index, info in enumerate(infos):
        line = (
            f"**{clip(info.name, 200)}** {code(info.slug)} — "
            f"{wording.plural(info.papers, 'paper')}, {wording.plural(info.files, 'file')}"
        )
        if used + len(line) + 1 > DESCRIPTION_MAX - 60:
            lines.append(f"…and {len(infos) - index} more")
            break
        lines.append(line)
        used += len(line) + 1
    embed.description = "\n".join(lines)
    total = sum(info.papers for info in infos)
    embed.set_footer(
        text=f"{wording.plural(total, 'paper')} · filter with in:slug or /search collection"
    )
    return embed


def human_bytes(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"  # pragma: no cover


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} ms"


# Processes listed one by one under "Corpus generation"; the rest are counted.
CLUSTER_NODES_SHOWN = 8


@dataclass(frozen=True, slots=True)
class Here:
    """This process as Discord sees it: guilds its shards hold, shards in the deployment."""

    guilds: int
    shard_count: int | None


def cluster_fields(cluster: ClusterStats, here: Here) -> list[tuple[str, str]]:
    """/stats rows for the cluster: processes, shards covered, guilds, each one's generation."""
    of = f" of {here.shard_count}" if here.shard_count else ""
    lines = [f"store: **{cluster.generation}**"]
    for node in cluster.nodes[:CLUSTER_NODES_SHOWN]:
        row = node.row
        mark = " (this process)" if node.this else " STALE" if node.stale else ""
        behind = " behind" if node in cluster.behind else ""
        who = clip(one_line(f"{row.host} pid {row.pid}, shards {row.shard_ids}"), 70)
        lines.append(f"{who}: {row.generation}{behind}{mark}")
    hidden = len(cluster.nodes) - CLUSTER_NODES_SHOWN
    if hidden > 0:
        lines.append(f"and {wording.plural(hidden, 'more process', 'more processes')}")
    return [
        ("Processes", f"{len(cluster.live):,} live, {cluster.stale:,} stale"),
        ("Shards covered", f"{cluster.shards}{of}"),
        ("Guilds", f"{here.guilds:,} here, {cluster.guilds:,} in the cluster"),
        # At most 10 lines of <= 105 characters: within the 1,024 a field may hold.
        ("Corpus generation", "\n".join(lines)),
    ]


def stats_embed(
    stats: EngineStats,
    loop_lag: LagStats | None = None,
    cluster: tuple[ClusterStats, Here] | None = None,
) -> discord.Embed:
    """This process's figures, then (`cluster`) the processes sharing its database."""
    embed = discord.Embed(title="paperbot stats", colour=COLOUR)
    rows = [
        ("Papers", f"{stats.papers:,}"),
        ("Collections", f"{stats.collections:,}"),
        ("Vocabulary", f"{stats.vocabulary:,} terms"),
        ("Index size", f"{human_bytes(stats.index_bytes)} ({stats.postings:,} postings)"),
        ("Database", human_bytes(stats.database_bytes)),
        ("Questions answered", f"{stats.questions_answered:,}"),
        ("Latency p50 / p95", f"{_ms(stats.latency_p50_ms)} / {_ms(stats.latency_p95_ms)}"),
    ]
    if loop_lag is not None:
        lag = " / ".join(_ms(v) for v in (loop_lag.p50_ms, loop_lag.p99_ms, loop_lag.max_ms))
        rows.append(("Event-loop lag p50 / p99 / max", f"{lag} ({loop_lag.samples:,} samples)"))
    for name, value in rows:
        embed.add_field(name=name, value=value, inline=True)
    for name, value in cluster_fields(*cluster) if cluster is not None else []:
        embed.add_field(name=name, value=value, inline=name != "Corpus generation")
    embed.set_footer(text="Latency is measured since the bot started.")
    return embed


HELP_TEXT = (
    "Ask about ML paper abstracts and get ranked papers with the matching sentences.\n\n"
    "**Questions**\n"
    "`/ask question: which papers study MoE routing?` — the best answer and top papers\n"
    "`/search query: diffusion -video in:icml2026` — every match, {per_page} per page\n"
    "Mention me or DM me a question for the same answer as `/ask`.\n\n"
    "**Follow-ups**: reply to an answer (or mention me, or DM me) with\n"
    "{follow_ups}\n\n"
    '**Query syntax**: `"exact phrase"`, `-exclude`, `in:collection`\n\n'
    "**Papers**\n"
    "`/paper id` — the full abstract (start typing for suggestions)\n"
    "`/similar id` · `/random [collection]` · `/collections` · `/stats`\n\n"
    "**Reading list**\n"
    "`/save id` · `/unsave id` · `/saved [export]` — or press **Save** under a paper\n\n"
    "**Watches** (new papers that match, after each ingest)\n"
    "`/watch query:` — by DM, or in a channel with `channel:` · `/watches` · `/unwatch id`\n\n"
    "**This server**\n"
    "`/shortlist add` · `show` · `remove` · `export` — a reading list shared by the server\n"
    "`/trending` — what the server opened, saved and asked about most\n"
    "`/privacy` · `/forget-me` — what is kept about you, and deleting it\n\n"
    "Results are public; add `private: True` to see them alone."
)


def follow_up_lines() -> str:
    """The follow-ups chat understands (wording.FOLLOW_UPS, the console guide's list too)."""
    return "\n".join(
        " · ".join(f"“{example}”" for example in examples) + f" — {meaning}"
        for examples, meaning in wording.FOLLOW_UPS
    )


def help_text(settings: Settings) -> str:
    """The usage guide, with the page size this bot is configured for."""
    return HELP_TEXT.format(per_page=settings.search_results, follow_ups=follow_up_lines())


def help_embed(settings: Settings) -> discord.Embed:
    return discord.Embed(
        title="How to use paperbot", description=help_text(settings), colour=COLOUR
    )


SAVED_PER_PAGE = 10


def saved_pages(papers: Sequence[Paper]) -> int:
    return max(1, -(-len(papers) // SAVED_PER_PAGE))


def saved_embed(papers: Sequence[Paper], page: int) -> discord.Embed:
    """One page of a reading list."""
    pages = saved_pages(papers)
    page = min(max(page, 0), pages - 1)
    embed = discord.Embed(title=f"Your reading list ({len(papers)})", colour=COLOUR)
    if not papers:
        embed.description = "Nothing saved yet. Use `/save id` or **Save** under a paper."
        return embed
    start = page * SAVED_PER_PAGE
    lines = [
        f"{start + offset + 1}. {code(paper.id)} {clip(paper.display_title, 200)} · "
        f"{clip(paper.collection, 60)}"
        for offset, paper in enumerate(papers[start : start + SAVED_PER_PAGE])
    ]
    embed.description = "\n".join(lines)
    embed.set_footer(text=f"Page {page + 1}/{pages} · /saved export: Markdown (.md) for a file")
    return embed


def ingest_embed(report: IngestReport, *, title: str) -> discord.Embed:
    """What an ingest or reload did: counts, then notes and errors, clipped."""
    ok = not report.errors
    embed = discord.Embed(title=title, colour=COLOUR if ok else ERROR_COLOUR)
    embed.add_field(name="Papers added", value=f"{report.papers_added:,}")
    embed.add_field(name="Papers skipped", value=f"{report.papers_skipped:,}")
    files = f"{report.files_read} / {report.files_skipped}"
    embed.add_field(name="Files read / skipped", value=files)
    if report.collections:
        embed.add_field(
            name="Collections", value=clip(", ".join(report.collections), 1000), inline=False
        )
    for name, items in (("Notes", report.notes), ("Errors", report.errors)):
        if items:
            shown = "\n".join(f"• {clip(item, 300)}" for item in items[:10])
            more = f"\n…and {len(items) - 10} more" if len(items) > 10 else ""
            embed.add_field(name=name, value=(shown[: 1000 - len(more)] + more), inline=False)
    return embed


def error_text(message: str) -> str:
    """A user-facing error line: cleaned (our own markdown kept) and short enough for content."""
    return clip(message, 1900, escaped=False)
