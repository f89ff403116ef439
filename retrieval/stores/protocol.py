"""What the engine needs of a database: one Protocol per concern, `Store` (all of them, for
the backends and the engine), and the values that cross them.

Two backends implement it: SQLite (`retrieval/stores/sqlite.py`, the zero-setup default) and
PostgreSQL (`retrieval/stores/postgres.py`, several bot processes over one database). Nothing
backend-specific crosses this seam: no connections, rowids, SQL types or file paths. Papers are
addressed by their paperbot id, or by `key`: an integer the store assigns once, in insertion
order, never reused, which the index uses to name documents compactly.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from retrieval.models import CollectionInfo, Paper


@dataclass(frozen=True, slots=True)
class NewPaper:
    """A paper ready to store, prepared by ingest. `acronyms` are defined in its abstract."""

    abstract: str
    external_id: str
    label: str
    content_hash: str
    terms: str
    title: str | None = None
    urls: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    acronyms: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class PaperChunks:
    """One file's papers as a series of chunks, so a big file is never held whole.

    `read()` starts again from the first chunk each time it is called: a backend that runs a
    collided transaction again reads the papers again.
    """

    read: Callable[[], AsyncIterator[Sequence[NewPaper]]]

    @classmethod
    def of(cls, papers: Sequence[NewPaper] | PaperChunks) -> PaperChunks:
        """`papers` as chunks: a plain sequence is one chunk."""
        if isinstance(papers, PaperChunks):
            return papers

        async def one_chunk() -> AsyncIterator[Sequence[NewPaper]]:
            yield papers

        return cls(one_chunk)


@dataclass(frozen=True, slots=True)
class FileResult:
    """What `add_file` did. `collection` is the stored name, which wins over a new spelling.
    `unapplied`: skipped papers whose title or authors in the file the stored paper lacks."""

    added: int
    skipped: int
    collection: str
    slug: str
    already_ingested: bool
    unapplied: int = 0


@dataclass(frozen=True, slots=True)
class IndexRow:
    """What the index needs of one paper. `slugs` is the home collection, then memberships."""

    key: int
    paper_id: str
    slugs: tuple[str, ...]
    terms: str


@dataclass(frozen=True, slots=True)
class StoredText:
    """A paper's text as stored, for re-deriving what was computed from it at ingest."""

    key: int
    title: str | None
    abstract: str


@dataclass(frozen=True, slots=True)
class ConversationRow:
    """A conversation's memory as the store keeps it: opaque JSON owned by
    `retrieval.conversation`, the user it belongs to (so it can be forgotten), and when."""

    scope: str
    user_id: int
    state: str
    updated_at: float


class PaperStore(Protocol):
    """Reading the corpus: papers, collections, the index's input, statistics."""

    async def generation(self) -> int:
        """Bumped by every write that changes what the index holds."""
        ...

    async def index_rows(self, *, with_terms: bool = True, after_key: int = 0) -> list[IndexRow]:
        """Index input of every paper with key > `after_key`, by key. Without `with_terms`,
        `terms` is "" (enough to check a saved index)."""
        ...

    async def index_terms(self, *, after_key: int, limit: int) -> list[tuple[int, str]]:
        """(key, terms) of up to `limit` papers with key > `after_key`, by key: the index is
        built from these a chunk at a time, never holding every paper's terms at once."""
        ...

    async def derived_version(self, name: str) -> str | None:
        """The version of the analyzer ('analyzer') or labeler ('labeler') stored data matches."""
        ...

    async def paper(self, paper_id: str) -> Paper | None:
        """By paperbot id (`ids.lookup_key` folding) or, failing that, by external id."""
        ...

    async def papers_by_key(self, keys: Sequence[int]) -> list[Paper]:
        """Papers in the order given; unknown keys are left out."""
        ...

    async def abstracts_by_key(self, keys: Sequence[int]) -> dict[int, str]: ...

    async def random_paper(self, slug: str | None = None) -> Paper | None: ...

    async def paper_labels(self) -> list[tuple[str, str]]:
        """(id, label) of every paper, by key."""
        ...

    async def collections(self) -> list[CollectionInfo]:
        """In creation order; `papers` counts members, not just home papers."""
        ...

    async def acronym_table(self) -> list[tuple[str, str, int]]: ...

    async def counts(self) -> tuple[int, int]:
        """(papers, collections)."""
        ...

    async def size_bytes(self) -> int:
        """The database's size on disk, as far as the backend can tell."""
        ...


class IngestStore(Protocol):
    """Writing the corpus: files of papers, collection names, re-derived data."""

    async def file_ingested(self, sha256: str) -> bool: ...

    async def add_file(
        self,
        *,
        origin: str,
        sha256: str,
        collection: str,
        papers: Sequence[NewPaper] | PaperChunks,
    ) -> FileResult:
        """Store one file's papers atomically; idempotent by `sha256` and by content hash.

        `papers` is a sequence or, for a big file, `PaperChunks` written one chunk at a time
        inside the one transaction: the result is the same however the file is split.

        A paper whose content hash is already stored keeps its id and home collection and
        becomes a member of `collection`. New papers get ids `<slug>-<n>`, numbered on from the
        collection's last id, in order, allocated by the database (never in process memory).
        Bumps the corpus generation.
        """
        ...

    async def rename_collection(self, slug: str, name: str) -> None: ...

    async def derived_version(self, name: str) -> str | None:
        """The version of the analyzer ('analyzer') or labeler ('labeler') stored data matches."""
        ...

    async def stored_texts(self) -> list[StoredText]: ...

    async def replace_derived(
        self,
        name: str,
        version: str,
        *,
        terms: Sequence[tuple[int, str]] = (),
        labels: Sequence[tuple[int, str]] = (),
    ) -> None:
        """Store re-derived terms and/or labels by key and record `version`, in one
        transaction; new terms bump the generation."""
        ...


class ReadingListStore(Protocol):
    """Personal reading lists (and reading papers back, for exporting them)."""

    async def save(self, user_id: int, paper_id: str) -> bool:
        """True if newly added; raises PaperNotFound if no such paper."""
        ...

    async def unsave(self, user_id: int, paper_id: str) -> bool: ...

    async def saved(self, user_id: int) -> list[Paper]:
        """Oldest first."""
        ...

    async def papers_by_key(self, keys: Sequence[int]) -> list[Paper]:
        """Papers in the order given; unknown keys are left out."""
        ...


class ConversationStore(Protocol):
    """Chat memory: per conversation, and per answer message sent."""

    async def conversation(self, scope: str) -> ConversationRow | None:
        """The memory of one conversation: per (user, channel) in guilds, per DM."""
        ...

    async def remember_conversation(self, row: ConversationRow) -> None:
        """Insert or replace the memory of `row.scope`."""
        ...

    async def answer_message(self, message_id: int) -> ConversationRow | None:
        """The answer a sent message showed (replies resolve against it), by message id."""
        ...

    async def remember_answer_message(self, message_id: int, row: ConversationRow) -> None: ...

    async def forget_conversations(self, *, before: float) -> int:
        """Delete memory (both kinds) last updated before `before`; returns rows deleted."""
        ...


@runtime_checkable
class CorpusNotifier(Protocol):
    """A store that announces corpus changes (PostgreSQL LISTEN/NOTIFY). Others are polled."""

    def corpus_generations(self, *, poll_seconds: float = 30.0) -> AsyncIterator[int]:
        """The current generation, then each new one; survives reconnects; never raises."""
        ...
