"""What one ingested file adds, decided once for every backend: new papers, memberships, acronyms.

The rules of `Store.add_file` that are not SQL live here, so SQLite and PostgreSQL number papers,
skip duplicates and count acronym definitions identically. Backends supply what only the
database knows (stored content hashes, the collection's next number and position, fresh keys)
and write the plan's rows in one transaction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from retrieval import ids
from retrieval.stores.protocol import FileResult, NewPaper, PaperChunks


@dataclass(frozen=True, slots=True)
class PlannedPaper:
    """A paper the file adds: its key, its id `<slug>-<position>`, and what ingest prepared."""

    key: int
    paper_id: str
    position: int
    paper: NewPaper


@dataclass(frozen=True, slots=True)
class Membership:
    """A paper (new or stored) listed in the file's collection, at `position` in it."""

    key: int
    position: int
    external_id: str


class Known(NamedTuple):
    """A stored paper a file lists again: its key, whether it is already a member of the
    file's collection, and whether it has a title and authors."""

    key: int
    member: bool
    titled: bool
    authored: bool


@dataclass(frozen=True, slots=True)
class FilePlan:
    """Rows one file adds. `next_number` is the collection's counter after the file.

    `unapplied` counts stored papers the file lists with a title or authors they lack: a
    stored paper keeps the text it was first ingested with, so the caller says so.
    """

    papers: tuple[PlannedPaper, ...]
    memberships: tuple[Membership, ...]
    acronyms: Counter[tuple[str, str]]
    skipped: int
    next_number: int
    unapplied: int = 0


class FileCounts(NamedTuple):
    """What a whole file did: papers added and skipped, the collection's next number, and
    stored papers whose title or authors in the file were not applied."""

    added: int
    skipped: int
    next_number: int
    unapplied: int = 0

    def result(self, collection: str, slug: str) -> FileResult:
        """What `add_file` reports for a file it wrote."""
        return FileResult(
            self.added,
            self.skipped,
            collection,
            slug,
            already_ingested=False,
            unapplied=self.unapplied,
        )


def new_paper_count(papers: Sequence[NewPaper], stored: Mapping[str, object]) -> int:
    """How many keys the file needs: its distinct content hashes not already stored."""
    return len({paper.content_hash for paper in papers} - stored.keys())


def plan_file(
    papers: Sequence[NewPaper],
    *,
    stored: Mapping[str, Known],
    slug: str,
    next_number: int,
    next_position: int,
    keys: Iterator[int],
) -> FilePlan:
    """Decide, for each paper in file order, whether it is new or a membership of a stored one.

    `stored` maps content hash -> what is known of that stored paper. New papers take
    the next values of `keys` (ascending, allocated by the database) and numbers from
    `next_number` on, in file order; a repeat within the file is skipped like a stored paper.
    An acronym defined twice in one abstract counts once.
    """
    planned: list[PlannedPaper] = []
    memberships: list[Membership] = []
    acronyms: Counter[tuple[str, str]] = Counter()
    skipped = unapplied = 0
    members = {found.key for found in stored.values() if found.member}
    known = {content_hash: found.key for content_hash, found in stored.items()}
    for paper in papers:
        key = known.get(paper.content_hash)
        before = stored.get(paper.content_hash)
        if before is not None and (
            (paper.title and not before.titled) or (paper.authors and not before.authored)
        ):
            unapplied += 1
        if key is None:
            key = next(keys)
            known[paper.content_hash] = key
            planned.append(PlannedPaper(key, ids.paper_id(slug, next_number), next_number, paper))
            next_number += 1
            acronyms.update(set(paper.acronyms))
        else:
            skipped += 1
        if key not in members:
            members.add(key)
            memberships.append(Membership(key, next_position, paper.external_id))
            next_position += 1
    return FilePlan(tuple(planned), tuple(memberships), acronyms, skipped, next_number, unapplied)


Stored = dict[str, Known]


async def write_chunks(
    chunks: PaperChunks,
    slug: str,
    next_number: int,
    next_position: int,
    *,
    stored: Callable[[Sequence[NewPaper]], Awaitable[Stored]],
    keys: Callable[[Sequence[NewPaper], Stored], Awaitable[Iterator[int]]],
    write: Callable[[FilePlan], Awaitable[None]],
) -> FileCounts:
    """Plan and write a file one chunk at a time, inside the backend's one transaction.

    For each chunk the backend reads which hashes are stored (earlier chunks included), hands
    out keys for the new papers, and writes the plan; numbers and positions run on across
    chunks.
    """
    added = skipped = unapplied = 0
    async for chunk in chunks.read():
        known = await stored(chunk)
        plan = plan_file(
            chunk,
            stored=known,
            slug=slug,
            next_number=next_number,
            next_position=next_position,
            keys=await keys(chunk, known),
        )
        await write(plan)
        next_number = plan.next_number
        next_position += len(plan.memberships)
        added += len(plan.papers)
        skipped += plan.skipped
        unapplied += plan.unapplied
    return FileCounts(added, skipped, next_number, unapplied)
