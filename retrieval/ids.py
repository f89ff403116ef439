"""Collection names, slugs, paper ids and content hashes: the identities that must stay stable."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Collection

# Header suffixes that say "paper list" rather than name the collection.
_LIST_SUFFIX = re.compile(
    r"\s*(论文列表|论文|accepted\s+papers?|paper\s+list|papers?|list|abstracts?)\s*$",
    re.IGNORECASE,
)
_SLUG_DROP = re.compile(r"[^a-z0-9]+")
# A typed paper id: a slug, a separator ("-", "_", "#" or spaces), then the number, so
# "icml2026-13", "ICML2026-07", "icml2026 13" and "icml2026#13" are ids. A separator is
# required: slugs end in years, so "icml202613" has no safe split. At most 18 significant
# digits: int() of thousands of typed digits raises ValueError. The slug's "has a letter" test is
# a lookahead: written as [a-z0-9]*[a-z][a-z0-9]* it backtracks in cubic time ("x" * 100_000).
_PAPER_ID = re.compile(r"^\s*((?=[a-z0-9]*[a-z])[a-z0-9]+)[-_# ]+0*(\d{1,18})\s*$", re.IGNORECASE)
# Inside a sentence "gpt-4", "llama 2" and "top 10" are id-shaped too, so there an id's slug must
# be a known slug or end in a year ("icml2026"), and at most one space may separate the number
# ("icml2024 #12" too: the collection before "#12" makes it an id, not a position).
_PAPER_ID_IN_TEXT = re.compile(
    r"(?<![\w#-])([a-z][a-z0-9]{0,30}?)(?:[-_#]|[-_#]? | #)0*(\d{1,18})(?![\w-])", re.IGNORECASE
)
# "iclr 2024-1316", "ICML 2026 #13", "icml_2024_2468", "neurips 2023 777": the venue and year
# apart, then the number. Counted only when venue and year make a loaded slug; a number that
# counts papers ("icml 2024 10 papers on x") is not an id. Three blind writers typed the spaced
# form for an id; none used it as a count.
_SPACED_PAPER_ID = re.compile(
    r"(?<![\w#-])([a-z]{2,20})[ _-]((?:19|20)\d\d)(?: ?[-_#] ?| )0*(\d{1,18})(?![\w-])"
    r"(?!\s+(?:papers?|results?|more|of|per|best|top|new|other|others)\b)",
    re.IGNORECASE,
)
_ZERO_PADDED = re.compile(r"[a-z][a-z0-9]*-0\d+")
_SLUG_WITH_YEAR = re.compile(r"[a-z][a-z0-9]*(?:19|20)\d\d")
_SHORT_YEAR = re.compile(r"([a-z]+)(\d\d)")


def collection_name_from_header(header: str) -> str:
    """'ICML 2026 论文列表' -> 'ICML 2026'. Falls back to the header itself."""
    text = unicodedata.normalize("NFKC", header).strip().lstrip("#").strip()
    stripped = _LIST_SUFFIX.sub("", text).strip(" -:–—")
    return stripped or text


def collection_slug(name: str) -> str:
    """'ICML 2026' -> 'icml2026': lowercase ASCII letters and digits, never empty."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = _SLUG_DROP.sub("", ascii_name.lower())[:24]
    if slug:
        return slug
    return "c" + hashlib.sha256(name.encode()).hexdigest()[:6]


def paper_id(slug: str, number: int) -> str:
    return f"{slug}-{number}"


def paper_key(text: str) -> str | None:
    """The one rule for typed paper ids: canonical form, or None if `text` is not id-shaped.

    Case, leading zeros, surrounding spaces and the separator do not matter:
    'ICML2026-07 ', 'icml2026 7', 'icml2026#0007' and 'ICML 2026-7' are all 'icml2026-7'.
    """
    match = _PAPER_ID.match(text)
    if match is not None:
        return f"{match.group(1).lower()}-{int(match.group(2))}"
    spaced = _SPACED_PAPER_ID.fullmatch(text.strip())
    if spaced is not None:
        return f"{spaced.group(1).lower()}{spaced.group(2)}-{int(spaced.group(3))}"
    return None


def find_paper_keys(text: str, slugs: Collection[str] = ()) -> list[tuple[int, int, str]]:
    """Paper ids typed inside a sentence, as (start, end, canonical key), left to right.

    'compare ICML2026-6 and icml2026 23' finds icml2026-6 and icml2026-23. A slug counts if it is
    in `slugs` or ends in a year, so 'gpt-4' and 'llama 2' are words, not ids; a venue and year
    written apart ('iclr 2024-1316') count when they make a slug in `slugs`, and a two-digit year
    ('icml24-1326') is the loaded slug's ('icml2024-1326').
    """
    found: list[tuple[int, int, str]] = []
    for match in _PAPER_ID_IN_TEXT.finditer(text):
        slug = match.group(1).lower()
        short = _short_year_slug(slug, slugs)
        if slug in slugs or short or _SLUG_WITH_YEAR.fullmatch(slug):
            key = paper_key(match.group(0))
            if key is not None:
                found.append((match.start(), match.end(), with_full_year(key, slugs)))
    for match in _SPACED_PAPER_ID.finditer(text):
        slug = f"{match.group(1)}{match.group(2)}".lower()
        overlaps = any(start < match.end() and match.start() < end for start, end, _ in found)
        if slug in slugs and not overlaps:
            found.append((match.start(), match.end(), f"{slug}-{int(match.group(3))}"))
    return sorted(found)


def _short_year_slug(slug: str, slugs: Collection[str]) -> str | None:
    """'icml24' -> 'icml2024' when that slug is loaded (and 'icml24' is not)."""
    match = _SHORT_YEAR.fullmatch(slug)
    if match is None or slug in slugs:
        return None
    full = f"{match.group(1)}20{match.group(2)}"
    return full if full in slugs else None


def with_full_year(key: str, slugs: Collection[str]) -> str:
    """'icml24-1326' -> 'icml2024-1326' when ICML 2024 is loaded; any other key unchanged."""
    slug, _, number = key.rpartition("-")
    full = _short_year_slug(slug, slugs)
    return f"{full}-{number}" if full else key


def record_id(typed: str) -> str | None:
    """'NeurIPS2023-00444' -> 'neurips2023-00444': an id written with leading zeros after a
    hyphen, the way JSONL records number themselves; None for any other spelling."""
    folded = typed.strip().lower()
    return folded if _ZERO_PADDED.fullmatch(folded) else None


def lookup_key(text: str) -> str:
    """What to look a typed id up by: its canonical form, else the text folded (aliases).

    External ids from JSONL records ('icml2024-01938' as the record wrote it) are looked up by
    this folded form too, so an alias need not be id-shaped.
    """
    return paper_key(text) or " ".join(text.split()).lower()


def content_hash(abstract: str) -> str:
    """Identity of an abstract: case, width and whitespace differences do not make a new paper."""
    folded = " ".join(unicodedata.normalize("NFKC", abstract).casefold().split())
    return hashlib.sha256(folded.encode()).hexdigest()[:32]
