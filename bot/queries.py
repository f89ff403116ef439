"""What a result list was asked for (`QueryRef`) and the one way to fetch a slice of it.

Paging, "More results" and "Similar papers" all re-run a query at another offset; they share
`fetch_slice`, so the engine call for a page is written once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from retrieval.api import EngineAPI
from retrieval.models import Answer


@dataclass(frozen=True, slots=True)
class QueryRef:
    """`kind` "ask": `text` is the question; "similar": `text` is the paper id."""

    kind: Literal["ask", "similar"]
    text: str
    collection: str | None = None


async def fetch_slice(engine: EngineAPI, ref: QueryRef, offset: int, limit: int) -> Answer:
    """Results `offset .. offset + limit` of the query."""
    if ref.kind == "similar":
        return await engine.similar(ref.text, limit=limit, offset=offset)
    return await engine.ask(ref.text, limit=limit, offset=offset, collection=ref.collection)
