"""One rule for what names a collection, shared by `--in`, `in:` and chat."""

from __future__ import annotations

from retrieval.collection_names import resolve_collections
from retrieval.models import CollectionInfo

LOADED = [
    CollectionInfo("ICML 2026", "icml2026", 38, 1),
    CollectionInfo("ICLR 2023", "iclr2023", 10, 1),
    CollectionInfo("ICLR 2024", "iclr2024", 10, 1),
    CollectionInfo("Test Watch", "testwatch", 2, 1),
]


def slugs(text: str) -> list[str]:
    return [info.slug for info in resolve_collections(text, LOADED)]


def test_a_name_or_slug_is_that_collection() -> None:
    assert slugs("ICLR 2024") == ["iclr2024"]
    assert slugs("iclr2024") == ["iclr2024"]
    assert slugs("Test Watch") == ["testwatch"]


def test_a_venue_without_a_year_is_every_loaded_year_of_it() -> None:
    assert slugs("iclr") == ["iclr2023", "iclr2024"]
    assert slugs("ICML") == ["icml2026"]


def test_what_names_nothing_loaded_is_nothing() -> None:
    assert slugs("cvpr") == []
    assert slugs("test") == []  # a prefix of a name that is not a venue and a year
    assert slugs("iclr 2019") == []
