"""Plain-text and JSON renderings of engine answers for the terminal (the console's `render`)."""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any

from bot import wording
from bot.text import readable, unmark_protected
from bot.wording import plural
from retrieval.models import Answer, CollectionInfo, EngineStats, Excerpt, Paper
from retrieval.nodes import NodeRow, is_stale

NO_NODES = "No bot process is running (a process that stops cleanly leaves no entry)."

BOLD_YELLOW = "\x1b[1;33m"
DIM = "\x1b[2m"
RESET = "\x1b[0m"
WIDTH = 100
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_SPACES = re.compile(r"(\s+)")


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def plain_message(text: str) -> str:
    """A message worded for Discord, for a terminal: `code` spans become “quotes”."""
    return _CODE_SPAN.sub(r"“\1”", text)


def _clean(text: str) -> str:
    """Terminal-safe text: control characters (escape sequences in abstracts) become spaces."""
    return "".join(ch if ch.isprintable() or ch == "\n" else " " for ch in text)


def excerpt_text(excerpt: Excerpt, colour: bool) -> str:
    parts = []
    for span in unmark_protected(excerpt.spans):
        text = _clean(span.text)
        if not span.match:
            parts.append(text)
        elif colour:
            # Each word coloured on its own, so a line break between two highlighted words
            # never leaves the colour open into the next line's indent.
            parts.extend(
                f"{BOLD_YELLOW}{piece}{RESET}" if piece.strip() else piece
                for piece in _SPACES.split(text)
            )
        else:
            parts.append(f"[{text}]")
    return "".join(parts)


def _width(text: str) -> int:
    """Columns `text` takes on a terminal: colour codes take none."""
    return len(_ANSI.sub("", text))


def _wrap(text: str, indent: str = "    ", width: int = WIDTH) -> str:
    """textwrap.fill by visible width: textwrap counts colour codes as characters, which broke
    highlighted lines well before the edge. A word longer than a line gets a line of its own."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and _width(line) + 1 + _width(word) > width:
            lines.append(line)
            line = ""
        line = f"{line} {word}" if line else f"{indent}{word}"
    if line:
        lines.append(line)
    return "\n".join(lines)


def render_answer(answer: Answer, colour: bool = False) -> str:
    lines: list[str] = []
    if answer.notice:
        lines.append(answer.notice)
    if answer.empty:
        suggestion = f'"{_clean(answer.suggestion)}"' if answer.suggestion else None
        lines += wording.no_match_lines(
            suggestion,
            example=wording.EXAMPLE_QUESTION,
            within=answer.query.collections,
            unknown=tuple(f"“{_clean(word)}”" for word in answer.unmatched),
        )
        return "\n".join(lines)
    lines += wording.coverage_lines(answer, lambda word: f"“{_clean(word)}”")
    if answer.lead is not None:
        source = wording.lead_source(answer)
        if source is not None:
            lines.append(f"{_clean(source)}: {excerpt_text(answer.lead, colour)}")
        else:
            lines.append(f"{excerpt_text(answer.lead, colour)}  ({answer.lead_paper_id})")
        lines.append("")
    for hit in answer.hits:
        paper = hit.paper
        title = _clean(readable(paper.display_title))
        head = f"{hit.rank}. {title}  [{paper.id} · {paper.collection}]"
        lines.append(f"{BOLD_YELLOW}{head}{RESET}" if colour else head)
        lines.append(_wrap(excerpt_text(hit.excerpt, colour)))
        for url in paper.urls:
            lines.append(f"    {url}")
    footer = (
        f"{wording.results_line(answer)}{wording.searched_in(answer)} · {answer.took_ms:.1f} ms"
    )
    if answer.expansions:
        footer += " · also searched: " + "; ".join(answer.expansions)
    lines.append(f"{DIM}{footer}{RESET}" if colour else footer)
    return "\n".join(lines)


def render_paper(paper: Paper) -> str:
    lines = [_clean(readable(paper.display_title))]
    if paper.authors:
        lines.append(_clean(", ".join(paper.authors)))
    lines.append(f"{paper.id} · {paper.collection}")
    if paper.also_in:
        lines.append("also in: " + ", ".join(paper.also_in))
    lines.append(f"source: {paper.external_id}")
    lines.append("")
    lines.append(textwrap.fill(_clean(readable(paper.abstract)), width=WIDTH))
    lines.extend(f"link: {url}" for url in paper.urls)
    return "\n".join(lines)


def render_collections(infos: list[CollectionInfo]) -> str:
    if not infos:
        return "No collections yet. Add one with: paperbot ingest PATH"
    width = max(len(info.name) for info in infos)
    rows = [
        f"{info.name:<{width}}  in:{info.slug:<12} {plural(info.papers, 'paper'):>13}  "
        f"{plural(info.files, 'file')}"
        for info in infos
    ]
    return "\n".join(rows)


def render_nodes(rows: list[NodeRow], now: float, interval: float) -> str:
    """`paperbot status`: one line per bot process, STALE when it stopped reporting."""
    if not rows:
        return NO_NODES
    lines = []
    for row in rows:
        age = max(now - row.heartbeat_at, 0.0)
        stale = "  STALE" if is_stale(row, now, interval) else ""
        lines.append(
            f"{_clean(row.host)}  pid {row.pid}  shards {_clean(row.shard_ids)}  "
            f"generation {row.generation}  guilds {row.guilds:,}  heartbeat {age:.0f} s ago{stale}"
        )
    return "\n".join(lines)


def render_stats(stats: EngineStats) -> str:
    p50 = "-" if stats.latency_p50_ms is None else f"{stats.latency_p50_ms:.1f} ms"
    p95 = "-" if stats.latency_p95_ms is None else f"{stats.latency_p95_ms:.1f} ms"
    # Counted in memory by the process that answers: a console or bot session's questions are
    # not in a separate `paperbot stats` process's count, so the line says whose figure it is.
    if stats.questions_answered:
        questions = f"{stats.questions_answered:,} answered by this process (p50 {p50}, p95 {p95})"
    else:
        questions = "none asked in this process (each bot or console counts its own: /stats)"
    return "\n".join(
        [
            f"papers        {stats.papers:,}",
            f"collections   {stats.collections:,}",
            f"vocabulary    {stats.vocabulary:,} terms, {stats.postings:,} postings",
            f"index         {stats.index_bytes / 1e6:.1f} MB in memory",
            f"database      {stats.database_bytes / 1e6:.1f} MB",
            f"questions     {questions}",
        ]
    )


def paper_json(paper: Paper) -> dict[str, Any]:
    return {
        "id": paper.id,
        "external_id": paper.external_id,
        "collection": paper.collection,
        "also_in": list(paper.also_in),
        "label": paper.label,
        "title": paper.title,
        "authors": list(paper.authors),
        "abstract": paper.abstract,
        "urls": list(paper.urls),
    }


def answer_json(answer: Answer) -> dict[str, Any]:
    """The documented, stable `--json` shape of `search`, `ask` and `similar`."""
    return {
        "query": answer.question,
        # The collections the question was filtered to ("neurips papers on mamba"): the query
        # text no longer names them.
        "collections": list(answer.query.collections),
        "took_ms": round(answer.took_ms, 3),
        "total": answer.total,
        "total_all": answer.total_all,
        "unmatched": list(answer.unmatched),
        "absent_in_collections": list(answer.absent_here),
        "corrections": [{"typed": typed, "suggested": word} for typed, word in answer.corrections],
        "suggestion": answer.suggestion,
        "notice": answer.notice,
        "lead": None if answer.lead is None else answer.lead.plain,
        "hits": [
            {
                "id": hit.paper.id,
                "external_id": hit.paper.external_id,
                "collection": hit.paper.collection,
                "label": hit.paper.label,
                "score": hit.score,
                "excerpt": hit.excerpt.plain,
                "abstract": hit.paper.abstract,
                "urls": list(hit.paper.urls),
            }
            for hit in answer.hits
        ],
    }


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)
