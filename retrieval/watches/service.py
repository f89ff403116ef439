"""`engine.watches`: saved queries announced when new papers match them.

After an ingest adds papers, `after_ingest(new_docs)` ranks each active watch's query over the
corpus (`watch_matching`) and stores at most one digest per watch: up to `DIGEST_PAPERS` papers
(label, id, matching sentence) and how many more. The store records every (watch, paper) pair
announced, so a paper never reaches the same watch twice. A shell sends a digest only after
`claim` (an UPDATE ... WHERE claimed_by IS NULL: exactly one process wins), then reports
`delivered` or `failed`; a failure pauses the watch with its reason and nothing retries it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from retrieval.answering import best_sentences, query_weights
from retrieval.corpus import Corpus
from retrieval.errors import PaperbotError
from retrieval.models import Paper
from retrieval.query import parse_query
from retrieval.questions import rank_question
from retrieval.ranking import RankOptions
from retrieval.watches.matching import matching_docs, model_matching_docs, watch_words

DIGEST_PAPERS = 5
# The terminal's user (LOCAL_USER of bot/terminal/chat_console.py): no Discord id is 0, so the
# bot never sends these digests; `paperbot ingest` prints them.
CONSOLE_USER = 0
MAX_QUERY_CHARS = 300


@dataclass(frozen=True, slots=True)
class WatchLimits:
    """How many watches a user and a guild may keep, how a watch matches, and how long an
    announced sentence may be (built from Settings by `retrieval.parameters.watch_limits`)."""

    max_per_user: int
    max_per_guild: int
    matcher: str  # "model" or "words"
    min_probability: float | None  # None: the model's fitted threshold
    top_k: int
    min_score: float
    excerpt_chars: int


@dataclass(frozen=True, slots=True)
class WatchRow:
    """A saved query. `channel_id` None: announced by DM. `paused_reason` set: not announced."""

    id: int
    user_id: int
    guild_id: int | None
    channel_id: int | None
    query: str
    created_at: str
    last_fired_at: str | None = None
    paused_reason: str | None = None


@dataclass(frozen=True, slots=True)
class DigestRow:
    """One announcement for one watch: `body` is JSON owned by `retrieval.watches.service`."""

    id: int
    watch_id: int
    user_id: int
    guild_id: int | None
    channel_id: int | None
    body: str


class WatchError(PaperbotError):
    """A watch cannot be added (bad query, a limit reached); the message says what to do."""


@dataclass(frozen=True, slots=True)
class DigestPaper:
    paper_id: str
    label: str
    sentence: str


@dataclass(frozen=True, slots=True)
class Digest:
    """One announcement for one watch after one ingest."""

    id: int
    watch_id: int
    user_id: int
    guild_id: int | None
    channel_id: int | None
    query: str
    papers: tuple[DigestPaper, ...]
    more: int

    @property
    def by_dm(self) -> bool:
        return self.channel_id is None


def digest_body(query: str, papers: Sequence[DigestPaper], total: int) -> str:
    return json.dumps(
        {
            "query": query,
            "papers": [[p.paper_id, p.label, p.sentence] for p in papers[:DIGEST_PAPERS]],
            "more": max(total - DIGEST_PAPERS, 0),
        },
        ensure_ascii=False,
    )


def digest_of(row: DigestRow) -> Digest:
    body = json.loads(row.body)
    papers = tuple(DigestPaper(*entry) for entry in body["papers"])
    return Digest(
        row.id, row.watch_id, row.user_id, row.guild_id, row.channel_id,
        body["query"], papers, int(body["more"]),
    )  # fmt: skip


def _body_builder(query: str, shown: Sequence[DigestPaper]) -> Callable[[Sequence[str]], str]:
    """The digest body for the papers the store says this watch has not announced yet."""

    def body(fresh: Sequence[str]) -> str:
        keep = set(fresh)
        return digest_body(query, [paper for paper in shown if paper.paper_id in keep], len(fresh))

    return body


class Watches:
    def __init__(
        self,
        store: WatchStore,
        limits: WatchLimits,
        corpus: Callable[[], Corpus],
        options: RankOptions,
    ) -> None:
        self._store = store
        self._limits = limits
        self._corpus = corpus
        self._options = options

    async def add(
        self,
        user_id: int,
        query: str,
        *,
        guild_id: int | None = None,
        channel_id: int | None = None,
    ) -> WatchRow:
        """Save a watch; WatchError if the query is empty or too long, or a limit is reached."""
        query = " ".join(query.split())
        if len(query) > MAX_QUERY_CHARS:
            raise WatchError(f"A watch query can be at most {MAX_QUERY_CHARS} characters.")
        try:
            await asyncio.to_thread(rank_question, self._corpus(), self._options, query, None, 300)
        except PaperbotError as error:
            reason = str(error)
            raise WatchError(
                f"That query cannot be watched: {reason[:1].lower()}{reason[1:]}"
            ) from error
        if not watch_words(self._options, parse_query(query)):
            raise WatchError(
                f"That query cannot be watched: “{query}” has only common words "
                "(like “the” or “of”) that searches skip, so no paper would ever match it. "
                "Add a word papers are about, e.g. “mixture of experts routing”."
            )
        for watch in await self._store.watches_of(user_id):
            same_place = (watch.guild_id, watch.channel_id) == (guild_id, channel_id)
            if same_place and watch.query.casefold() == query.casefold():
                # Two equal watches would announce every matching paper twice.
                raise WatchError(
                    f"You already watch “{watch.query}” there (watch {watch.id}); "
                    "each new match is announced once."
                )
        mine, guild = await self._store.watch_counts(user_id, guild_id)
        limits = self._limits
        if mine >= limits.max_per_user:
            raise WatchError(
                f"You have {mine} watches, the limit (PAPERBOT_WATCH_MAX_PER_USER); "
                "remove one with /unwatch first."
            )
        if guild_id is not None and guild >= limits.max_per_guild:
            raise WatchError(
                f"This server has {guild} watches, the limit (PAPERBOT_WATCH_MAX_PER_GUILD); "
                "ask members to remove some with /unwatch."
            )
        return await self._store.add_watch(user_id, guild_id, channel_id, query)

    async def of(self, user_id: int) -> list[WatchRow]:
        return await self._store.watches_of(user_id)

    async def remove(self, user_id: int, watch_id: int) -> bool:
        return await self._store.remove_watch(user_id, watch_id)

    def newest_key(self) -> int:
        """The highest store key loaded: papers ingested later have higher keys."""
        keys = self._corpus().index.keys
        return int(keys.max()) if len(keys) else 0

    def docs_after(self, key: int) -> list[int]:
        """Documents of the current snapshot whose store key is above `key` (the new ones)."""
        return [int(doc) for doc in np.flatnonzero(self._corpus().index.keys > key)]

    async def after_ingest(self, new_docs: Collection[int]) -> list[Digest]:
        """WatchStore (and return) one digest per active watch that the new documents match."""
        watches = await self._store.active_watches()
        if not new_docs or not watches:
            return []
        corpus = self._corpus()
        found = await asyncio.to_thread(self._match_all, corpus, watches, set(new_docs))
        digests = []
        for watch, docs in found:
            papers = await self._store.papers_by_key(corpus.keys_of(docs))
            weights = query_weights(corpus, watch.query, self._options)
            sentences = await asyncio.to_thread(
                best_sentences,
                [p.abstract for p in papers],
                weights,
                self._limits.excerpt_chars,
            )
            shown = [
                DigestPaper(p.id, p.label, s.plain if s else "")
                for p, s in zip(papers, sentences, strict=False)
            ]
            body = _body_builder(watch.query, shown)
            row = await self._store.record_digest(watch, [p.id for p in papers], body)
            if row is not None:
                digests.append(digest_of(row))
        return digests

    def _match_all(
        self, corpus: Corpus, watches: Sequence[WatchRow], new_docs: set[int]
    ) -> list[tuple[WatchRow, list[int]]]:
        limits = self._limits
        found = []
        for watch in watches:
            try:
                if limits.matcher == "words":
                    matched = matching_docs(
                        corpus,
                        self._options,
                        watch.query,
                        new_docs,
                        top_k=limits.top_k,
                        min_score=limits.min_score,
                        max_chars=MAX_QUERY_CHARS,
                    )
                else:
                    matched = model_matching_docs(
                        corpus,
                        self._options,
                        watch.query,
                        new_docs,
                        min_probability=limits.min_probability,
                        max_chars=MAX_QUERY_CHARS,
                    )
            except PaperbotError:
                continue  # a query the current corpus cannot search (e.g. a removed collection)
            if matched:
                found.append((watch, [doc for doc, _ in matched]))
        return found

    async def pending(self) -> list[Digest]:
        return [digest_of(row) for row in await self._store.pending_digests()]

    async def claim(self, digest: Digest, claimer: str) -> bool:
        """True for exactly one claimer across processes: only that one sends the digest."""
        return await self._store.claim_digest(digest.id, claimer)

    async def delivered(self, digest: Digest) -> None:
        await self._store.finish_digest(digest.id, None)

    async def failed(self, digest: Digest, reason: str) -> None:
        """Pause the watch with `reason` (shown in /watches); it is not retried."""
        await self._store.finish_digest(digest.id, reason[:200])


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
