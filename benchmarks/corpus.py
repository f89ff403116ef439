"""Benchmark corpora and queries, built from the real abstracts in ../shared/data.

Base documents: every paper of conference_abstracts/*.jsonl (title + abstract) and every
SciFact document (title + text): 13,271 real abstracts, shuffled once with a fixed seed.

A corpus of N documents takes the base documents in that order, over and over. Copy r >= 1 gets
the id `<base id>~r<r>` and the marker word `replica<r:03d>` at the end of its abstract, so every
document is distinct (paperbot would otherwise skip a copy as a duplicate) and each copy adds one
term whose document frequency is the base size. Term statistics scale as in a real corpus of
that size: every postings list grows by the number of copies, IDF stays close to the base
corpus's. What replication does not model is vocabulary growth (a real 1M corpus has more rare
terms), which makes the large corpora slightly easier on memory than real ones.

Queries: all 1,109 SciFact claims, 1,000 conference titles (sampled with a fixed seed) and the
natural questions in questions.txt, shuffled together with a fixed seed, so any prefix of the
list is a random sample of all three kinds.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFERENCES = ("icml2024", "iclr2024", "neurips2023")
TITLE_QUERIES = 1000
SEED = 20240601


@dataclass(frozen=True, slots=True)
class Doc:
    id: str
    title: str
    abstract: str

    @property
    def text(self) -> str:
        """What paperbot indexes for a paper with a title (engine._searchable_text)."""
        return f"{self.title}\n{self.abstract}"


@dataclass(frozen=True, slots=True)
class Query:
    kind: str  # scifact | title | question
    text: str


def _jsonl(path: Path) -> Iterator[dict[str, str]]:
    with path.open(encoding="utf-8") as file:
        for line in file:
            if line.strip():
                yield json.loads(line)


def base_documents(data: Path) -> list[Doc]:
    docs = [
        Doc(record["doc_id"], record["title"], record["abstract"])
        for name in CONFERENCES
        for record in _jsonl(data / "conference_abstracts" / f"{name}.jsonl")
    ]
    docs += [
        Doc(f"scifact-{record['_id']}", record["title"], record["text"])
        for record in _jsonl(data / "scifact" / "corpus.jsonl")
        if record["text"].strip()
    ]
    random.Random(SEED).shuffle(docs)
    return docs


def marker(copy: int) -> str:
    return f"replica{copy:03d}"


def replicate(base: list[Doc], size: int) -> Iterator[Doc]:
    """`size` distinct documents: the base, then marked copies of it."""
    for number in range(size):
        copy, position = divmod(number, len(base))
        doc = base[position]
        if copy == 0:
            yield doc
        else:
            yield Doc(f"{doc.id}~r{copy}", doc.title, f"{doc.abstract} {marker(copy)}")


def replicate_tokens(base_tokens: list[list[str]], size: int) -> list[list[str]]:
    """Analyzer output for `replicate(base, size)` without re-analyzing each copy.

    Valid because the marker is a separate trailing word whose only term is itself
    (checked by `check_replica_tokens`). Token strings are shared between copies.
    """
    tokens: list[list[str]] = []
    for number in range(size):
        copy, position = divmod(number, len(base_tokens))
        doc = base_tokens[position]
        tokens.append(doc if copy == 0 else [*doc, marker(copy)])
    return tokens


def check_replica_tokens(base: list[Doc]) -> None:
    from retrieval.text import analyze

    for doc in base[:50]:
        marked = list(replicate([doc], 3))[2]
        assert analyze(marked.text) == [*analyze(doc.text), marker(2)], doc.id


def write_corpus(base: list[Doc], size: int, work: Path) -> Path:
    """JSONL files (one per copy, as people load one list per conference) in a folder."""
    folder = work / f"corpus-{size}"
    done = folder / "COMPLETE"
    if done.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.jsonl"):
        stale.unlink()
    docs = replicate(base, size)
    for part in range(-(-size // len(base))):
        with (folder / f"part-{part:03d}.jsonl").open("w", encoding="utf-8") as file:
            for _, doc in zip(range(len(base)), docs, strict=False):
                record = {"id": doc.id, "title": doc.title, "abstract": doc.abstract}
                file.write(json.dumps(record, ensure_ascii=False) + "\n")
    done.write_text(f"{size}\n")
    return folder


def queries(data: Path) -> list[Query]:
    found = [
        Query("scifact", record["text"]) for record in _jsonl(data / "scifact" / "queries.jsonl")
    ]
    titles = [
        record["title"]
        for name in CONFERENCES
        for record in _jsonl(data / "conference_abstracts" / f"{name}.jsonl")
    ]
    found += [Query("title", title) for title in random.Random(SEED).sample(titles, TITLE_QUERIES)]
    lines = (HERE / "questions.txt").read_text(encoding="utf-8").splitlines()
    found += [
        Query("question", line) for line in lines if line.strip() and not line.startswith("#")
    ]
    random.Random(SEED).shuffle(found)
    return found
