"""Collection names, slugs, paper ids and content hashes: the identities that must stay stable."""

from __future__ import annotations

import hashlib
import re
import unicodedata

# Header suffixes that say "paper list" rather than name the collection.
_LIST_SUFFIX = re.compile(
    r"\s*(论文列表|论文|accepted\s+papers?|paper\s+list|papers?|list|abstracts?)\s*$",
    re.IGNORECASE,
)
_SLUG_DROP = re.compile(r"[^a-z0-9]+")
# A typed paper id: a slug, a separator ("-", "_", "#" or spaces), then the number, so
# "icml2026-13", "ICML2026-07", "icml2026 13" and "icml2026#13" are ids. A separator is
# required: slugs end in years, so "icml202613" has no safe split. At most 18 significant
# digits: int() of thousands of typed digits raises ValueError.
_PAPER_ID = re.compile(r"^\s*([a-z0-9]*[a-z][a-z0-9]*)[-_# ]+0*(\d{1,18})\s*$", re.IGNORECASE)


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
    'ICML2026-07 ', 'icml2026 7' and 'icml2026#0007' are all 'icml2026-7'.
    """
    match = _PAPER_ID.match(text)
    if match is None:
        return None
    return f"{match.group(1).lower()}-{int(match.group(2))}"


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
