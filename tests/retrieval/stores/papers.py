"""Small papers and files for store tests."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from retrieval import ids
from retrieval.stores.protocol import FileResult, NewPaper
from retrieval.stores.store import Store

# SQLite's strftime('%Y-%m-%dT%H:%M:%fZ'): both backends must return exactly this shape.
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
BIG = 2**62  # Discord snowflakes exceed 32 bits


def digest_body(paper_ids: Sequence[str]) -> str:
    return ",".join(paper_ids)


def new_paper(n: int, abstract: str | None = None, **fields: Any) -> NewPaper:
    text = abstract if abstract is not None else f"Paper {n} studies mixture of experts routing."
    return NewPaper(
        abstract=text,
        external_id=f"ext-{n}",
        label=f"Label {n}",
        content_hash=ids.content_hash(text),
        terms=f"paper {n} studi mixtur expert rout",
        **fields,
    )


def broken_paper() -> NewPaper:
    """A paper whose insert fails (NOT NULL on papers.abstract) halfway through a file."""
    return NewPaper(
        abstract=None,  # type: ignore[arg-type]
        external_id="bad",
        label="bad",
        content_hash="bad-hash",
        terms="bad",
    )


def papers(*numbers: int) -> list[NewPaper]:
    return [new_paper(n) for n in numbers]


async def add(
    store: Store, sha: str, collection: str, items: Sequence[NewPaper], path: str = "f.txt"
) -> FileResult:
    return await store.add_file(origin=path, sha256=sha, collection=collection, papers=items)
