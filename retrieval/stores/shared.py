"""The store methods whose SQL and logic are the same on both backends, written once.

`SqlStore` holds them over three things a backend provides: its `Dialect`, `_rows` (a read
outside any transaction) and `_write` (a function run inside one write transaction, given a
`Tx`). Queries use `:name` parameters and `{word}`s (see `retrieval.stores.dialect`). What
really differs (ingest's key allocation and locking, array versus JSON columns, the size on
disk, PostgreSQL's retries and notifications) stays in each backend.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self, TypeVar

from retrieval import ids
from retrieval.errors import PaperNotFound
from retrieval.models import CollectionInfo, Paper
from retrieval.nodes import NodeRow
from retrieval.stores.dialect import Dialect
from retrieval.stores.plan import FileCounts, FilePlan, PlannedPaper
from retrieval.stores.protocol import ConversationRow, StoredText

_T = TypeVar("_T")

NODE_COLUMNS = "node_id, host, pid, shard_ids, generation, started_at, heartbeat_at, guilds"
SET_META = (
    "INSERT INTO meta (key, value) VALUES (:key, :value) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)
# +1 on the corpus generation (stored as text), returning the new one.
BUMP_GENERATION = (
    "INSERT INTO meta (key, value) VALUES ('generation', '1') ON CONFLICT (key) "
    "DO UPDATE SET value = CAST(CAST(meta.value AS {int64}) + 1 AS TEXT) RETURNING value"
)


class Tx(Protocol):
    """One open write transaction, in `:name` SQL."""

    async def execute(self, sql: str, /, **values: Any) -> int:
        """Run one statement; returns the rows it changed."""
        ...

    async def rows(self, sql: str, /, **values: Any) -> list[Any]: ...

    async def executemany(self, sql: str, values: Sequence[Mapping[str, Any]], /) -> None: ...

    async def insert_many(self, sql: str, rows: Sequence[Sequence[Any]], /) -> None:
        """Bulk writes with plain tuples (no dict a row), values in the order their `:name`s
        first appear; each name must appear once."""
        ...


class SqlStore:
    """Conversations, deployment state, meta, reading lists and plain paper reads."""

    dialect: ClassVar[Dialect]

    if TYPE_CHECKING:

        async def _rows(self, sql: str, /, *, bulk: bool = False, **values: Any) -> list[Any]:
            """Read outside a transaction; `bulk`: a whole-table read, given longer."""
            ...

        async def _write(
            self, work: Callable[[Tx], Awaitable[_T]], *, bulk: bool = False
        ) -> _T: ...

        async def close(self) -> None: ...

        async def _hold_ingest_lock(self, tx: Tx) -> None:
            """Serialize with ingests (PostgreSQL's advisory lock; SQLite has one writer)."""
            ...

        async def _bump_generation(self, tx: Tx) -> None:
            """`BUMP_GENERATION`, and whatever the backend announces it with."""
            ...

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    # -- conversation memory --------------------------------------------------------------

    async def conversation(self, scope: str) -> ConversationRow | None:
        rows = await self._rows(
            "SELECT scope, user_id, state, updated_at FROM conversations WHERE scope = :scope",
            scope=scope,
        )
        return _conversation(rows[0]) if rows else None

    async def remember_conversation(self, row: ConversationRow) -> None:
        async def work(tx: Tx) -> None:
            await tx.execute(
                "INSERT INTO conversations (scope, user_id, state, updated_at) "
                "VALUES (:scope, :user_id, :state, :updated_at) ON CONFLICT (scope) DO UPDATE "
                "SET user_id = excluded.user_id, state = excluded.state, "
                "updated_at = excluded.updated_at",
                scope=row.scope,
                user_id=row.user_id,
                state=row.state,
                updated_at=row.updated_at,
            )

        await self._write(work)

    async def answer_message(self, message_id: int) -> ConversationRow | None:
        rows = await self._rows(
            "SELECT scope, user_id, state, updated_at FROM answer_messages "
            "WHERE message_id = :message_id",
            message_id=message_id,
        )
        return _conversation(rows[0]) if rows else None

    async def remember_answer_message(self, message_id: int, row: ConversationRow) -> None:
        async def work(tx: Tx) -> None:
            await tx.execute(
                "INSERT INTO answer_messages (message_id, scope, user_id, state, updated_at) "
                "VALUES (:message_id, :scope, :user_id, :state, :updated_at) "
                "ON CONFLICT (message_id) DO UPDATE SET "
                "state = excluded.state, updated_at = excluded.updated_at",
                message_id=message_id,
                scope=row.scope,
                user_id=row.user_id,
                state=row.state,
                updated_at=row.updated_at,
            )

        await self._write(work)

    async def forget_conversations(self, *, before: float) -> int:
        async def work(tx: Tx) -> int:
            deleted = 0
            for table in ("conversations", "answer_messages"):
                sql = f"DELETE FROM {table} WHERE updated_at < :before"
                deleted += await tx.execute(sql, before=before)
            return deleted

        return await self._write(work)

    # -- deployment state -----------------------------------------------------------------

    async def command_sync_hash(self, scope: str) -> str | None:
        return await self._meta(f"command_sync:{scope}")

    async def record_command_sync(self, scope: str, payload_hash: str) -> None:
        async def work(tx: Tx) -> None:
            await tx.execute(SET_META, key=f"command_sync:{scope}", value=payload_hash)

        await self._write(work)

    async def heartbeat(self, node: NodeRow, *, forget_before: float | None = None) -> None:
        async def work(tx: Tx) -> None:
            await tx.execute(
                f"INSERT INTO nodes ({NODE_COLUMNS}) VALUES (:node_id, :host, :pid, "
                ":shard_ids, :generation, :started_at, :heartbeat_at, :guilds) "
                "ON CONFLICT (node_id) DO UPDATE SET shard_ids = excluded.shard_ids, "
                "generation = excluded.generation, heartbeat_at = excluded.heartbeat_at, "
                "guilds = excluded.guilds",
                node_id=node.node_id,
                host=node.host,
                pid=node.pid,
                shard_ids=node.shard_ids,
                generation=node.generation,
                started_at=node.started_at,
                heartbeat_at=node.heartbeat_at,
                guilds=node.guilds,
            )
            if forget_before is not None:
                await tx.execute(
                    "DELETE FROM nodes WHERE heartbeat_at < :before AND node_id != :node_id",
                    before=forget_before,
                    node_id=node.node_id,
                )

        await self._write(work)

    async def forget_node(self, node_id: str) -> None:
        async def work(tx: Tx) -> None:
            await tx.execute("DELETE FROM nodes WHERE node_id = :node_id", node_id=node_id)

        await self._write(work)

    async def nodes(self) -> list[NodeRow]:
        rows = await self._rows(f"SELECT {NODE_COLUMNS} FROM nodes ORDER BY started_at, node_id")
        return [NodeRow(*row) for row in rows]

    # -- meta and derived data ------------------------------------------------------------

    async def generation(self) -> int:
        """Bumped by every write that changes what the index holds."""
        return int(await self._meta("generation") or 0)

    async def derived_version(self, name: str) -> str | None:
        return await self._meta(f"{name}_version")

    async def _meta(self, key: str) -> str | None:
        rows = await self._rows("SELECT value FROM meta WHERE key = :key", key=key)
        return str(rows[0][0]) if rows else None

    async def stored_texts(self) -> list[StoredText]:
        """Every paper's title and abstract, by key, for re-deriving terms or labels."""
        rows = await self._rows(
            "SELECT {key}, title, abstract FROM papers ORDER BY {key}", bulk=True
        )
        return [StoredText(int(row[0]), row[1], str(row[2])) for row in rows]

    async def replace_derived(
        self,
        name: str,
        version: str,
        *,
        terms: Sequence[tuple[int, str]] = (),
        labels: Sequence[tuple[int, str]] = (),
    ) -> None:
        """Re-derived terms and labels by key and their version, in one transaction."""

        async def work(tx: Tx) -> None:
            await self._hold_ingest_lock(tx)
            await tx.executemany(
                "UPDATE papers SET terms = :terms WHERE {key} = :key",
                [{"terms": text, "key": key} for key, text in terms],
            )
            await tx.executemany(
                "UPDATE papers SET label = :label WHERE {key} = :key",
                [{"label": label, "key": key} for key, label in labels],
            )
            await tx.execute(SET_META, key=f"{name}_version", value=version)
            if terms:
                await self._bump_generation(tx)

        await self._write(work, bulk=True)

    # -- ingest and papers ----------------------------------------------------------------

    async def file_ingested(self, sha256: str) -> bool:
        rows = await self._rows(
            "SELECT 1 FROM ingested_files WHERE sha256 = :sha256", sha256=sha256
        )
        return bool(rows)

    async def rename_collection(self, slug: str, name: str) -> None:
        """Give a collection a better display name; its slug, ids and members stay."""

        async def work(tx: Tx) -> None:
            await tx.execute(
                "UPDATE collections SET name = :name WHERE slug = :slug", name=name, slug=slug
            )

        await self._write(work)

    async def index_terms(self, *, after_key: int, limit: int) -> list[tuple[int, str]]:
        rows = await self._rows(
            "SELECT {key}, terms FROM papers WHERE {key} > :after ORDER BY {key} LIMIT :limit",
            bulk=True,
            after=after_key,
            limit=limit,
        )
        return [(int(row[0]), str(row[1])) for row in rows]

    async def paper_labels(self) -> list[tuple[str, str]]:
        """(id, label) of every paper, by key: the autocomplete source."""
        rows = await self._rows("SELECT id, label FROM papers ORDER BY {key}", bulk=True)
        return [(str(row[0]), str(row[1])) for row in rows]

    # -- collections and statistics -------------------------------------------------------

    async def collections(self) -> list[CollectionInfo]:
        """Collections in creation order; `papers` counts members, not just home papers."""
        rows = await self._rows(
            """
            SELECT c.name, c.slug,
                   (SELECT count(*) FROM paper_collections AS m WHERE m.collection_id = c.id),
                   (SELECT count(*) FROM ingested_files AS f WHERE f.collection_id = c.id)
            FROM collections AS c
            ORDER BY c.id
            """
        )
        return [CollectionInfo(row[0], row[1], int(row[2]), int(row[3])) for row in rows]

    async def acronym_table(self) -> list[tuple[str, str, int]]:
        """(acronym, expansion, papers defining it), most-defined expansion first, by code
        point whatever the database's locale."""
        rows = await self._rows(
            "SELECT acronym, expansion, papers FROM acronyms "
            "ORDER BY acronym{binary}, papers DESC, expansion{binary}"
        )
        return [(str(row[0]), str(row[1]), int(row[2])) for row in rows]

    async def counts(self) -> tuple[int, int]:
        """(papers, collections)."""
        rows = await self._rows(
            "SELECT (SELECT count(*) FROM papers), (SELECT count(*) FROM collections)"
        )
        return int(rows[0][0]), int(rows[0][1])

    # -- reading lists --------------------------------------------------------------------

    async def save(self, user_id: int, paper_id: str) -> bool:
        """Add a paper to a reading list: True if newly added. PaperNotFound if no such paper."""
        key = ids.lookup_key(paper_id)

        async def work(tx: Tx) -> bool:
            added = await tx.execute(
                "INSERT INTO reading_list (user_id, paper_id) "
                "SELECT :user_id, id FROM papers WHERE id = :key ON CONFLICT DO NOTHING",
                user_id=user_id,
                key=key,
            )
            if added:
                return True
            if not await tx.rows("SELECT 1 FROM papers WHERE id = :key", key=key):
                raise PaperNotFound(paper_id)
            return False

        return await self._write(work)

    async def unsave(self, user_id: int, paper_id: str) -> bool:
        """Remove a paper from a reading list: True if it was there."""

        async def work(tx: Tx) -> bool:
            removed = await tx.execute(
                "DELETE FROM reading_list WHERE user_id = :user_id AND paper_id = :key",
                user_id=user_id,
                key=ids.lookup_key(paper_id),
            )
            return removed > 0

        return await self._write(work)


INSERT_PAPERS = (
    "INSERT INTO papers ({key}, id, collection_id, position, external_id, title, abstract, "
    "label, urls, authors, content_hash, terms) VALUES (:key, :id, :collection_id, :position, "
    ":external_id, :title, :abstract, :label, :urls, :authors, :content_hash, :terms)"
)


def paper_values(
    new: PlannedPaper, collection_id: int, texts: Callable[[tuple[str, ...]], Any]
) -> tuple[Any, ...]:
    """One planned paper as `INSERT_PAPERS` takes it; `texts` stores a list column."""
    paper = new.paper
    return (
        new.key,
        new.paper_id,
        collection_id,
        new.position,
        paper.external_id,
        paper.title,
        paper.abstract,
        paper.label,
        texts(paper.urls),
        texts(paper.authors),
        paper.content_hash,
        paper.terms,
    )


async def record_file(
    tx: Tx, origin: str, sha256: str, collection_id: int, counts: FileCounts
) -> bool:
    """Advance the collection's counter and record the file; False if another process
    recorded the same file meanwhile."""
    added, skipped, next_number = counts.added, counts.skipped, counts.next_number
    await tx.execute(
        "UPDATE collections SET next_number = :next WHERE id = :id",
        next=next_number,
        id=collection_id,
    )
    recorded = await tx.rows(
        "INSERT INTO ingested_files (path, sha256, collection_id, papers_added, papers_skipped) "
        "VALUES (:path, :sha256, :collection_id, :added, :skipped) "
        "ON CONFLICT (sha256) DO NOTHING RETURNING id",
        path=origin,
        sha256=sha256,
        collection_id=collection_id,
        added=added,
        skipped=skipped,
    )
    return bool(recorded)


async def write_memberships(tx: Tx, plan: FilePlan, collection_id: int) -> None:
    """One chunk's memberships and acronym counts (counts add up across chunks)."""
    await tx.insert_many(
        "INSERT INTO paper_collections ({member_key}, collection_id, position, external_id) "
        "VALUES (:key, :collection_id, :position, :external_id)",
        [(m.key, collection_id, m.position, m.external_id) for m in plan.memberships],
    )
    await tx.insert_many(
        "INSERT INTO acronyms (acronym, expansion, papers) VALUES (:acronym, :expansion, :n) "
        "ON CONFLICT (acronym, expansion) DO UPDATE SET papers = acronyms.papers + excluded.papers",
        [(acronym, expansion, n) for (acronym, expansion), n in plan.acronyms.items()],
    )


def paper_of(row: Any, names: Callable[[Any], Sequence[str]]) -> Paper:
    """A `Paper` from the columns every paper query selects, in order; `names` reads a
    list column (URLs, authors, other collections) as the backend stores it."""
    return Paper(
        id=row[0],
        collection=row[1],
        position=row[2],
        external_id=row[3],
        abstract=row[4],
        label=row[5],
        title=row[6],
        urls=tuple(names(row[7])),
        authors=tuple(names(row[8])),
        content_hash=row[9],
        also_in=tuple(names(row[10])),
    )


def _conversation(row: Any) -> ConversationRow:
    return ConversationRow(str(row[0]), int(row[1]), str(row[2]), float(row[3]))
