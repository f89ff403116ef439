"""The one rule for naming a collection: how typed text ("ICML-2026", "icml'24") finds one.

`in:ICML-2026`, the `collection` options, `/random` and collections named in words in a chat
message all resolve through `resolve_collection`, so they can never disagree.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Protocol, TypeVar

# "ICML'24", "icml 24", "ICML-24": a two-digit year after the venue's letters means 20xx.
_SHORT_YEAR = re.compile(r"^([a-z]+)[\s'’`\-_]*(\d{2})$")
_DROP = re.compile(r"[^a-z0-9]+")


class NamedCollection(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def slug(self) -> str: ...


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
