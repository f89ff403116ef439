"""Text for both shells: markup reduced to what a reader sees (`readable`), and safe text for
Discord: strip invisible characters, escape markdown and mentions, clip to limits.

Everything here is pure and independent of discord.py objects, so it can be property-tested.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable, Sequence

from retrieval.labels.markup import MAX_SCAN
from retrieval.labels.markup import clean as reduce_markup
from retrieval.models import Excerpt, Span

ELLIPSIS = "…"

# Zero-width and bidi-control characters hide text or reorder it; soft hyphens hide too.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]"
)
# Control characters other than newline and tab.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Markdown that works anywhere in a line, plus what starts masked links, mentions and emoji.
_INLINE = re.compile(r"([\\*_~|`\[\]<])")
# Markdown that only works at the start of a line: headings, lists, quotes, subtext.
_LINE_START = re.compile(r"(?m)^(\s*)([#>\-+])")
_NUMBERED = re.compile(r"(?m)^(\s*\d+)\.")
_MENTION = re.compile(r"@(everyone|here)", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")
# Where match marks must not go: links (a mark inside breaks them) and inline code.
_PROTECTED = re.compile(r"(?:https?://|www\.)[^\s<>\"]+|`[^`\n]+`")
_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"]+")
# URLs made only of these characters are emitted as they are: Discord links the whole URL before
# reading markdown in it, whereas an escaping backslash would become part of the link.
_PLAIN_URL = re.compile(r"[A-Za-z0-9\-._~:/?#@!$&'()+,;=%]+")


def clean(text: str) -> str:
    """NFC-normalised text without invisible or control characters."""
    text = unicodedata.normalize("NFC", text)
    text = _INVISIBLE.sub("", text)
    return _CONTROL.sub(" ", text)


def readable(text: str) -> str:
    """`text` with its LaTeX and markdown reduced to what a reader sees (`\\url{x}` -> x,
    `$D$` -> D): the one cleaning of abstracts and titles shown in full, in a terminal and in
    Discord (where `escape` comes after it). Excerpts need none: they are cut from
    `retrieval.text.clean_for_display`'s text. Long abstracts go through in word-aligned
    pieces, as the reducer reads at most MAX_SCAN characters at a time."""
    if len(text) <= MAX_SCAN:
        return reduce_markup(text)
    pieces: list[str] = []
    piece: list[str] = []
    size = 0
    for word in text.split(" "):
        if size + len(word) + 1 > MAX_SCAN // 2 and piece:
            pieces.append(reduce_markup(" ".join(piece)))
            piece, size = [], 0
        piece.append(word)
        size += len(word) + 1
    pieces.append(reduce_markup(" ".join(piece)))
    return " ".join(piece for piece in pieces if piece)


def fold(text: str) -> str:
    """`clean` text with whitespace runs folded to one space, keeping a leading/trailing one."""
    return _WHITESPACE.sub(" ", clean(text))


def one_line(text: str) -> str:
    """`clean` text with all whitespace runs (newlines included) folded to one space."""
    return " ".join(clean(text).split())


def escape(text: str) -> str:
    """Escape markdown, mention and link syntax so `text` renders literally and never pings.

    The input is cleaned first; the only invisible character in the output is the zero-width
    space that breaks `@everyone`/`@here`.
    """
    text = clean(text)
    text = _INLINE.sub(r"\\\1", text)
    text = _LINE_START.sub(r"\1\\\2", text)
    text = _NUMBERED.sub(r"\1\\.", text)
    return _MENTION.sub("@\u200b\\1", text)


def _cut_point(raw: str, fits: int) -> int:
    """Prefer to cut `raw[:fits]` at a word boundary if one is reasonably close."""
    if fits >= len(raw):
        return fits
    space = raw.rfind(" ", 0, fits + 1)
    if space > fits * 0.7:
        return space
    return fits


def _longest_prefix(raw: str, limit: int, render: Callable[[str], str]) -> int:
    """Largest n with len(render(raw[:n])) <= limit (render is monotone in n)."""
    low, high = 0, len(raw)
    while low < high:
        mid = (low + high + 1) // 2
        if len(render(raw[:mid])) <= limit:
            low = mid
        else:
            high = mid - 1
    return low


def clip(raw: str, limit: int, *, escaped: bool = True) -> str:
    """`raw` escaped (or just cleaned), cut to at most `limit` characters with an ellipsis."""
    render = escape if escaped else clean
    raw = clean(raw)
    whole = render(raw)
    if len(whole) <= limit:
        return whole
    if limit <= len(ELLIPSIS):
        return ELLIPSIS[:limit]
    fits = _longest_prefix(raw, limit - len(ELLIPSIS), render)
    cut = _cut_point(raw, fits)
    clipped = render(raw[:cut]).rstrip() + ELLIPSIS
    return clipped if len(clipped) <= limit else ELLIPSIS


def clip_plain(raw: str, limit: int, *, fallback: str = "untitled") -> str:
    """One-line unescaped text (labels, select options, button labels), never empty."""
    text = one_line(raw) or fallback
    if len(text) <= limit:
        return text
    cut = _cut_point(text, limit - len(ELLIPSIS))
    return text[:cut].rstrip() + ELLIPSIS


def unmark_protected(spans: Sequence[Span]) -> list[Span]:
    """The spans with no match marks inside a URL or inline code (spans are split as needed)."""
    text = "".join(span.text for span in spans)
    protected = [match.span() for match in _PROTECTED.finditer(text)]
    if not protected:
        return list(spans)
    out: list[Span] = []
    position = 0
    for span in spans:
        start, end = position, position + len(span.text)
        position = end
        if not span.match:
            out.append(span)
            continue
        cuts = {start, end}
        for low, high in protected:
            cuts.update(cut for cut in (low, high) if start < cut < end)
        edges = sorted(cuts)
        for low, high in itertools.pairwise(edges):
            inside = any(p_low <= low and high <= p_high for p_low, p_high in protected)
            out.append(Span(text[low:high], match=not inside))
    return out


def escape_text(text: str) -> str:
    """`escape`, except that plain URLs stay as they are so they remain working links."""
    parts: list[str] = []
    position = 0
    for match in _URL.finditer(text):
        url = match.group()
        if not _PLAIN_URL.fullmatch(url):
            continue
        parts.append(escape(text[position : match.start()]))
        # A link stays a link, but never carries a mass mention ("https://@everyone...").
        parts.append(
            clean(url).replace("@everyone", "@\u200beveryone").replace("@here", "@\u200bhere")
        )
        position = match.end()
    parts.append(escape(text[position:]))
    return "".join(parts)


def render_excerpt(excerpt: Excerpt, limit: int) -> str:
    """Excerpt spans escaped, matched words in bold, at most `limit` characters.

    Bold marks are always paired: a span is either emitted whole with both marks or cut
    inside the marks, and adjacent matched spans are merged so no `****` appears.
    """
    merged: list[tuple[str, bool]] = []
    for span in unmark_protected(excerpt.spans):
        text = fold(span.text)
        if not text:
            continue
        if merged and merged[-1][1] == span.match:
            merged[-1] = (merged[-1][0] + text, span.match)
        else:
            merged.append((text, span.match))

    out: list[str] = []
    used = 0
    for index, (text, match) in enumerate(merged):
        if match and text.strip():
            lead = text[: len(text) - len(text.lstrip())]
            core = text.strip()
            trail = text[len(text.rstrip()) :]
            piece = f"{lead}**{escape(core)}**{trail}"
        else:
            lead, core, trail = "", text, ""
            piece = escape_text(text)
        last = index == len(merged) - 1
        room = limit - used - (0 if last else len(ELLIPSIS))
        if len(piece) <= room:
            out.append(piece)
            used += len(piece)
            continue
        # Cut this span to fit, keep its marks balanced, then stop.
        overhead = len(lead) + (4 if match else 0) + len(ELLIPSIS)
        budget = limit - used - overhead
        if budget > 0:
            fits = _longest_prefix(core, budget, escape)
            cut = _cut_point(core, fits)
            body = escape(core[:cut]).rstrip()
            if body:
                out.append(f"{lead}**{body}**" if match else f"{lead}{body}")
        if sum(len(part) for part in out) + len(ELLIPSIS) <= limit:
            out.append(ELLIPSIS)
        break
    return "".join(out).strip()


def split_raw(raw: str, limit: int) -> list[str]:
    """Split cleaned `raw` into pieces whose escaped form is at most `limit` characters.

    Pieces end at a sentence end when one is in the second half of the room, else at a word end.
    """
    pieces: list[str] = []
    rest = clean(raw).strip()
    while rest:
        if len(escape(rest)) <= limit:
            pieces.append(rest)
            break
        fits = max(_longest_prefix(rest, limit, escape), 1)
        cut = rest.rfind(". ", 0, fits)
        cut = cut + 1 if cut >= fits * 0.5 else _cut_point(rest, fits)
        pieces.append(rest[: max(cut, 1)].rstrip())
        rest = rest[max(cut, 1) :].lstrip()
    return pieces


def split_escaped(raw: str, limit: int) -> list[str]:
    """`split_raw`, escaped: each chunk is at most `limit` characters."""
    return [escape(piece) for piece in split_raw(raw, limit)]


def bold_balanced(text: str) -> bool:
    """True when unescaped `**` marks come in pairs (escaped characters are ignored)."""
    unescaped = re.sub(r"\\.", "x", text, flags=re.DOTALL)
    return unescaped.count("**") % 2 == 0 and "***" not in unescaped
