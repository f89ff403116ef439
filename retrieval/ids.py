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
# At most 18 significant digits: int() of thousands of typed digits raises ValueError.
_PAPER_ID = re.compile(r"^\s*([a-z0-9]+)-0*(\d{1,18})\s*$", re.IGNORECASE)


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


def normalize_paper_id(text: str) -> str | None:
    """A typed id in canonical form ('ICML2026-07 ' -> 'icml2026-7'); None if not id-shaped."""
    match = _PAPER_ID.match(text)
    if match is None:
        return None
    return f"{match.group(1).lower()}-{int(match.group(2))}"


def content_hash(abstract: str) -> str:
    """Identity of an abstract: case, width and whitespace differences do not make a new paper."""
    folded = " ".join(unicodedata.normalize("NFKC", abstract).casefold().split())
    return hashlib.sha256(folded.encode()).hexdigest()[:32]
