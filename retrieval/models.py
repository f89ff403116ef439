"""Frozen value types that flow from the engine to the shells (bot, command line)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ParsedPaper:
    """One paper as read from a list file or JSONL record, before it is stored."""

    abstract: str
    external_id: str
    line: int
    title: str | None = None
    url: str | None = None
    authors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Paper:
    """A stored paper. `id` is short, stable and typeable, e.g. `icml2026-7`."""

    id: str
    collection: str
    position: int
    external_id: str
    abstract: str
    label: str
    title: str | None = None
    urls: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    content_hash: str = ""
    also_in: tuple[str, ...] = ()

    @property
    def display_title(self) -> str:
        return self.title or self.label


@dataclass(frozen=True, slots=True)
class Span:
    """A run of excerpt text; `match` marks words that matched the question."""

    text: str
    match: bool = False


@dataclass(frozen=True, slots=True)
class Excerpt:
    """Sentences chosen from an abstract, as spans. Ellipses are part of the text."""

    spans: tuple[Span, ...]

    @property
    def plain(self) -> str:
        return "".join(span.text for span in self.spans)

    @property
    def matched_words(self) -> tuple[str, ...]:
        return tuple(span.text for span in self.spans if span.match)


@dataclass(frozen=True, slots=True)
class Hit:
    paper: Paper
    score: float
    rank: int
    excerpt: Excerpt


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """A question split into free text and the operators users expect."""

    text: str
    phrases: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    collections: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Answer:
    """Everything a shell needs to render a reply to one question."""

    question: str
    query: ParsedQuery
    hits: tuple[Hit, ...]
    total: int
    took_ms: float
    lead: Excerpt | None = None
    lead_paper_id: str | None = None
    suggestion: str | None = None
    notice: str | None = None
    expansions: tuple[str, ...] = field(default=())
    # How much of the question the papers cover: `total_all` of the `total` hold every main word
    # (None when not counted: phrases, exact mode, similar); `unmatched` are words as typed that
    # no paper mentions; `corrections` pair such a word with the closest word papers use;
    # `absent_here` are words papers use, but none in the collections searched ("mamba" in
    # ICLR 2024).
    total_all: int | None = None
    unmatched: tuple[str, ...] = field(default=())
    corrections: tuple[tuple[str, str], ...] = field(default=())
    absent_here: tuple[str, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not self.hits


@dataclass(frozen=True, slots=True)
class CollectionInfo:
    name: str
    slug: str
    papers: int
    files: int


@dataclass(frozen=True, slots=True)
class IngestReport:
    """What one ingest did, per file. `errors` are one-line messages with file and line."""

    files_read: int = 0
    files_skipped: int = 0
    papers_added: int = 0
    papers_skipped: int = 0
    collections: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    def merge(self, other: IngestReport) -> IngestReport:
        return IngestReport(
            files_read=self.files_read + other.files_read,
            files_skipped=self.files_skipped + other.files_skipped,
            papers_added=self.papers_added + other.papers_added,
            papers_skipped=self.papers_skipped + other.papers_skipped,
            collections=tuple(dict.fromkeys(self.collections + other.collections)),
            notes=self.notes + other.notes,
            errors=self.errors + other.errors,
        )


@dataclass(frozen=True, slots=True)
class EngineStats:
    papers: int
    collections: int
    vocabulary: int
    postings: int
    index_bytes: int
    database_bytes: int
    questions_answered: int
    latency_p50_ms: float | None
    latency_p95_ms: float | None
