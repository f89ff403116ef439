"""A small in-memory engine with the real engine's async API, for fast deterministic bot tests."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from retrieval.api import ConversationMemory
from retrieval.conversation.memory import ConversationState
from retrieval.errors import CollectionNotFound, ListFormatError, PaperNotFound, QueryError
from retrieval.models import (
    Answer,
    CollectionInfo,
    EngineStats,
    Excerpt,
    Hit,
    IngestReport,
    Paper,
    ParsedQuery,
    Span,
)
from tests.bot.fake_services import (
    FakeExports,
    FakeNodes,
    FakePrivacy,
    FakeShortlist,
    FakeTrending,
    FakeWatches,
)


def make_paper(
    number: int, abstract: str, *, collection: str = "ICML 2026", **extra: object
) -> Paper:
    slug = "icml2026" if collection == "ICML 2026" else "neurips2025"
    label = abstract.split(".")[0][:80]
    return Paper(
        id=f"{slug}-{number}",
        collection=collection,
        position=number,
        external_id=str(number),
        abstract=abstract,
        label=label,
        **extra,  # type: ignore[arg-type]
    )


PAPERS = [
    make_paper(
        1,
        "Sparse Mixture of Experts (MoE) models route tokens to experts. We study MoE routing "
        "collapse and propose balanced routing.",
        urls=("https://github.com/example/moe",),
    ),
    make_paper(
        2,
        "Attacks on retrieval-augmented generation (RAG) poison the retriever. We defend RAG "
        "retrievers with certified filtering.",
        urls=("https://github.com/example/rag", "https://example.org/project"),
    ),
    make_paper(3, "Diffusion models for video generation with temporal attention."),
    make_paper(4, "Scaling laws for reinforcement learning post-training of LLMs."),
    make_paper(
        5,
        "Routing in MoE transformers with expert choice. @everyone <@&123> **bold** ||spoiler||",
        collection="NeurIPS 2025",
        title="Expert Choice Routing",
    ),
    make_paper(6, "Long abstract. " + "Words about attention and routing. " * 400),
]


def excerpt_for(paper: Paper, words: list[str]) -> Excerpt:
    spans: list[Span] = []
    for token in paper.abstract[:300].split(" "):
        match = token.strip(".,()").lower() in words
        spans.append(Span(token, match))
        spans.append(Span(" "))
    return Excerpt(tuple(spans[:-1]))


class FakeMemory:
    """Conversation memory in dicts, like the store's tables."""

    def __init__(self) -> None:
        self.scopes: dict[str, ConversationState] = {}
        self.messages: dict[int, ConversationState] = {}

    async def load(self, scope: str, *, message_id: int | None = None) -> ConversationState | None:
        if message_id is not None:
            return self.messages.get(message_id)
        return self.scopes.get(scope)

    async def save(
        self,
        scope: str,
        user_id: int,
        state: ConversationState,
        *,
        message_id: int | None = None,
    ) -> None:
        if message_id is None:
            self.scopes[scope] = state
        else:
            self.messages[message_id] = state


class FakeLive:
    """The corpus follower: nothing changes underneath a fake engine."""

    def __init__(self) -> None:
        self.following = False

    async def follow(self, interval: float) -> None:
        self.following = True
        await asyncio.Event().wait()


class FakeEngine:
    """Keyword matching over PAPERS; records saved papers and meta like the store would."""

    def __init__(self, papers: list[Paper] | None = None) -> None:
        self.papers = {paper.id: paper for paper in (papers or PAPERS)}
        self.saved: dict[int, list[str]] = {}
        self.meta: dict[str, str] = {}
        self.questions = 0
        self.ingested: list[tuple[str, bytes]] = []
        self.delay = 0.0
        self.fail_with: BaseException | None = None
        self.closed = False
        self.warmed = False
        self._memory = FakeMemory()
        self.live = FakeLive()
        self.watches = FakeWatches()
        self.shortlist = FakeShortlist(self.papers.get)
        self.trending = FakeTrending()
        self.nodes = FakeNodes()
        self.privacy = FakePrivacy(self._saved_ids)
        self.exports = FakeExports(self._saved_ids)

    def _saved_ids(self, user_id: int) -> list[str]:
        return list(self.saved.get(user_id, []))

    async def _maybe_fail(self) -> None:
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail_with is not None:
            raise self.fail_with

    def _rank(self, words: list[str], exclude: str | None = None) -> list[Paper]:
        scored = []
        for paper in self.papers.values():
            if paper.id == exclude:
                continue
            text = paper.abstract.lower()
            score = sum(1 for word in words if word in text)
            if score:
                scored.append((score, paper))
        scored.sort(key=lambda pair: (-pair[0], pair[1].id))
        return [paper for _, paper in scored]

    def _answer(
        self, question: str, ranked: list[Paper], words: list[str], limit: int, offset: int
    ) -> Answer:
        page = ranked[offset : offset + limit]
        hits = tuple(
            Hit(paper=p, score=1.0, rank=offset + i + 1, excerpt=excerpt_for(p, words))
            for i, p in enumerate(page)
        )
        lead = hits[0].excerpt if hits and offset == 0 else None
        return Answer(
            question=question,
            query=ParsedQuery(text=question),
            hits=hits,
            total=len(ranked),
            took_ms=1.5,
            lead=lead,
            lead_paper_id=hits[0].paper.id if lead else None,
            suggestion=None if ranked else "routing",
        )

    async def ask(
        self,
        question: str,
        *,
        limit: int | None = None,
        offset: int = 0,
        collection: str | None = None,
    ) -> Answer:
        await self._maybe_fail()
        words = [w.strip("?.,!").lower() for w in question.split() if len(w) > 2]
        if not words:
            raise QueryError("Ask about a topic, e.g. `MoE routing`.")
        if collection and collection not in {"icml2026", "neurips2025"}:
            raise CollectionNotFound(collection, ["ICML 2026", "NeurIPS 2025"])
        self.questions += 1
        ranked = self._rank(words)
        if collection:
            ranked = [p for p in ranked if p.id.startswith(collection)]
        return self._answer(question, ranked, words, limit or 3, offset)

    async def paper(self, paper_id: str) -> Paper:
        await self._maybe_fail()
        paper = self.papers.get(paper_id.strip().lower())
        if paper is None:
            raise PaperNotFound(paper_id[:100])
        return paper

    async def similar(
        self,
        paper_id: str,
        *,
        limit: int | None = None,
        offset: int = 0,
        collection: str | None = None,
    ) -> Answer:
        paper = await self.paper(paper_id)
        words = [w.lower() for w in paper.abstract.split()[:6] if len(w) > 3]
        ranked = self._rank(words, exclude=paper.id)
        if collection:
            ranked = [p for p in ranked if p.id.startswith(tuple(collection.split(",")))]
        return self._answer(f"papers like {paper.id}", ranked, words, limit or 5, offset)

    async def random_paper(self, collection: str | None = None) -> Paper:
        pool = [p for p in self.papers.values() if not collection or p.id.startswith(collection)]
        if not pool:
            raise CollectionNotFound(collection or "", ["ICML 2026"])
        return random.choice(pool)

    async def collections(self) -> list[CollectionInfo]:
        return [
            CollectionInfo("ICML 2026", "icml2026", 5, 1),
            CollectionInfo("NeurIPS 2025", "neurips2025", 1, 1),
        ]

    async def suggest_papers(self, text: str, limit: int = 25) -> list[tuple[str, str]]:
        wanted = text.lower()
        return [
            (p.id, p.label)
            for p in self.papers.values()
            if wanted in p.id or wanted in p.label.lower()
        ][:limit]

    async def warm_up(self) -> None:
        self.warmed = True

    async def stats(self) -> EngineStats:
        return EngineStats(
            len(self.papers), 2, 1234, 5678, 90_000, 200_000, self.questions, 3.2, 9.9
        )

    async def ingest(
        self,
        paths: Sequence[Path],
        *,
        collection: str | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> IngestReport:
        for path in paths:
            self.ingested.append((str(path), b""))
            if progress is not None:
                progress(f"read {path}")
        return IngestReport(files_read=len(paths), collections=(collection or "Uploads",))

    async def ingest_bytes(
        self, name: str, data: bytes, *, collection: str | None = None
    ) -> IngestReport:
        if b"bad" in data:
            raise ListFormatError(name, 2, "a JSON line must be an object")
        self.ingested.append((name, data))
        return IngestReport(files_read=1, papers_added=2, collections=(collection or "Uploads",))

    async def reload_seeds(self) -> IngestReport:
        return IngestReport(files_read=2, files_skipped=0, papers_added=0, papers_skipped=76)

    async def save_paper(self, user_id: int, paper_id: str) -> tuple[Paper, bool]:
        paper = await self.paper(paper_id)
        saved = self.saved.setdefault(user_id, [])
        if paper.id in saved:
            return paper, False
        saved.append(paper.id)
        return paper, True

    async def unsave_paper(self, user_id: int, paper_id: str) -> bool:
        saved = self.saved.setdefault(user_id, [])
        if paper_id.lower() in saved:
            saved.remove(paper_id.lower())
            return True
        return False

    async def saved_papers(self, user_id: int) -> list[Paper]:
        return [self.papers[i] for i in self.saved.get(user_id, [])]

    async def command_sync_hash(self, scope: str) -> str | None:
        return self.meta.get(scope)

    async def record_command_sync(self, scope: str, payload_hash: str) -> None:
        self.meta[scope] = payload_hash

    @property
    def memory(self) -> ConversationMemory:
        return self._memory

    async def loaded_collections(self) -> list[CollectionInfo]:
        return await self.collections()

    async def explain(self, paper_ids: Sequence[str], question: str) -> list[Excerpt | None]:
        words = [w.strip("?.,!").lower() for w in question.split() if len(w) > 2]
        found: list[Excerpt | None] = []
        for paper_id in paper_ids:
            excerpt = excerpt_for(await self.paper(paper_id), words)
            found.append(excerpt if any(span.match for span in excerpt.spans) else None)
        return found

    async def close(self) -> None:
        self.closed = True
