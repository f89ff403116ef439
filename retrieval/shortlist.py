"""`engine.shortlist`: one shared reading list per guild, with who added each paper, when, and
an optional note; exported like personal lists. Who may curate is the shell's rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from retrieval.errors import PaperNotFound
from retrieval.exports.formats import ExportEntry, export_papers
from retrieval.models import Paper

MAX_NOTE_CHARS = 200
FORGOTTEN = "a former member"


@dataclass(frozen=True, slots=True)
class ShortlistRow:
    """A paper on a guild's shared reading list. `added_by` 0: the curator asked to be forgotten."""

    paper: Paper
    added_by: int
    added_at: str
    note: str | None


class Shortlist:
    def __init__(self, store: ShortlistStore) -> None:
        self._store = store

    async def add(
        self, guild_id: int, paper_id: str, user_id: int, note: str | None = None
    ) -> tuple[ShortlistRow, bool]:
        """The entry, and True if newly added; PaperNotFound if there is no such paper."""
        paper = await self._store.paper(paper_id.strip())
        if paper is None:
            raise PaperNotFound(paper_id[:100])
        note = " ".join(note.split())[:MAX_NOTE_CHARS] if note else None
        added = await self._store.shortlist_add(guild_id, paper.id, user_id, note or None)
        entries = await self._store.shortlist(guild_id)
        return next(entry for entry in entries if entry.paper.id == paper.id), added

    async def remove(self, guild_id: int, paper_id: str) -> bool:
        return await self._store.shortlist_remove(guild_id, paper_id.strip())

    async def entries(self, guild_id: int) -> list[ShortlistRow]:
        return await self._store.shortlist(guild_id)

    async def export(
        self, guild_id: int, fmt: str, *, names: dict[int, str] | None = None
    ) -> tuple[str, bytes, int]:
        """The list as a file (name, bytes, count); `names` maps curator ids to display names."""
        rows = await self._store.shortlist(guild_id)
        entries = [
            ExportEntry(row.paper, curator(row.added_by, names), row.added_at, row.note)
            for row in rows
        ]
        name, data = export_papers(entries, fmt, title="Server reading list")
        return name, data, len(rows)


def curator(user_id: int, names: dict[int, str] | None = None) -> str:
    if user_id == 0:
        return FORGOTTEN
    return (names or {}).get(user_id, str(user_id))


class ShortlistStore(Protocol):
    """A guild's shared reading list (papers looked up by id to add them)."""

    async def shortlist_add(
        self, guild_id: int, paper_id: str, user_id: int, note: str | None
    ) -> bool:
        """True if newly added (False: already there, unchanged); PaperNotFound if no such paper."""
        ...

    async def shortlist_remove(self, guild_id: int, paper_id: str) -> bool: ...

    async def shortlist(self, guild_id: int) -> list[ShortlistRow]:
        """Oldest first."""
        ...

    async def paper(self, paper_id: str) -> Paper | None:
        """By paperbot id (`ids.lookup_key` folding) or, failing that, by external id."""
        ...
