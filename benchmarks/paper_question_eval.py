"""Questions about one paper, judged end to end: does the answer show a sentence that answers?

    python benchmarks/paper_question_eval.py [--pairs benchmarks/data/paper_questions.jsonl]
        [--database /tmp/paperbot-intent-eval.db] [--data ../shared/data/conference_abstracts]

Uses the database `benchmarks/intent_eval.py` builds (the seeds and the three conference
lists), and builds it the same way when it is missing. For each (paper, question) pair, written
blind by a helper with the answering sentences marked (benchmarks/data/paper_questions.README.md),
a fresh conversation opens the paper by id and then asks the question as typed, through the real
ChatService. A pair is answered when the reply is a question about that paper and one of its
shown sentences is a gold sentence (at least 60 % of the gold sentence's words, so a different
sentence splitter does not matter), or, where the abstract does not say, when the reply says so
and quotes nothing. A code question is answered by the paper's link. Target (issue 24): >= 0.90.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

from config.settings import Settings
from retrieval.conversation.chat import ChatService, Conversation, ReplyKind
from retrieval.engine import Engine

HERE = Path(__file__).parent
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def unwrap_urls(gold: list[str]) -> str:
    """The gold sentences with LaTeX `\\url{...}` unwrapped, so the brace is not read as part
    of the link the answer must show."""
    return re.sub(r"\\url\{([^}]*)\}", r"\1", " ".join(gold))


def covers(shown: str, gold: str) -> bool:
    wanted = words(gold)
    have = set(words(shown))
    return bool(wanted) and sum(word in have for word in wanted) >= 0.6 * len(wanted)


async def judge(
    engine: Engine, pairs: list[dict[str, object]]
) -> list[tuple[dict[str, object], bool, str]]:
    results = []
    first = int(time.time()) * 1000  # a fresh conversation per run, not an earlier run's
    for number, pair in enumerate(pairs):
        service = ChatService(engine, engine.memory, idle_seconds=3600, page_size=3)
        who = Conversation.of(first + number, None)
        await service.handle(str(pair["paper"]), who)
        reply = await service.handle(str(pair["question"]), who)
        shown: list[str] = []
        statement = ""
        if reply.kind is ReplyKind.PAPER_QUESTION and reply.papers:
            note = reply.papers[0]
            if note.paper.id != pair["paper"]:
                results.append((pair, False, f"asked {note.paper.id}"))
                continue
            if note.about is not None:
                shown = [sentence.plain for sentence in note.about.sentences]
                statement = note.about.statement or ""
            if reply.intent.wants_code:
                statement = "Code: " + " ".join(note.paper.urls) if note.paper.urls else "no code"
        else:
            results.append((pair, False, f"reply was {reply.kind.value}"))
            continue
        gold = [str(g) for g in pair["gold_sentences"]]  # type: ignore[attr-defined]
        if pair["not_stated"]:
            right = not shown and bool(statement)
        elif pair["qtype"] == "code":
            right = any(
                url in statement
                for url in re.findall(r"https?://\S+?(?=[.,;)]?(?:\s|$))", unwrap_urls(gold))
            )
            right = right or any(covers(s, g) for s in shown for g in gold)
        else:
            right = any(covers(s, g) for s in shown for g in gold)
        results.append((pair, right, " | ".join(shown)[:200] or statement[:200]))
    return results


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, default=HERE / "data" / "paper_questions.jsonl")
    parser.add_argument("--database", type=Path, default=Path("/tmp/paperbot-intent-eval.db"))
    shared = HERE.parent.parent / "shared" / "data" / "conference_abstracts"
    parser.add_argument(
        "--data",
        type=Path,
        default=shared,
        help="conference lists, ingested into an empty database",
    )
    args = parser.parse_args()
    pairs = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()]
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
    per: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for pair, ok, _ in results:
        per[str(pair["qtype"])] += 1
        right[str(pair["qtype"])] += ok
    for qtype in sorted(per):
        print(f"  {qtype:<12} {right[qtype]:>3}/{per[qtype]:<3}")
    total = sum(right.values()) / len(results)
    print(f"answered: {sum(right.values())}/{len(results)} = {total:.3f}")
    print("\nmissed:")
    for pair, ok, shown in results:
        if not ok:
            print(f"  {pair['paper']} [{pair['qtype']}] {pair['question']!r} -> {shown}")
    print(f"\ntarget answered >= 0.90: {'MET' if total >= 0.90 else 'NOT MET'}")
    return 0 if total >= 0.90 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
