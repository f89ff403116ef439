"""The one rule for naming a collection: how typed text ("ICML-2026", "icml'24") finds one.

`in:ICML-2026`, the `collection` options, `/random` and collections named in words in a chat
message all resolve through `resolve_collection`, so they can never disagree.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from typing import Protocol, TypeVar

from retrieval.errors import CollectionNotFound

# "ICML'24", "icml 24", "ICML-24": a two-digit year after the venue's letters means 20xx.
_SHORT_YEAR = re.compile(r"^([a-z]+)[\s'’`\-_]*(\d{2})$")
_DROP = re.compile(r"[^a-z0-9]+")
# A venue and year inside a sentence: "ICML 2026", "NeurIPS-2023", "icml2024", "ICML'24".
# A two-digit year needs an apostrophe, a hyphen or nothing before it ("top 10" is no venue).
_VENUE_YEAR = re.compile(
    r"(?<![\w:'’`\-])([a-z]{2,12})(?:[\s\-_]{0,2}((?:19|20)\d\d)|['’`\-]?(\d\d))(?![\w\-])",
    re.IGNORECASE,
)


class NamedCollection(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def slug(self) -> str: ...


@functools.lru_cache(maxsize=4096)
def collection_key(text: str) -> str:
    """Case, width, spaces, punctuation and two-digit years folded: 'ICML’24' -> 'icml2024'."""
    folded = unicodedata.normalize("NFKC", text).strip().lower()
    short = _SHORT_YEAR.match(folded)
    if short:
        folded = f"{short.group(1)}20{short.group(2)}"
    return _DROP.sub("", folded)


C = TypeVar("C", bound=NamedCollection)


def resolve_collection(text: str, collections: Sequence[C]) -> C | None:
    """The loaded collection `text` names (by slug or display name), or None."""
    key = collection_key(text)
    if not key:
        return None
    for collection in collections:
        if key in (collection.slug, collection_key(collection.name)):
            return collection
    return None


def resolve_collections(text: str, collections: Sequence[C]) -> list[C]:
    """The loaded collections `text` names: the one it names by slug or display name, or, for
    a venue written without a year ("iclr", "NeurIPS"), every loaded collection of that venue
    (ICLR 2023 and ICLR 2024). Empty when it names none."""
    found = resolve_collection(text, collections)
    if found is not None:
        return [found]
    key = collection_key(text)
    if not key.isalpha():
        return []
    return [
        collection
        for collection in collections
        for named in (collection_key(collection.name),)
        if named.startswith(key) and named[len(key) :].isdigit()
    ]


def require_collections(text: str, collections: Sequence[C]) -> list[C]:
    """The loaded collections `text` names, as search and chat read it (`resolve_collections`:
    "iclr" is every loaded ICLR), or CollectionNotFound naming the collections there are."""
    found = resolve_collections(text, collections)
    if not found:
        raise CollectionNotFound(text, [collection.name for collection in collections])
    return found


def find_venue_years(text: str) -> list[tuple[int, int, str, str]]:
    """Venue-and-year phrases in a sentence, as (start, end, surface text, venue letters).

    'what did ICLR 2024 publish' finds (9, 18, 'ICLR 2024', 'iclr'). Whether the phrase names a
    loaded collection is `resolve_collection`'s business.
    """
    return [
        (match.start(), match.end(), match.group(0), match.group(1).lower())
        for match in _VENUE_YEAR.finditer(text)
    ]


@functools.lru_cache(maxsize=256)
def _name_pattern(name: str, slug: str) -> re.Pattern[str]:
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", name).lower())
    spelled = r"[\s\-_'’]{0,2}".join(re.escape(word) for word in words) if words else "(?!)"
    return re.compile(rf"(?<![\w:\-])(?:{spelled}|{re.escape(slug)})(?![\w\-])", re.IGNORECASE)


def find_collection_names(text: str, collections: Sequence[C]) -> list[tuple[int, int, C]]:
    """Loaded collections named by display name or slug inside a sentence: (start, end, one).

    'claims in SciFact' finds SciFact at (10, 17). Whether a name is meant as a filter there
    (rather than as a word) is for the caller to judge from the words around it.
    """
    found: list[tuple[int, int, C]] = []
    for collection in collections:
        for match in _name_pattern(collection.name, collection.slug).finditer(text):
            found.append((match.start(), match.end(), collection))
    return sorted(found, key=lambda hit: hit[0])
