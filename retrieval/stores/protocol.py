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
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from retrieval.models import CollectionInfo, Paper

if TYPE_CHECKING:
    from retrieval.nodes import NodeRow
    from retrieval.privacy import UserData
    from retrieval.shortlist import ShortlistRow
    from retrieval.trending import ActivityRow
    from retrieval.watches import DigestRow, WatchRow


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
    """What `add_file` did. `collection` is the stored name, which wins over a new spelling."""

    added: int
    skipped: int
    collection: str
    slug: str
    already_ingested: bool


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


class WatchStore(Protocol):
    """Saved queries, their digests and deliveries (and the papers a digest shows)."""

    async def add_watch(
        self, user_id: int, guild_id: int | None, channel_id: int | None, query: str
    ) -> WatchRow: ...

    async def watch_counts(self, user_id: int, guild_id: int | None) -> tuple[int, int]:
        """(watches of the user, watches in the guild; 0 when `guild_id` is None)."""
        ...

    async def watches_of(self, user_id: int) -> list[WatchRow]:
        """A user's watches, oldest first."""
        ...

    async def active_watches(self) -> list[WatchRow]:
        """Every watch not paused, oldest first."""
        ...

    async def remove_watch(self, user_id: int, watch_id: int) -> bool:
        """Delete one of the user's watches (and its deliveries and digests)."""
        ...

    async def record_digest(
        self, watch: WatchRow, paper_ids: Sequence[str], body: Callable[[Sequence[str]], str]
    ) -> DigestRow | None:
        """In one transaction: record (watch, paper) deliveries, keeping only papers this watch
        never announced, and store a digest of those built by `body(paper ids)`; None (and
        nothing stored) when every paper was announced before."""
        ...

    async def pending_digests(self) -> list[DigestRow]:
        """Digests nobody has claimed, oldest first."""
        ...

    async def claim_digest(self, digest_id: int, claimer: str) -> bool:
        """True for exactly one caller across processes (UPDATE ... WHERE claimed_by IS NULL)."""
        ...

    async def finish_digest(self, digest_id: int, failure: str | None) -> None:
        """Record the outcome: sent (the watch's `last_fired_at` is set) or failed (the watch
        is paused with `failure` as the reason; nothing retries it)."""
        ...

    async def papers_by_key(self, keys: Sequence[int]) -> list[Paper]:
        """Papers in the order given; unknown keys are left out."""
        ...


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


class ActivityStore(Protocol):
    """A guild's per-paper, per-day counters (papers looked up to show them)."""

    async def count_activity(
        self, guild_id: int, day: str, kind: str, paper_ids: Sequence[str]
    ) -> None:
        """Add 1 to `kind` (one of ACTIVITY_KINDS) for each paper on `day` (YYYY-MM-DD, UTC)."""
        ...

    async def activity(self, guild_id: int, since_day: str, limit: int) -> list[ActivityRow]:
        """Counters summed over days >= `since_day`, most active first (ties by paper id)."""
        ...

    async def paper(self, paper_id: str) -> Paper | None:
        """By paperbot id (`ids.lookup_key` folding) or, failing that, by external id."""
        ...


class UserDataStore(Protocol):
    """Everything held about one user: counted, listed, and forgotten."""

    async def user_data(self, user_id: int) -> UserData: ...

    async def forget_user(self, user_id: int) -> UserData:
        """Delete every row about the user in one transaction (shortlist entries they added
        stay, with `added_by` set to 0); returns what was deleted or anonymised."""
        ...

    async def saved(self, user_id: int) -> list[Paper]:
        """Oldest first."""
        ...

    async def watches_of(self, user_id: int) -> list[WatchRow]:
        """A user's watches, oldest first."""
        ...


class ClusterStore(Protocol):
    """Deployment state: command-sync hashes, process heartbeats, and the corpus
    generation each process is compared with."""

    async def command_sync_hash(self, scope: str) -> str | None:
        """The hash of the slash-command payload last synced to Discord for `scope`."""
        ...

    async def record_command_sync(self, scope: str, payload_hash: str) -> None: ...

    async def heartbeat(self, node: NodeRow, *, forget_before: float | None = None) -> None:
        """Record `node` as it is now: insert it, or replace the row with its `node_id`. In the
        same transaction, delete other rows whose heartbeat is older than `forget_before`
        (stopped processes; None keeps them all)."""
        ...

    async def nodes(self) -> list[NodeRow]:
        """Every process that has reported, oldest `started_at` first."""
        ...

    async def generation(self) -> int:
        """Bumped by every write that changes what the index holds."""
        ...


class Store(
    PaperStore,
    IngestStore,
    ReadingListStore,
    ConversationStore,
    WatchStore,
    ShortlistStore,
    ActivityStore,
    UserDataStore,
    ClusterStore,
    Protocol,
):
    """The whole database, as each backend implements it and the engine holds it: every
    concern above, plus closing. Every write is one transaction: all of it, or none. Feature
    code takes the one concern it uses, never this."""

    async def close(self) -> None: ...

    async def __aenter__(self) -> Store: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...


@runtime_checkable
class CorpusNotifier(Protocol):
    """A store that announces corpus changes (PostgreSQL LISTEN/NOTIFY). Others are polled."""

    def corpus_generations(self, *, poll_seconds: float = 30.0) -> AsyncIterator[int]:
        """The current generation, then each new one; survives reconnects; never raises."""
        ...
