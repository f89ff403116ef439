"""The `paperbot` command line: parse arguments, call the engine, print. No logic of its own."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from bot import console
from config.settings import Settings, SettingsError, env_file_warning, load_settings
from retrieval.engine import Engine
from retrieval.errors import PaperbotError

NO_TOKEN = (
    "paperbot: no Discord token. Set PAPERBOT_DISCORD_TOKEN (in the environment or .env) "
    "to run the bot; `paperbot chat` works without one."
)
CHAT_HELP = """Type a question, or:
  paper ID        the full abstract of a paper (e.g. paper icml2026-3)
  similar ID      papers like that one
  more            the next results for the last question
  collections     what is loaded
  help, quit
Query syntax: "exact phrase"  -excluded  in:collection"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paperbot", description="Ask questions about paper abstracts."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("start", help="the bot if a token is set, else the chat console")
    commands.add_parser("chat", help="interactive console over the loaded papers")
    ask = commands.add_parser("ask", help="answer one question")
    ask.add_argument("question", nargs="+")
    ask.add_argument("--json", action="store_true", help="machine-readable output")
    search = commands.add_parser("search", help="ranked papers for a query")
    search.add_argument("query", nargs="*")
    search.add_argument("--top-k", type=int, default=None, metavar="N")
    search.add_argument("--in", dest="collection", metavar="COLLECTION")
    search.add_argument("--json", action="store_true", help="machine-readable output")
    search.add_argument(
        "--batch", type=Path, metavar="FILE", help="query_id<TAB>query lines or BEIR queries.jsonl"
    )
    search.add_argument(
        "--ids-only", action="store_true", help="with --batch: ranked ids and scores, no excerpts"
    )
    for name, text in (("paper", "show one paper"), ("similar", "papers like one paper")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("id")
        sub.add_argument("--json", action="store_true", help="machine-readable output")
        if name == "similar":
            sub.add_argument("--top-k", type=int, default=None, metavar="N")
    ingest = commands.add_parser("ingest", help="add paper-list files or folders")
    ingest.add_argument("paths", nargs="+", type=Path)
    ingest.add_argument("--collection", help="collection name for every file")
    commands.add_parser("collections", help="list collections")
    commands.add_parser("stats", help="corpus and index statistics")
    commands.add_parser("run", help="run the Discord bot")
    sync = commands.add_parser("sync", help="sync slash commands to Discord")
    sync.add_argument("--guild", type=int, help="a guild id (instant) instead of global")
    evaluate = commands.add_parser("eval", help="measure ranking quality (see docs/evaluation.md)")
    modes = evaluate.add_subparsers(dest="eval_mode", metavar="MODE", required=True)
    beir = modes.add_parser("beir", help="a BEIR folder: corpus.jsonl, queries.jsonl, qrels/")
    beir.add_argument("directory", type=Path)
    beir.add_argument("--split", default="test", help="qrels split(s), e.g. test or train,test")
    known = modes.add_parser("known-item", help="JSONL lists with titles: title -> its abstract")
    known.add_argument("files", nargs="+", type=Path)
    for sub in (beir, known):
        sub.add_argument("--ranking", choices=["exact", "enhanced"])
        sub.add_argument("--k1", type=float)
        sub.add_argument("--b", type=float)
        sub.add_argument("--json", action="store_true", help="machine-readable output")
        sub.add_argument("--per-query", action="store_true", help="with --json: every query")
    return parser


async def _with_engine(settings: Settings, work: Callable[[Engine], Awaitable[int]]) -> int:
    engine = await Engine.open(settings)
    try:
        return await work(engine)
    finally:
        await engine.close()


def _print_answer(answer: Any, as_json: bool) -> None:
    if as_json:
        print(console.dumps(console.answer_json(answer)))
    else:
        print(console.render_answer(answer, colour=sys.stdout.isatty()))


def _batch_queries(path: Path) -> Iterator[tuple[str, str]]:
    with path.open(encoding="utf-8-sig") as file:
        for number, line in enumerate(file, start=1):
            line = line.strip()
            if not line:
                continue
            if line.startswith("{"):
                try:
                    record = json.loads(line)
                    yield str(record["_id"]), str(record["text"])
                except (json.JSONDecodeError, KeyError, TypeError):
                    raise PaperbotError(
                        f"{path}:{number}: expected a JSON object with _id and text"
                    ) from None
            elif "\t" in line:
                query_id, query = line.split("\t", 1)
                yield query_id, query
            else:
                raise PaperbotError(f"{path}:{number}: expected query_id<TAB>query")


async def _search(engine: Engine, args: argparse.Namespace) -> int:
    top_k = args.top_k or engine.settings.search_results
    if args.ids_only and (not args.batch or args.collection):
        raise PaperbotError("--ids-only works with --batch FILE and without --in")
    if args.batch and args.ids_only:
        # Ranking alone (no excerpts), so ranking speed can be timed from outside the process.
        for query_id, query in _batch_queries(args.batch):
            try:
                ranked = await engine.rank_text(query, depth=top_k)
            except PaperbotError:
                ranked = []
            hits = [{"id": paper_id, "score": score} for paper_id, score in ranked]
            print(console.dumps({"query_id": query_id, "hits": hits}))
        return 0
    if args.batch:
        for query_id, query in _batch_queries(args.batch):
            try:
                answer = await engine.ask(query, limit=top_k, collection=args.collection)
                hits = [
                    {"id": h.paper.id, "external_id": h.paper.external_id, "score": h.score}
                    for h in answer.hits
                ]
            except PaperbotError:
                hits = []
            print(console.dumps({"query_id": query_id, "hits": hits}))
        return 0
    query = " ".join(args.query)
    if not query.strip():
        raise PaperbotError('search needs a query, e.g. paperbot search "moe routing"')
    answer = await engine.ask(query, limit=top_k, collection=args.collection)
    _print_answer(answer, args.json)
    return 0


async def _ingest(engine: Engine, args: argparse.Namespace) -> int:
    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    report = await engine.ingest(args.paths, collection=args.collection, progress=progress)
    for note in report.notes:
        print(f"note: {note}")
    for error in report.errors:
        print(f"error: {error}", file=sys.stderr)
    print(
        f"{report.papers_added:,} papers added, {report.papers_skipped:,} already known; "
        f"{report.files_read} files read, {report.files_skipped} already ingested, "
        f"{len(report.errors)} rejected"
    )
    return 1 if report.errors else 0


async def _chat(engine: Engine) -> int:
    papers = sum(info.papers for info in await engine.collections())
    print(f"paperbot console: {papers:,} papers loaded. Type a question, `help`, or `quit`.")
    colour = sys.stdout.isatty()
    last: tuple[str, int] | None = None
    while True:
        try:
            line = (await asyncio.to_thread(input, "paperbot> ")).strip()
        except EOFError:
            print()
            return 0
        if not line:
            continue
        word, _, rest = line.partition(" ")
        try:
            if line in {"quit", "exit", ":q"}:
                return 0
            if line == "help":
                print(CHAT_HELP)
            elif line == "collections":
                print(console.render_collections(await engine.collections()))
            elif word == "paper" and rest:
                print(console.render_paper(await engine.paper(rest)))
            elif word == "similar" and rest:
                print(console.render_answer(await engine.similar(rest), colour))
            elif line == "more" and last:
                last = (last[0], last[1] + engine.settings.answer_results)
                answer = await engine.ask(last[0], offset=last[1])
                print(console.render_answer(answer, colour) if answer.hits else "No more results.")
            else:
                last = (line, 0)
                print(console.render_answer(await engine.ask(line), colour))
        except PaperbotError as error:
            print(error)
        print()


async def _run_bot(settings: Settings) -> int:
    from bot.runner import run_bot

    await run_bot(settings)
    return 0


async def _sync(settings: Settings, guild: int | None) -> int:
    from bot.runner import sync_commands

    print(await sync_commands(settings, guild))
    return 0


async def _eval(settings: Settings, args: argparse.Namespace) -> int:
    from retrieval import evaluation

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    settings = evaluation.with_ranking(settings, args.ranking, args.k1, args.b)
    if args.eval_mode == "beir":
        splits = [split.strip() for split in args.split.split(",") if split.strip()]
        reports = await evaluation.evaluate_beir(
            args.directory, settings, splits=splits, progress=progress
        )
    else:
        reports = [
            await evaluation.evaluate_known_item(path, settings, progress=progress)
            for path in args.files
        ]
    if args.json:
        print(console.dumps(evaluation.reports_json(reports, per_query=args.per_query)))
    else:
        print(evaluation.format_reports(reports))
    return 0


async def _dispatch(args: argparse.Namespace, settings: Settings) -> int:
    command = args.command or "start"
    if command == "start":
        command = "run" if settings.discord_token else "chat"
    if command in {"run", "sync"} and not settings.discord_token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    if command == "run":
        return await _run_bot(settings)
    if command == "sync":
        return await _sync(settings, args.guild)
    if command == "eval":
        return await _eval(settings, args)

    async def work(engine: Engine) -> int:
        if command == "chat":
            return await _chat(engine)
        if command == "ask":
            _print_answer(await engine.ask(" ".join(args.question)), args.json)
        elif command == "search":
            return await _search(engine, args)
        elif command == "paper":
            paper = await engine.paper(args.id)
            print(
                console.dumps(console.paper_json(paper))
                if args.json
                else console.render_paper(paper)
            )
        elif command == "similar":
            _print_answer(await engine.similar(args.id, limit=args.top_k), args.json)
        elif command == "ingest":
            return await _ingest(engine, args)
        elif command == "collections":
            print(console.render_collections(await engine.collections()))
        elif command == "stats":
            print(console.render_stats(await engine.stats()))
        return 0

    return await _with_engine(settings, work)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    warning = env_file_warning()
    if warning:
        print(f"paperbot: {warning}", file=sys.stderr)
    try:
        settings = load_settings()
    except SettingsError as error:
        print(f"paperbot: {error}", file=sys.stderr)
        return 2
    if args.command not in {"run", "sync", "start", None}:
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return asyncio.run(_dispatch(args, settings))
    except PaperbotError as error:
        print(f"paperbot: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
