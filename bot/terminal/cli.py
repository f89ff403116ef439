"""The `paperbot` command line: parse arguments, call the engine, print. No logic of its own."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot import wording
from bot.logs import redactor
from bot.terminal import console
from bot.terminal.chat_console import one_reply, run_chat
from bot.wording import plural
from config.settings import Settings, SettingsError, env_file_warning, load_settings
from retrieval.answering import corrected_question
from retrieval.conversation.intents import parse_message, search_in_words
from retrieval.conversation.model import IdRef, IntentKind
from retrieval.engine import Engine
from retrieval.errors import PaperbotError
from retrieval.ids import find_paper_keys
from retrieval.query import parse_query
from retrieval.query_files import read_query_file
from retrieval.watches.service import CONSOLE_USER

NO_TOKEN = (
    "paperbot: no Discord token. Set PAPERBOT_DISCORD_TOKEN (in the environment or .env) "
    "to run the bot; `paperbot chat` works without one."
)

# --top-k bounds: at least one result; at most what a ranking can keep (PAPERBOT_MAX_RESULTS's
# own ceiling), so `--batch` evaluations can still ask 100 or 1000 deep.
TOP_K_MAX = 1000
TOP_K_HELP = f"how many results, 1 to {TOP_K_MAX}"
COLLECTION_HELP = 'a collection\'s name or slug, e.g. "ICML 2026", icml2026 (see `collections`)'


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paperbot", description="Ask questions about paper abstracts."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("start", help="the bot if a token is set, else the chat console")
    commands.add_parser("chat", help="interactive console over the loaded papers")
    ask = commands.add_parser("ask", help="answer one question")
    ask.add_argument("question", nargs="+", help="the question, in plain words")
    ask.add_argument("--json", action="store_true", help="machine-readable output")
    search = commands.add_parser("search", help="ranked papers for a query")
    search.add_argument("query", nargs="*", help='words, "exact phrase", -excluded, in:collection')
    search.add_argument("--top-k", type=int, default=None, metavar="N", help=TOP_K_HELP)
    search.add_argument(
        "--in",
        dest="collection",
        metavar="COLLECTION",
        help=COLLECTION_HELP,
    )
    search.add_argument("--json", action="store_true", help="machine-readable output")
    search.add_argument(
        "--batch", type=Path, metavar="FILE", help="query_id<TAB>query lines or BEIR queries.jsonl"
    )
    search.add_argument(
        "--ids-only", action="store_true", help="with --batch: ranked ids and scores, no excerpts"
    )
    for name, text in (("paper", "show one paper"), ("similar", "papers like one paper")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("id", nargs="?", help="a paper id, e.g. icml2026-7")
        sub.add_argument("--json", action="store_true", help="machine-readable output")
        if name == "similar":
            sub.add_argument("--top-k", type=int, default=None, metavar="N", help=TOP_K_HELP)
    ingest = commands.add_parser("ingest", help="add paper-list files or folders")
    ingest.add_argument(
        "paths", nargs="+", type=Path, help="list files (.txt, .jsonl) or folders of them"
    )
    ingest.add_argument("--collection", help="collection name for every file")
    commands.add_parser("collections", help="list collections")
    commands.add_parser("stats", help="corpus and index statistics")
    commands.add_parser("status", help="running bot processes and their last heartbeat")
    run = commands.add_parser("run", help="run the Discord bot")
    run.add_argument(
        "--shard-count", metavar="N", help="shards in the deployment (PAPERBOT_SHARD_COUNT)"
    )
    run.add_argument(
        "--shard-ids", metavar="IDS", help="shards this process runs, e.g. 0-3 (PAPERBOT_SHARD_IDS)"
    )
    move = commands.add_parser("migrate-store", help="copy the SQLite database into PostgreSQL")
    move.add_argument(
        "--from", dest="source", type=Path, help="the SQLite file (default: PAPERBOT_DB_PATH)"
    )
    move.add_argument(
        "--to", dest="target", help="the PostgreSQL URL (default: PAPERBOT_DATABASE_URL)"
    )
    sync = commands.add_parser("sync", help="sync slash commands to Discord")
    sync.add_argument("--guild", type=int, help="a guild id (instant) instead of global")
    _add_export_parser(commands)
    _add_watch_parser(commands)
    evaluate = commands.add_parser("eval", help="measure ranking quality (see docs/evaluation.md)")
    modes = evaluate.add_subparsers(dest="eval_mode", metavar="MODE", required=True)
    beir = modes.add_parser("beir", help="a BEIR folder: corpus.jsonl, queries.jsonl, qrels/")
    beir.add_argument("directory", type=Path, help="the BEIR data set's folder")
    beir.add_argument("--split", default="test", help="qrels split(s), e.g. test or train,test")
    known = modes.add_parser("known-item", help="JSONL lists with titles: title -> its abstract")
    known.add_argument("files", nargs="+", type=Path, help="JSONL lists with titles")
    labels = modes.add_parser("labels", help="JSONL lists with titles: labels vs real titles")
    labels.add_argument("files", nargs="+", type=Path, help="JSONL lists with titles")
    labels.add_argument("--other", type=Path, help="TSV doc_id<TAB>label of another labeler")
    labels.add_argument("--sample", type=int, help="a blind reader sheet of N random papers")
    labels.add_argument("--seed", type=int, default=0, help="random seed for --sample/--pairs")
    labels.add_argument("--key", type=Path, help="with --sample: where to write which is which")
    labels.add_argument("--pairs", type=int, default=0, help="with --other: N random pairs")
    for sub in (beir, known):
        sub.add_argument(
            "--ranking",
            choices=["exact", "enhanced"],
            help="exact: plain BM25, as rank-bm25; enhanced: what users get "
            "(default: PAPERBOT_RANKING, enhanced)",
        )
        sub.add_argument("--k1", type=float, help="BM25 k1 (default: PAPERBOT_BM25_K1, 1.5)")
        sub.add_argument("--b", type=float, help="BM25 b (default: PAPERBOT_BM25_B, 0.75)")
        sub.add_argument("--json", action="store_true", help="machine-readable output")
        sub.add_argument("--per-query", action="store_true", help="with --json: every query")
    return parser


def _add_export_parser(commands: Any) -> None:
    export = commands.add_parser("export", help="a reading list or the papers as a file")
    kinds = export.add_subparsers(dest="export_kind", metavar="WHAT", required=True)
    saved = kinds.add_parser("saved", help="one user's reading list")
    saved.add_argument(
        "user_id", type=int, metavar="USER_ID", help="the Discord user id of who saved them"
    )
    saved.add_argument(
        "--format",
        choices=["bibtex", "csv", "md", "txt"],
        default="bibtex",
        help="file format (default: %(default)s)",
    )
    papers = kinds.add_parser("papers", help="every paper, or one collection's")
    papers.add_argument(
        "--collection", metavar="C", help=f"only this collection's papers; {COLLECTION_HELP}"
    )
    papers.add_argument(
        "--format",
        choices=["jsonl", "csv", "md", "txt", "bibtex"],
        default="jsonl",
        help="file format (default: %(default)s)",
    )
    for sub in (saved, papers):
        sub.add_argument(
            "--output", "-o", type=Path, metavar="FILE", help="write to FILE (default: stdout)"
        )


async def _export(engine: Engine, args: argparse.Namespace) -> int:
    if args.export_kind == "saved":
        _name, data, count = await engine.exports.saved(args.user_id, args.format)
    else:
        _name, data, count = await engine.exports.papers(args.collection, args.format)
    if not count:
        # An empty file with exit 0 read as a successful export of an empty list.
        if args.export_kind == "saved":
            raise PaperbotError(
                f"user {args.user_id} has no saved papers; nothing exported. USER_ID is the "
                "Discord user id (Developer Mode: Copy User ID) of someone who saved papers "
                "with /save."
            )
        raise PaperbotError("no papers to export; add some with paperbot ingest PATH")
    if args.output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        try:
            args.output.write_bytes(data)
        except OSError as error:
            raise PaperbotError(f"cannot write {args.output}: {error.strerror}") from error
    print(f"{count} paper(s) exported ({args.format}).", file=sys.stderr)
    return 0


def _add_watch_parser(commands: Any) -> None:
    watch = commands.add_parser("watch", help="watches: announce new papers matching a query")
    actions = watch.add_subparsers(dest="watch_action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="watch a query (printed after each `paperbot ingest`)")
    add.add_argument("query", nargs="+", help="a search query, as for `paperbot search`")
    actions.add_parser("list", help="your watches")
    remove = actions.add_parser("remove", help="stop a watch")
    remove.add_argument("id", type=int, help="the watch's number (`paperbot watch list`)")


def _when(stamp: str | None) -> str | None:
    """'2026-12-03T15:08:45.355Z' as people read it: '2026-12-03 15:08 UTC'."""
    if not stamp:
        return None
    return f"{stamp[:16].replace('T', ' ')} UTC" if stamp.endswith("Z") else stamp


async def _watch(engine: Engine, args: argparse.Namespace) -> int:
    if args.watch_action == "add":
        row = await engine.watches.add(CONSOLE_USER, " ".join(args.query))
        print(f"watch {row.id}: {row.query} (new matches print after `paperbot ingest`)")
    elif args.watch_action == "list":
        rows = await engine.watches.of(CONSOLE_USER)
        for row in rows:
            fired = _when(row.last_fired_at)
            print(
                f"{row.id:>4}  {row.query}  ({'last fired ' + fired if fired else 'not fired yet'})"
            )
        if not rows:
            print('no watches; add one with paperbot watch add "a query"')
    elif not await engine.watches.remove(CONSOLE_USER, args.id):
        raise PaperbotError(f"no watch {args.id}; see paperbot watch list")
    else:
        print(f"watch {args.id} removed")
    return 0


async def _print_console_digests(engine: Engine) -> None:
    """The local user's digests from this ingest (claimed, so printed once)."""
    for digest in await engine.watches.pending():
        if digest.user_id != CONSOLE_USER or not await engine.watches.claim(digest, "console"):
            continue
        print(f"watch {digest.watch_id} ({digest.query}): new matching papers")
        for paper in digest.papers:
            print(f"  {paper.paper_id}  {paper.label}")
            if paper.sentence:
                print(f"      {paper.sentence}")
        if digest.more:
            print(f'  and {digest.more} more: paperbot search "{digest.query}"')
        await engine.watches.delivered(digest)


async def _with_engine(
    settings: Settings, work: Callable[[Engine], Awaitable[int]], *, warm: bool = True
) -> int:
    engine = await Engine.open(settings, warm=warm)
    try:
        return await work(engine)
    finally:
        await engine.close()


def _print_answer(answer: Any, as_json: bool) -> None:
    if as_json:
        print(console.dumps(console.answer_json(answer)))
    else:
        print(console.render_answer(answer, colour=sys.stdout.isatty()))


async def _ask(engine: Engine, question: str, as_json: bool) -> int:
    """One question read as chat reads it: "which ICML 2026 papers ..." searches ICML 2026,
    "what is the main result of icml2024-155" asks that paper, "compare icml2026-13 and
    icml2026-25" compares them and "papers like icml2026-6" lists papers like it."""
    collections = await engine.loaded_collections()
    slugs = frozenset(info.slug for info in collections)
    if not as_json and find_paper_keys(question, slugs):
        # Only a question naming an id is read by chat's classifier (loaded once per run).
        about = parse_message(question, collections)
        named = all(isinstance(ref, IdRef) for ref in about.refs)
        by_id = (
            IntentKind.PAPER,  # "icml24-12": the paper, as chat opens it
            IntentKind.QUESTION_ABOUT_PAPER,
            IntentKind.COMPARE,
            IntentKind.SIMILAR,
        )
        if about.kind in by_id and about.refs and named:
            shown, answered = await one_reply(engine, question)
            print(shown)
            return 0 if answered else 1  # "does icml2026-999 have code?": a problem
    searched = search_in_words(question, collections)
    if searched.unknown_collection:
        note = wording.unknown_collection(searched.unknown_collection)
        print(note, file=sys.stderr if as_json else sys.stdout)
    asked = searched.query or question
    answer = await engine.ask(asked, collection=searched.collection)
    fixed = corrected_question(asked, answer.corrections) if answer.hits else asked
    if fixed != asked:
        # As chat does: no paper uses a typed word, so the corrected question is answered.
        again = await engine.ask(fixed, collection=searched.collection)
        if again.hits:
            line = wording.corrected_line(answer.corrections, lambda word: f"“{word}”")
            print(line, file=sys.stderr if as_json else sys.stdout)
            answer = again
    _print_answer(answer, as_json)
    return 0


async def _search(engine: Engine, args: argparse.Namespace) -> int:
    top_k = args.top_k or engine.settings.search_results
    if args.ids_only and (not args.batch or args.collection):
        raise PaperbotError("--ids-only works with --batch FILE and without --in")
    if args.batch and args.query:
        # The file's queries are the questions; a typed one would be dropped without a word.
        raise PaperbotError(
            f"search takes a query or --batch FILE, not both (got “{' '.join(args.query)}”)"
        )
    # The whole file is read first: a bad line stops the run before any result is printed,
    # rather than leaving a partial result file that looks complete.
    queries = list(read_query_file(args.batch)) if args.batch else []
    if args.batch and args.ids_only:
        # Ranking alone (no excerpts), so ranking speed can be timed from outside the process.
        for query_id, query in queries:
            try:
                ranked = await engine.rank_text(query, depth=top_k)
            except PaperbotError:
                ranked = []
            hits = [{"id": paper_id, "score": score} for paper_id, score in ranked]
            print(console.dumps({"query_id": query_id, "hits": hits}))
        return 0
    if args.batch:
        for query_id, query in queries:
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
        f"{plural(report.papers_added, 'paper')} added, {report.papers_skipped:,} already known; "
        f"{plural(report.files_read, 'file')} read, {report.files_skipped:,} already ingested, "
        f"{len(report.errors):,} rejected"
    )
    await _print_console_digests(engine)
    if not (report.errors or report.files_read or report.files_skipped):
        # A folder holding no list is almost always the wrong folder: say so, and fail.
        named = ", ".join(str(path) for path in args.paths)
        print(
            f"paperbot: no paper list (.txt or .jsonl) found in {named}; "
            "name a list file or a folder that holds some",
            file=sys.stderr,
        )
        return 1
    return 1 if report.errors else 0


async def _run_bot(settings: Settings) -> int:
    from bot.discord_shell.runner import run_bot

    await run_bot(settings)
    return 0


async def _sync(settings: Settings, guild: int | None) -> int:
    from bot.discord_shell.runner import sync_commands

    print(await sync_commands(settings, guild))
    return 0


async def _eval(settings: Settings, args: argparse.Namespace) -> int:
    from retrieval import evaluation

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    if args.eval_mode == "labels":
        return _eval_labels(args)
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


def _eval_labels(args: argparse.Namespace) -> int:
    from retrieval import label_eval
    from retrieval.lists import read_paper_file

    other: dict[str, str] = {}
    if args.other:
        try:
            other = label_eval.read_label_tsv(args.other)
        except (OSError, ValueError) as error:
            print(f"--other {args.other}: {error}", file=sys.stderr)
            return 2
    if args.sample is not None and not (args.other and args.key and len(args.files) == 1):
        print("--sample needs --other TSV, --key PATH and one list", file=sys.stderr)
        return 2
    reports = []
    for path in args.files:
        papers = read_paper_file(path).papers
        if args.sample is not None:
            sheet, key = label_eval.reader_sheet(papers, other, args.sample, args.seed)
            args.key.write_text(key, encoding="utf-8")
            print(sheet)
            return 0
        pairs = [(paper.abstract, paper.title) for paper in papers if paper.title]
        if not pairs:
            print(f"{path}: no titles; eval labels needs JSONL lists with titles", file=sys.stderr)
            return 2
        reports.append(label_eval.evaluate_labels(path.name, pairs))
        if other:
            by_abstract = {p.abstract: other.get(p.external_id, "") for p in papers}
            reports.append(
                label_eval.evaluate_labels(f"{path.name} (other)", pairs, by_abstract.__getitem__)
            )
    print(label_eval.format_label_reports(reports, examples=not other))
    if other and args.pairs:
        print(label_eval.format_pairs(papers, other, args.pairs, args.seed))
    return 0


async def _migrate_store(settings: Settings, args: argparse.Namespace) -> int:
    from retrieval.store_migration import copy_to_postgres

    url = args.target or (settings.database_url and settings.database_url.get_secret_value())
    if not url:
        raise PaperbotError("migrate-store needs --to postgresql://… or PAPERBOT_DATABASE_URL")
    source = args.source or settings.db_path
    print(await copy_to_postgres(source, url))
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
    if command == "migrate-store":
        return await _migrate_store(settings, args)

    if command in {"paper", "similar"} and not (args.id or "").strip():
        raise PaperbotError(f"{command} needs a paper id, e.g. paperbot {command} icml2026-7")

    async def work(engine: Engine) -> int:
        if command == "chat":
            return await run_chat(engine)
        if command == "ask":
            return await _ask(engine, " ".join(args.question), args.json)
        if command == "search":
            return await _search(engine, args)
        if command == "paper":
            paper = await engine.paper(args.id)
            print(
                console.dumps(console.paper_json(paper))
                if args.json
                else console.render_paper(paper)
            )
        elif command == "similar":
            similar = await engine.similar(args.id, limit=args.top_k)
            if not args.json:
                print(wording.similar_heading(similar))  # whose papers these are, as chat says
            _print_answer(similar, args.json)
        elif command == "ingest":
            return await _ingest(engine, args)
        elif command == "export":
            return await _export(engine, args)
        elif command == "watch":
            return await _watch(engine, args)
        elif command == "collections":
            print(console.render_collections(await engine.collections()))
        elif command == "stats":
            print(console.render_stats(await engine.stats()))
        elif command == "status":
            nodes = await engine.nodes.list()
            print(console.render_nodes(nodes, time.time(), settings.heartbeat_seconds))
        return 0

    # Only the console lives long enough for background work: a one-shot command (`ask`,
    # `search`, `ingest` ...) that started completing the sentence table would compete with its
    # own answer and then throw the half-built table away at exit, every run. (`ingest` still
    # completes and saves the table, once, for the processes that serve the corpus.)
    return await _with_engine(settings, work, warm=command in ("chat", "start"))


# `paperbot run` flags that override a setting: (argument, setting field, flag as typed).
RUN_FLAGS = (
    ("shard_count", "shard_count", "--shard-count"),
    ("shard_ids", "shard_ids", "--shard-ids"),
)


def settings_for(args: argparse.Namespace) -> Settings:
    """The settings, with the command's flags over the environment; a bad flag is one
    SettingsError line naming the flag."""
    overrides: dict[str, Any] = {}
    labels: dict[str, str] = {}
    for argument, field, flag in RUN_FLAGS:
        value = getattr(args, argument, None)
        if value is not None:
            overrides[field] = value
            labels[field] = flag
    return load_settings(labels, **overrides)


def _innermost(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The (sub-)command parser `args` went through: `search`, `eval beir`, ..."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            if isinstance(chosen, argparse.ArgumentParser):
                return _innermost(chosen, args)
    return parser


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """The arguments, or exit 2 with the usage of the command the mistake is in.

    argparse leaves a sub-command's unknown options to the top-level parser, which printed the
    top-level usage for `search --topk 3`; the sub-command's usage (and a close option name)
    says what to type instead.
    """
    parser = _parser()
    words = sys.argv[1:] if argv is None else argv
    commands = [
        name
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    ]
    if words and not words[0].startswith("-") and commands and words[0] not in commands:
        close = difflib.get_close_matches(words[0], commands, n=1)
        hint = f" (did you mean `{close[0]}`?)" if close else ""
        parser.error(f"no command `{words[0]}`{hint}; the commands: {', '.join(commands)}")
    args, extras = parser.parse_known_args(argv)
    text_field = next((name for name in ("query", "question") if name in vars(args)), None)
    excludes = any(_is_exclusion(extra) for extra in extras)
    if text_field and excludes and not any(extra.startswith("--") for extra in extras):
        # `search attacks -watermark`: query syntax's exclusion, not an option of paperbot's
        # (argparse also leaves the words after it over: `ask rag -survey attacks`).
        setattr(args, text_field, [*(getattr(args, text_field) or []), *extras])
        extras = []
    if extras:
        command = _innermost(parser, args)
        known = [name for action in command._actions for name in action.option_strings]
        close = difflib.get_close_matches(extras[0], known, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        command.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
    top_k = getattr(args, "top_k", None)
    if top_k is not None and not 1 <= top_k <= TOP_K_MAX:
        print(
            f"paperbot: --top-k must be a number from 1 to {TOP_K_MAX} (got {top_k})",
            file=sys.stderr,
        )
        raise SystemExit(2)
    return args


def _is_exclusion(word: str) -> bool:
    """ "-watermark" among a query's words: an excluded word by the query syntax's own rule
    (retrieval/query.py), never an option of paperbot's."""
    parsed = parse_query(word)
    return bool(parsed.excluded) and not parsed.text.strip()


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    warning = env_file_warning()
    if warning:
        print(f"paperbot: {warning}", file=sys.stderr)
    try:
        settings = settings_for(args)
    except SettingsError as error:
        print(f"paperbot: {console.plain_message(str(error))}", file=sys.stderr)
        return 2
    bot_logs = args.command in {"run", "sync"} or (
        args.command in {"start", None} and settings.discord_token is not None
    )
    if not bot_logs:  # the bot configures its own logging (bot/logs.py); the rest warns here
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        for handler in logging.getLogger().handlers:
            handler.addFilter(redactor(settings))
    try:
        return asyncio.run(_dispatch(args, settings))
    except PaperbotError as error:
        if getattr(args, "json", False):
            # --json callers parse stdout: the error is JSON too (and the exit is non-zero).
            print(console.dumps({"error": str(error)}))
        else:
            print(f"paperbot: {console.plain_message(str(error))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into `head` and the like: the reader left; stop quietly.
        _silence_stdout()
        return 141


def _silence_stdout() -> None:
    """Point stdout at /dev/null so Python's final flush does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
