"""Questions about one paper, judged end to end: does the answer show a sentence that answers?

    python benchmarks/paper_question_eval.py [--pairs benchmarks/data/paper_questions.jsonl ...]
        [--database /tmp/paperbot-intent-eval.db] [--data ../shared/data/conference_abstracts]

Uses the database `benchmarks/intent_eval.py` builds (the seeds and the three conference
lists), and builds it the same way when it is missing. For each (paper, question) pair, written
blind by a helper with the answering sentences marked (benchmarks/data/paper_questions.README.md),
a fresh conversation opens the paper by id and then asks the question as typed, through the real
ChatService. A pair is answered when the reply is a question about that paper and one of its
shown sentences is a gold sentence (at least 60 % of the gold sentence's words, so a different
sentence splitter does not matter), or, where the abstract does not say, when the reply says so
and quotes nothing. A code question is answered by the paper's link. Target (issue 24): >= 0.90.

Given several files it prints each file's score, then the pooled one. Besides the score it
prints the mean number of sentences an answer shows (the readability twin: quoting the whole
abstract would answer everything), the slowest reply, and for each miss why it missed:
`routing` (the reply is not an answer about the paper), `type` (the question read as another
type than its label), `said-unsaid` (it says the abstract does not say, but it does), `quoted`
(the abstract does not say, but sentences are shown), `unreachable` (no sentence of this
splitter covers a gold one), `sentence` (the right type, other sentences).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from config.settings import Settings
from retrieval import paper_answers
from retrieval.conversation.chat import ChatService, Conversation, ReplyKind
from retrieval.engine import Engine
from retrieval.excerpts import analyse

HERE = Path(__file__).parent
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def unwrap_urls(gold: list[str]) -> str:
    """The gold sentences with LaTeX `\\url{...}` unwrapped, so the brace is not read as part
    of the link the answer must show."""
    return re.sub(r"\\url\{([^}]*)\}", r"\1", " ".join(gold))


# A link as written in an abstract: with or without its scheme ("github.com/x/y"), inside a
# Markdown link "[GitHub](https://...)" or followed by the sentence's full stop.
_LINK = re.compile(r"(?:https?://|www\.|github\.com/)[^\s()\[\]<>]+", re.IGNORECASE)


def bare_links(text: str) -> set[str]:
    """The links `text` holds, without scheme, "www." or trailing punctuation, lower-cased:
    the shown "Code: https://github.com/a/b" and the gold "[GitHub](https://github.com/a/b)."
    name the same link."""
    links = set()
    for match in _LINK.finditer(text):
        link = re.sub(r"^(?:https?://)?(?:www\.)?", "", match.group().lower())
        links.add(link.rstrip(".,;:/"))
    return links


def covers(shown: str, gold: str) -> bool:
    wanted = words(gold)
    have = set(words(shown))
    return bool(wanted) and sum(word in have for word in wanted) >= 0.6 * len(wanted)


@dataclass(frozen=True)
class Judged:
    """One pair's verdict: answered or not, what was shown, and why it missed."""

    pair: dict[str, object]
    right: bool
    said: str
    shown: int  # sentences quoted
    seconds: float  # the question's reply time
    why: str = ""  # the miss's class (module docstring); empty when answered


async def judge(engine: Engine, pairs: list[dict[str, object]]) -> list[Judged]:
    results = []
    first = int(time.time()) * 1000  # a fresh conversation per run, not an earlier run's
    for number, pair in enumerate(pairs):
        service = ChatService(engine, engine.memory, idle_seconds=3600, page_size=3)
        who = Conversation.of(first + number, None)
        await service.handle(str(pair["paper"]), who)
        began = time.perf_counter()
        reply = await service.handle(str(pair["question"]), who)
        seconds = time.perf_counter() - began
        shown: list[str] = []
        statement = ""
        if reply.kind is ReplyKind.PAPER_QUESTION and reply.papers:
            note = reply.papers[0]
            if note.paper.id != pair["paper"]:
                results.append(Judged(pair, False, f"asked {note.paper.id}", 0, seconds, "routing"))
                continue
            abstract = note.paper.abstract
            if note.about is not None:
                shown = [sentence.plain for sentence in note.about.sentences]
                statement = note.about.statement or ""
            if reply.intent.wants_code:
                statement = "Code: " + " ".join(note.paper.urls) if note.paper.urls else "no code"
        else:
            results.append(
                Judged(pair, False, f"reply was {reply.kind.value}", 0, seconds, "routing")
            )
            continue
        gold = [str(g) for g in pair["gold_sentences"]]  # type: ignore[attr-defined]
        if pair["not_stated"]:
            right = not shown and bool(statement)
        elif pair["qtype"] == "code":
            right = any(link in bare_links(statement) for link in bare_links(unwrap_urls(gold)))
            right = right or any(covers(s, g) for s in shown for g in gold)
        else:
            right = any(covers(s, g) for s in shown for g in gold)
        why = ""
        if not right:
            clean, sentences = analyse(abstract)
            texts = [clean[s.start : s.end] for s in sentences]
            if reply.intent.question_type != pair["qtype"]:
                why = "type"
            elif pair["not_stated"]:
                why = "quoted"
            elif not shown:
                why = "said-unsaid"
            elif not any(covers(t, g) for t in texts for g in gold):
                why = "unreachable"
            else:
                why = "sentence"
        said = " | ".join(shown)[:200] or statement[:200]
        results.append(Judged(pair, right, said, len(shown), seconds, why))
    return results


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pairs", type=Path, nargs="+", default=[HERE / "data" / "paper_questions.jsonl"]
    )
    parser.add_argument("--database", type=Path, default=Path("/tmp/paperbot-intent-eval.db"))
    shared = HERE.parent.parent / "shared" / "data" / "conference_abstracts"
    parser.add_argument(
        "--data",
        type=Path,
        default=shared,
        help="conference lists, ingested into an empty database",
    )
    parser.add_argument(
        "--model",
        type=Path,
        help="answer with these weights instead of retrieval/paper_answers.json (a fold's "
        "model from fit_paper_answers.py --fold-models, for cross-validation end to end)",
    )
    args = parser.parse_args()
    if args.model:
        model = paper_answers.AnswerModel.load(args.model)
        paper_answers.default_model = lambda: model  # type: ignore[assignment]
    pairs = [
        {**json.loads(line), "file": path.name}
        for path in args.pairs
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    settings = Settings(db_path=args.database, _env_file=None)  # type: ignore[call-arg]
    engine = await Engine.open(settings)
    try:
        # The same database intent_eval.py builds: the seeds (ingested on open) and the lists.
        if sum(info.papers for info in await engine.loaded_collections()) < 1000:
            lists = sorted(args.data.glob("*.txt"))
            if not lists:
                print(f"no conference lists in {args.data}: give --data", file=sys.stderr)
                return 2
            print(f"ingesting {len(lists)} lists into {args.database} (once) ...", flush=True)
            await engine.ingest(lists)
        results = await judge(engine, pairs)
    finally:
        await engine.close()
    report(results)
    total = sum(judged.right for judged in results) / len(results)
    return 0 if total >= 0.90 else 1


def report(results: list[Judged]) -> None:
    def score(group: list[Judged]) -> str:
        hits = sum(judged.right for judged in group)
        return f"{hits:>3}/{len(group):<3} = {hits / len(group):.3f}"

    for key in ("qtype", "file"):
        groups: dict[str, list[Judged]] = {}
        for judged in results:
            groups.setdefault(str(judged.pair[key]), []).append(judged)
        if key == "file" and len(groups) == 1:
            continue
        for name in sorted(groups):
            print(f"  {name:<34} {score(groups[name])}")
    total = sum(judged.right for judged in results) / len(results)
    print(f"answered: {sum(judged.right for judged in results)}/{len(results)} = {total:.3f}")
    quoting = [judged.shown for judged in results if judged.shown]
    print(
        f"sentences shown per answer: {sum(quoting) / max(len(quoting), 1):.2f} where any "
        f"({sum(quoting) / len(results):.2f} over all pairs)"
    )
    # The first reply loads the models: p95 says what a user waits, the maximum includes it.
    times = sorted(judged.seconds * 1000 for judged in results)
    p50, p95 = times[len(times) // 2], times[int(0.95 * (len(times) - 1))]
    print(f"reply time: p50 {p50:.1f} ms, p95 {p95:.1f} ms, slowest {times[-1]:.1f} ms")
    print(
        "misses by class: "
        + ", ".join(
            f"{why} {count}"
            for why, count in Counter(j.why for j in results if not j.right).most_common()
        )
    )
    print("\nmissed:")
    for judged in results:
        if not judged.right:
            pair = judged.pair
            print(
                f"  {pair['paper']} [{pair['qtype']}] <{judged.why}> {pair['question']!r}"
                f" -> {judged.said}"
            )
    print(f"\ntarget answered >= 0.90: {'MET' if total >= 0.90 else 'NOT MET'}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
