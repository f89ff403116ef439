"""`paperbot chat`: the terminal conversation, through the same chat service as Discord.

The console is one conversation (the local user, no channel), so follow-ups work as in a DM:
"the second one", "more", "similar 2", "compare 1 3", "does it have code?". Each run is a new
conversation: "the second one" never points into a list shown by an earlier run, which the
user may not remember (and which no longer appears on the screen).
"""

from __future__ import annotations

import signal
import sys
import textwrap
import threading
import uuid
from collections.abc import Callable

from bot import wording
from bot.terminal import console
from retrieval.conversation import IntentKind
from retrieval.conversation.chat import ChatService, Conversation, Reply, ReplyKind
from retrieval.conversation.help_topics import help_topic
from retrieval.engine import Engine
from retrieval.errors import PaperbotError
from retrieval.links import code_links, link_lines
from retrieval.models import Excerpt

# The console's one conversation: user 0 in a scope of its own for each run.
LOCAL_USER = 0
QUIT_WORDS = frozenset({"quit", "exit", ":q", "q"})
GOODBYE = "Bye! Happy reading."
CTRL_C_HINT = "(line cleared; type quit or press Ctrl-D to leave)"

HELP_COLUMN = 32  # where the console guide's explanations start


def _guide_lines(rows: tuple[tuple[tuple[str, ...], str], ...]) -> list[str]:
    """Examples on the left, what they do from HELP_COLUMN on (examples too long for the left
    column get a line of their own)."""
    lines: list[str] = []
    for examples, meaning in rows:
        left = "  " + " / ".join(examples)
        if len(left) > HELP_COLUMN - 2:
            lines.append(left)
            left = ""
        wrapped = textwrap.wrap(meaning, console.WIDTH - HELP_COLUMN)
        lines.append(f"{left:<{HELP_COLUMN}}{wrapped[0]}")
        lines += [" " * HELP_COLUMN + line for line in wrapped[1:]]
    return lines


# The follow-ups are wording.FOLLOW_UPS, the list Discord's /help shows too.
CHAT_HELP = "\n".join(
    [
        "Ask a question in plain words, then follow up:",
        *_guide_lines(wording.FOLLOW_UPS),
        *_guide_lines(
            (
                (("paper ICML2026-7",), "a paper by id"),
                (("collections",), "what is loaded"),
                (("help", "quit (or bye)"), "this guide; leave"),
            )
        ),
        'Name a collection in words ("ICML 2026 papers about MoE routing", "neurips", "icml 24")'
        " or use",
        'the query syntax: "exact phrase"  -excluded  in:collection',
    ]
)


def read_line(prompt: str) -> str:
    """input(), with Ctrl-C raising KeyboardInterrupt at once.

    The console reads on the event loop's own thread (a worker thread would keep asyncio.run
    waiting for it), where asyncio.run's SIGINT handler only cancels the main task: input()
    would go on waiting, and the next line typed would be dropped by the cancellation. While
    reading, Python's own handler is in place instead; between prompts asyncio's is back, so
    Ctrl-C during an answer still stops the program.
    """
    if threading.current_thread() is not threading.main_thread():
        return input(prompt)  # signal handlers can only be set from the main thread
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return input(prompt)
    finally:
        signal.signal(signal.SIGINT, previous)


def render_reply(reply: Reply, colour: bool) -> str:
    """A chat reply for a terminal."""
    kind = reply.kind
    if kind in (ReplyKind.GREETING, ReplyKind.THANKS, ReplyKind.SMALL_TALK):
        return wording.small_talk(reply, console=True)
    if kind is ReplyKind.HELP:
        topic = wording.help_topic_line(help_topic(reply.intent.message), console=True)
        return f"{textwrap.fill(topic, 100)}\n\n{CHAT_HELP}" if topic else CHAT_HELP
    if kind is ReplyKind.PROBLEM:
        return console.plain_message(wording.problem(reply.error or PaperbotError("?"), reply))
    lines: list[str] = []
    if reply.unknown_collection:
        lines.append(wording.unknown_collection(reply.unknown_collection))
    if reply.corrected:
        lines.append(wording.corrected_line(reply.corrected, lambda word: f"“{word}”"))
    if kind is ReplyKind.ANSWER and reply.answer is not None:
        # Any list of similar papers says so: "similar 2", and also the refine, "more" or
        # "go back" that shows one (the state's similar_to; they name no paper themselves).
        similar = reply.state is not None and reply.state.similar_to is not None
        if reply.intent.kind is IntentKind.SIMILAR or similar:
            lines.append(wording.similar_heading(reply.answer))
        lines.append(console.render_answer(reply.answer, colour))
        return "\n".join(lines)

    def excerpt(sentence: Excerpt) -> str:
        return console.excerpt_text(sentence, colour)

    if kind is ReplyKind.COMPARE:
        return _compared(reply, excerpt)
    if kind is ReplyKind.PAPER_QUESTION and reply.papers and reply.papers[0].about:
        lines.append(wording.QUESTION_HEADINGS[reply.papers[0].about.question_type] + ":")
    for number, note in enumerate(reply.papers, start=1):
        paper = note.paper
        if kind is ReplyKind.PAPERS:
            lines.append(console.render_paper(paper))
        else:
            prefix = f"{number}. " if len(reply.papers) > 1 else ""
            lines.append(f"{prefix}{paper.display_title}  [{paper.id}]")
            if reply.intent.wants_code:
                lines.append(_code_line(code_links(paper.urls, paper.abstract)))
            else:
                for line in wording.about_lines(note, excerpt):
                    lines.append(_indented(line))
        lines.append("")
    return "\n".join(lines).rstrip()


def _indented(text: str) -> str:
    return textwrap.indent(text, "    ")


def _compared(reply: Reply, excerpt: Callable[[Excerpt], str]) -> str:
    """Papers side by side: each row (what it proposes, evaluated on, result) for every paper."""
    verdict = wording.verdict_line(reply)
    lines = [verdict] if verdict else []
    lines.append("Compared: " + " vs ".join(note.paper.id for note in reply.papers))
    for number, note in enumerate(reply.papers, start=1):
        lines.append(f"  {number}. {note.paper.display_title}  [{note.paper.id}]")
    rows = [wording.compare_rows(note) for note in reply.papers]
    for row, name in enumerate(wording.COMPARE_ROWS):
        lines.append("")
        lines.append(f"{name}:")
        for number, paper_rows in enumerate(rows, start=1):
            sentence = paper_rows[row][1] if row < len(paper_rows) else None
            said = excerpt(sentence) if sentence is not None else wording.NOT_SAID
            lines.append(_indented(f"{number}. {said}"))
    return "\n".join(lines)


def _code_line(urls: tuple[str, ...]) -> str:
    if not urls:
        return "    No code or project link appears in its abstract."
    return "\n".join("    " + line for line in link_lines(urls))


def _service(engine: Engine) -> ChatService:
    settings = engine.settings
    return ChatService(
        engine,
        engine.memory,
        idle_seconds=settings.conversation_idle_minutes * 60,
        page_size=settings.answer_results,
    )


async def one_reply(engine: Engine, text: str) -> tuple[str, bool]:
    """`text` as the first message of a new console conversation, rendered, and whether it was
    answered (not a problem such as an unknown id): what `paperbot ask` prints for a question
    about a paper it names by id."""
    reply = await _service(engine).handle(text, console_conversation())
    return render_reply(reply, sys.stdout.isatty()), reply.kind is not ReplyKind.PROBLEM


async def run_chat(engine: Engine) -> int:
    service = _service(engine)
    who = console_conversation()
    await engine.warm_up()  # before the prompt, so the first answer is as quick as the rest
    papers = sum(info.papers for info in await engine.loaded_collections())
    print(
        f"paperbot console: {wording.plural(papers, 'paper')} loaded. "
        "Ask a question, `help`, or `quit`."
    )
    colour = sys.stdout.isatty()
    while True:
        try:
            line = read_line("paperbot> ").strip()
        except EOFError:
            print()
            return 0
        except KeyboardInterrupt:
            # Like a shell: Ctrl-C drops what was typed and gives a fresh prompt.
            print(f"\n{CTRL_C_HINT}")
            continue
        if not line:
            continue
        if line.lower() in QUIT_WORDS:
            print(GOODBYE)
            return 0
        try:
            if line.lower() == "collections":
                print(console.render_collections(await engine.collections()))
            else:
                reply = await service.handle(line, who)
                print(render_reply(reply, colour))
                if reply.intent.farewell:  # "bye", "goodbye": the reply was the goodbye
                    return 0
        except PaperbotError as error:
            print(wording.problem(error))
        print()


def console_conversation() -> Conversation:
    """A new conversation scope for this run: "the second one" in a new console never means
    a list from the last run (kept in the store, as Discord conversations are)."""
    return Conversation(LOCAL_USER, f"console:{uuid.uuid4().hex[:16]}")
