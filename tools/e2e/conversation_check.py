"""End-to-end: chat throttling and buttons that survive a restart, against the shared fake Discord.

Not collected by pytest (it needs the shared harness). Usage:

    .venv/bin/python tools/e2e/conversation_check.py ../shared/harness

Runs the real `paperbot run` with the default cooldown (5 questions / 30 s) and prints:
- a burst of 30 mentions from one user in a channel: the bot's public messages and reactions;
- the same burst from another user in a DM;
- answers with buttons (/ask, /search, /paper, a chat answer), a restart of the bot process on
  the same database, then clicks on every kind of old button: each click's outcome and the
  number of `interaction_timeout` violations;
- error-level violations and mention pings over the whole run.
Exit status 0 only when every check holds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from harness import (
    PAPERBOT,
    ROOT,
    Check,
    bot_workdir,
    button,
    components,
    last,
    launch,
    load_harness,
    public,
    select_menu,
    shows_later_results,
    texts,
)

BURST = 30
MAX_PUBLIC = 6


def burst(h: Any, check: Check, user: str, channel: str, label: str) -> None:
    print(f"\n== burst of {BURST} messages from {user} in {label}")
    reactions_before = len(h.events("reaction"))
    first = None
    for number in range(BURST):
        sent = h.say(
            f"which papers study MoE routing? ({number})",
            user=user,
            channel=channel,
            mentions_bot=not channel.startswith("dm:"),
        )
        first = first or sent
    time.sleep(6.0)  # let every answer land
    assert first is not None
    messages = public(h.bot_messages_since(int(first["id"]) - 1, channel=channel))
    answers = [m for m in messages if m.get("embeds")]
    notices = [m for m in messages if not m.get("embeds")]
    reactions = len(h.events("reaction")) - reactions_before
    print(
        f"  public bot messages: {len(messages)} ({len(answers)} answers, {len(notices)} notices);"
        f" reactions: {reactions}"
    )
    check.expect(len(messages) <= MAX_PUBLIC, f"{label}: at most {MAX_PUBLIC} public messages")
    check.expect(len(answers) >= 1, f"{label}: the first questions are answered")


COOLDOWN_SECONDS = 31


def talk(h: Any, check: Check, text: str, *, reply_to: Any = None, user: str = "bob") -> str:
    """Say `text` in #bot-test (mentioning the bot, optionally as a reply); the bot's reply text."""
    said = h.say(text, user=user, channel="bot-test", mentions_bot=True, reply_to=reply_to)
    answer = h.wait_for_message(channel="bot-test", after=said["id"], timeout=15)
    shown = texts(answer)
    print(f"  {text!r} -> {shown[:110]!r}")
    return shown


def conversation(h: Any, check: Check) -> None:
    print("\n== a conversation (bob in #bot-test)")
    check.expect("Ask me about papers" in talk(h, check, "hi"), "greeting: a friendly reply")
    check.expect("icml2026-13" in talk(h, check, "icml2026-13"), "an id opens that paper")
    missing = talk(h, check, "icml2026-999")
    check.expect(missing.startswith("No paper has the id"), "an unknown id names real ones")
    first = talk(h, check, "ICML 2026 papers about mixture of experts routing")
    check.expect("1." in first, "a collection named in words answers")
    answer = h.messages_in(channel="bot-test")[-1]
    newer = talk(h, check, "which papers attack RAG retrievers?")
    check.expect("1." in newer, "a newer answer")
    time.sleep(COOLDOWN_SECONDS)  # five questions per window per user (the default cooldown)
    second = talk(h, check, "the second one")
    check.expect("Search-R2" in second or "icml2026-25" in second, "follow-up: the second one")
    by_reply = talk(h, check, "the first one", reply_to=answer["id"])
    check.expect("icml2026-18" in by_reply, "follow-up by reply resolves against that answer")
    similar = talk(h, check, "more like the first one")
    check.expect("Similar" in similar, "more like the first one")
    thanks = talk(h, check, "thanks!")
    check.expect("Glad it helped" in thanks, "thanks: a short reply")
    time.sleep(COOLDOWN_SECONDS)


def understanding(h: Any, check: Check) -> None:
    """Issue 24's phrasings, as alice in #bot-test: help by paraphrase, chit-chat that keeps the
    list, numbers after "more", a question about the paper in focus, "1 vs 2", and ellipsis."""
    print("\n== understanding (alice in #bot-test)")

    def say(text: str) -> str:
        return talk(h, check, text, user="alice")

    check.expect("How to use paperbot" in say("how does this bot work?"), "help by paraphrase")
    listed = say("icml 2026 papers on mixture of experts routing")
    check.expect("1." in listed and "icml2026-" in listed, "a search lists papers")
    check.expect("icml2026-" not in say("lol nice"), "chit-chat answers without searching")
    second = say("the second one")
    check.expect("icml2026-33" in second, "chit-chat did not replace the list")
    time.sleep(COOLDOWN_SECONDS)
    more = say("show me more")
    check.expect("4." in more, "more shows results 4-6")
    fifth = say("#5")
    check.expect("There were only" not in fifth and "icml2026-" in fifth, "#5 after more")
    result = say("what's the main result?")
    check.expect("Main result" in result, "a question about the paper in focus")
    time.sleep(COOLDOWN_SECONDS)
    say("icml 2026 papers on mixture of experts routing")
    versus = say("1 vs 2")
    check.expect("Compared" in versus and "Proposes" in versus, "1 vs 2 compares side by side")
    iclr = say("same but for iclr")
    check.expect("iclr2024-" in iclr and "icml2026-" not in iclr, "same but for iclr")
    time.sleep(COOLDOWN_SECONDS)


def second_newcomer(h: Any, check: Check) -> None:
    """Phrasings a second newcomer found misread, as bob in #bot-test: a reaction in front of a
    search, "wait i meant iclr", and "which of these have code"."""
    print("\n== a newcomer's phrasings (bob in #bot-test)")

    def say(text: str) -> str:
        return talk(h, check, text, user="bob")

    found = say("ok cool, anything on mixture of experts routing?")
    check.expect("1." in found and "icml2026-" in found, "a reaction in front of a search")
    meant = say("wait i meant iclr")
    check.expect("iclr2024-" in meant and "icml2026-" not in meant, "wait i meant iclr")
    code = say("which of these have code")
    check.expect("Code" in code and "Compared" not in code, "which of these have code")
    time.sleep(COOLDOWN_SECONDS)


def before_restart(h: Any, check: Check) -> dict[str, Any]:
    print("\n== answers with buttons (before the restart)")
    saved: dict[str, Any] = {}
    asked = h.slash("ask", question="which papers attack RAG retrievers?", user="bob")
    saved["ask"] = last(asked.result(timeout=15))
    searched = h.slash("search", query="reinforcement learning", results=2, user="bob")
    saved["search"] = last(searched.result(timeout=15))
    opened = h.slash("paper", id="icml2026-1", user="bob")
    saved["paper"] = last(opened.result(timeout=10))
    said = h.say("diffusion models for video generation", user="bob", mentions_bot=True)
    saved["chat"] = h.wait_for_message(
        after=said["id"], timeout=10, check=lambda m: bool(m.get("embeds"))
    )
    for name, message in saved.items():
        labels = [c.get("label") or c.get("placeholder") for c in components(message)]
        print(f"  {name}: {labels}")
        check.expect(bool(components(message)), f"{name}: has components")
    return saved


def click(h: Any, check: Check, what: str, handle: Any, expect_text: str | None = None) -> None:
    result = handle.result(timeout=15)
    shown = texts(last(result))
    ok = result.status == "acknowledged" and not result.failed
    if expect_text is not None:
        ok = ok and expect_text in shown
    first_line = shown.strip().splitlines()[0][:90] if shown.strip() else "(edit)"
    check.expect(ok, f"after restart, {what}: {result.status} — {first_line}")


def after_restart(h: Any, check: Check, old: dict[str, Any]) -> None:
    print("\n== clicks on old buttons after the restart")
    ask, search, paper, chat = old["ask"], old["search"], old["paper"], old["chat"]
    menu = select_menu(ask)
    if menu is not None:
        value = menu["options"][0]["value"]
        click(h, check, "open a paper", h.select(ask, menu["custom_id"], [value]), value)
    more = button(ask, "More results")
    if more is not None:
        pager = h.click(ask, more["custom_id"])
        click(h, check, "More results", pager)
        check.expect(
            shows_later_results(last(pager.result(timeout=15))),
            "after restart, More results: the results after the answer's",
        )
    nxt = button(search, "Next")
    if nxt is not None:
        click(
            h,
            check,
            "Next by someone else",
            h.click(search, nxt["custom_id"], user="alice"),
            "Only the person who asked",
        )
        click(h, check, "Next by the invoker", h.click(search, nxt["custom_id"], user="bob"))
        check.expect(shows_later_results(h.message(search["id"])), "after restart: page 2 shown")
    for label, words in (("Similar papers", "Similar"), ("Save", "reading list")):
        spec = button(paper, label)
        if spec is not None:
            click(h, check, label, h.click(paper, spec["custom_id"]), words)
    chat_more = button(chat, "More results")
    chat_menu = select_menu(chat)
    if chat_more is not None:
        pages = h.click(chat, chat_more["custom_id"])
        click(h, check, "chat More results", pages)
        check.expect(
            shows_later_results(last(pages.result(timeout=15))),
            "after restart, chat More results: the results after the answer's",
        )
    elif chat_menu is not None:
        value = chat_menu["options"][0]["value"]
        click(h, check, "chat open a paper", h.select(chat, chat_menu["custom_id"], [value]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("harness", type=Path, help="path to the shared harness folder")
    args = parser.parse_args()
    harness = load_harness(args.harness)
    workdir, env = bot_workdir("conversation", PAPERBOT_LOG_LEVEL="INFO")
    check = Check()
    # A small ICLR 2024 list beside the seeds, so "same but for iclr" has papers to find.
    iclr = workdir / "iclr2024.txt"
    iclr.write_text(
        "ICLR 2024 论文列表\n\n"
        "We study expert routing in sparse mixture of experts models and balance expert load.\n\n"
        "Mixture of experts routing collapses; a router entropy bonus keeps experts busy.\n",
        encoding="utf-8",
    )
    subprocess.run(
        [*PAPERBOT, "ingest", str(iclr)], env={**os.environ, **env}, cwd=ROOT, check=True
    )
    with harness.Harness() as h:
        launch(h, env)
        try:
            conversation(h, check)
            understanding(h, check)
            second_newcomer(h, check)
            burst(h, check, "alice", "general", "a channel")
            burst(h, check, "owner", "dm:owner", "a DM")
            old = before_restart(h, check)
            print("\n== restart")
            h.stop_bot()
            launch(h, env, commands=False)
            after_restart(h, check, old)
        finally:
            violations = h.violations()
            output = h.bot_output()
        h.stop_bot()

    print("\n== violations")
    for v in violations:
        print(f"  {v['level']} {v['rule']}: {v['message']} ({v.get('path') or v.get('request')})")
    timeouts = [v for v in violations if v["rule"] == "interaction_timeout"]
    errors = [v for v in violations if v["level"] == "error"]
    pings = [v for v in violations if v["rule"] == "mention_ping"]
    counts = f"{len(timeouts)}; error violations: {len(errors)}; pings: {len(pings)}"
    print(f"  interaction_timeout: {counts}")
    check.expect(not timeouts, "zero interaction_timeout")
    check.expect(not errors, "zero error violations")
    check.expect(not pings, "zero pings")
    tracebacks = [line for line in output.splitlines() if "Traceback" in line]
    check.expect(not tracebacks, f"no tracebacks in the bot output ({len(tracebacks)})")
    return check.summary()


if __name__ == "__main__":
    raise SystemExit(main())
