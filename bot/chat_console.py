"""`paperbot chat`: the terminal conversation, through the same chat service as Discord.

The console is one conversation (the local user, no channel), so follow-ups work as in a DM:
"the second one", "more", "similar 2", "compare 1 3", "does it have code?".
"""

from __future__ import annotations

import signal
import sys
import textwrap
import threading

from bot import console, wording
from retrieval.conversation import IntentKind
from retrieval.conversation.chat import ChatService, Conversation, Reply, ReplyKind
from retrieval.engine import Engine
from retrieval.errors import PaperbotError

# The console's one conversation: user 0 in a DM-like scope of its own.
LOCAL_USER = 0
QUIT_WORDS = frozenset({"quit", "exit", ":q", "q"})
CTRL_C_HINT = "(line cleared; type quit or press Ctrl-D to leave)"

CHAT_HELP = """Ask a question in plain words, then follow up:
  the second one / #2 / 2     that paper in full       more         the next results
  similar 2 / more like it    papers like that one     compare 1 3  two papers side by side
  does it have code?          links of the paper in focus
  paper ICML2026-7            a paper by id            collections  what is loaded
  help, quit
Name a collection in words ("ICML 2026 papers about MoE routing") or use the query syntax:
"exact phrase"  -excluded  in:collection"""


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
        return CHAT_HELP
    if kind is ReplyKind.PROBLEM:
        return wording.problem(reply.error or PaperbotError("?"), reply)
    lines: list[str] = []
    if reply.unknown_collection:
        lines.append(wording.unknown_collection(reply.unknown_collection))
    if kind is ReplyKind.ANSWER and reply.answer is not None:
        if reply.intent.kind is IntentKind.SIMILAR:
            # Only the first letter: str.capitalize() lower-cased the paper's label too.
            question = reply.answer.question
            lines.append(f"{question[:1].upper()}{question[1:]}:")
        lines.append(console.render_answer(reply.answer, colour))
        return "\n".join(lines)
    for number, note in enumerate(reply.papers, start=1):
        paper = note.paper
        if kind is ReplyKind.PAPERS:
            lines.append(console.render_paper(paper))
        else:
            prefix = f"{number}. " if len(reply.papers) > 1 else ""
            lines.append(f"{prefix}{paper.display_title}  [{paper.id}]")
            if reply.intent.wants_code:
                lines.append(_code_line(paper.urls))
            elif note.sentence is not None:
                lines.append(textwrap.indent(console.excerpt_text(note.sentence, colour), "    "))
            else:
                lines.append("    (no sentence of it matches the question)")
        lines.append("")
    return "\n".join(lines).rstrip()


def _code_line(urls: tuple[str, ...]) -> str:
    if not urls:
        return "    No code or project link appears in its abstract."
    return "    Code: " + "  ".join(urls)


async def run_chat(engine: Engine) -> int:
    settings = engine.settings
    service = ChatService(
        engine,
        engine.memory,
        idle_seconds=settings.conversation_idle_minutes * 60,
        page_size=settings.answer_results,
    )
    who = Conversation.of(LOCAL_USER, None)
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
            return 0
        try:
            if line.lower() == "collections":
                print(console.render_collections(await engine.collections()))
            else:
                print(render_reply(await service.handle(line, who), colour))
        except PaperbotError as error:
            print(wording.problem(error))
        print()
