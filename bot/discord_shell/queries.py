"""What a result list was asked for (`QueryRef`) and the one way to fetch a slice of it.

Paging, "More results" and "Similar papers" all re-run a query at another offset; they share
`fetch_slice`, so the engine call for a page is written once. Buttons carry their query in the
custom id (`encode_query`), so they keep working after a restart.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

from bot.text import one_line
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
        return await engine.similar(ref.text, limit=limit, offset=offset, collection=ref.collection)
    return await engine.ask(ref.text, limit=limit, offset=offset, collection=ref.collection)


# -- query references inside component custom ids (Discord allows 100 characters) -----------
_KINDS = {"ask": "a", "similar": "s"}
_INLINE = re.compile(r"(?P<kind>[as])(?P<length>\d{1,3})\.(?P<rest>.*)", re.DOTALL)


class QueryKeys:
    """Short keys for queries too long to write into a custom id: a bounded in-memory map.

    A key from before a restart is unknown; the component then says so and answers afresh.
    """

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._refs: OrderedDict[str, QueryRef] = OrderedDict()

    def remember(self, ref: QueryRef) -> str:
        text = f"{ref.kind}\0{ref.collection or ''}\0{ref.text}"
        payload = text.encode("utf-8", "surrogatepass")  # lone surrogates can arrive in JSON
        key = "h" + hashlib.sha256(payload).hexdigest()[:16]
        self._refs[key] = ref
        self._refs.move_to_end(key)
        while len(self._refs) > self.size:
            self._refs.popitem(last=False)
        return key

    def get(self, key: str) -> QueryRef | None:
        return self._refs.get(key)


def encode_query(ref: QueryRef, room: int, keys: QueryKeys) -> str:
    """The query written into at most `room` characters: inline when it fits, else a key."""
    collection = ref.collection or ""
    inline = f"{_KINDS[ref.kind]}{len(collection)}.{collection}{one_line(ref.text)}"
    return inline if len(inline) <= room and _sendable(inline) else keys.remember(ref)


def _sendable(text: str) -> bool:
    """Text Discord can carry in a custom id (valid UTF-8: no lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def decode_query(code: str, keys: QueryKeys) -> QueryRef | None:
    """The query `encode_query` wrote, or None when it was a key this process does not know."""
    if code.startswith("h"):
        return keys.get(code)
    match = _INLINE.fullmatch(code)
    if match is None:
        return None
    length, rest = int(match["length"]), match["rest"]
    kind: Literal["ask", "similar"] = "similar" if match["kind"] == "s" else "ask"
    return QueryRef(kind, rest[length:], rest[:length] or None)
