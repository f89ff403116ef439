"""End-to-end check of the real `paperbot run` process against the shared fake Discord.

Not collected by pytest (it needs the shared harness). Usage:

    .venv/bin/python tools/e2e/harness_check.py ../shared/harness \
        [--data ../shared/data/conference_abstracts] [--concurrency 50]

With --data, the conference .txt lists are ingested into the temporary database first, so the
/ask latencies are measured over the full corpus. Prints every violation the harness recorded,
every check that failed, acknowledgement latencies (p50/p99) and the 50-concurrent /ask outcome.
Exit status 0 only when there are no violations and no failed checks.
"""

from __future__ import annotations

import argparse
import statistics
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
    ingest,
    last,
    launch,
    load_harness,
    percentile,
    select_menu,
    shows_later_results,
    texts,
)

# 12 base commands + 7 for research servers (privacy, forget-me, watch, watches, unwatch,
# shortlist, trending)
COMMANDS = 19

HOSTILE = {
    "4000 chars": ("which papers study MoE routing and attention? " * 100)[:4000],
    "@everyone": "@everyone @here which papers study MoE routing?",
    "role mention": "<@&123> <@456> routing in mixture of experts",
    "backticks": "```py\nprint('x')``` `routing` ``experts``",
    "spoilers": "||spoiler|| ||MoE routing|| ||",
    "zero-width": "\u200bMoE\u200d rou\u2060ting\ufeff \u202eexperts\u200b",
    "markdown": "# heading\n> quote\n- list **bold** __under__ ~~strike~~ [link](https://evil.example)",
}


def drive(h: Any, check: Check, concurrency: int) -> dict[str, Any]:
    alice, bob = "alice", "bob"

    print("\n== help, stats, collections")
    for name in ("help", "stats", "collections"):
        result = h.slash(name).result(timeout=10)
        check.acked(f"/{name}", result)
        check.expect(result.ephemeral and bool(texts(last(result))), f"/{name}: ephemeral answer")

    print("\n== /ask")
    result = h.slash("ask", question="which papers study MoE routing?").result(timeout=15)
    check.acked("/ask", result)
    answer = last(result)
    check.expect("**" in texts(answer), "/ask: matched words in bold")
    check.expect(not result.ephemeral, "/ask: public by default")
    check.expect(button(answer, "More results") is not None, "/ask: More results button")
    menu = select_menu(answer)
    check.expect(menu is not None, "/ask: select menu to open a paper")
    links = [c for c in components(answer) if c.get("style") == 5]
    print(f"  (link buttons on the answer: {len(links)})")

    private = h.slash("ask", question="diffusion models for video", private=True).result(timeout=15)
    check.acked("/ask private", private)
    check.expect(private.ephemeral, "/ask private: ephemeral")

    if menu is not None:
        value = menu["options"][0]["value"]
        picked = h.select(answer, menu["custom_id"], [value], user=bob).result(timeout=10)
        check.acked("select paper", picked)
        check.expect(
            picked.ephemeral and value in texts(last(picked)), "select: paper opened privately"
        )
    more = button(answer, "More results")
    if more is not None:
        opened = h.click(answer, more["custom_id"], user=bob).result(timeout=15)
        check.acked("More results", opened)
        pager = last(opened)
        check.expect(opened.ephemeral and shows_later_results(pager), "More results: private pages")
        nxt = button(pager, "Next")
        if nxt is not None and not nxt.get("disabled"):
            paged = h.click(pager, nxt["custom_id"], user=bob).result(timeout=15)
            check.acked("More results → Next", paged)

    print("\n== hostile questions")
    for label, question in HOSTILE.items():
        result = h.slash("ask", question=question).result(timeout=15)
        check.acked(f"/ask hostile {label}", result)
        shown = texts(last(result))
        check.expect(bool(shown), f"/ask hostile {label}: answered ({len(shown)} chars)")
        check.expect("@everyone" not in shown, f"/ask hostile {label}: no raw @everyone")

    print("\n== /search paging")
    result = h.slash("search", query="reinforcement learning", results=3).result(timeout=15)
    check.acked("/search", result)
    page = last(result)
    nxt = button(page, "Next")
    check.expect(nxt is not None and "1-3 of" in texts(page), "/search: paginator with indicator")
    if nxt is not None:
        other = h.click(page, nxt["custom_id"], user=bob).result(timeout=10)
        check.acked("/search Next by someone else", other)
        check.expect(
            other.ephemeral and "Only the person who asked" in texts(last(other)),
            "/search: others get an ephemeral note",
        )
        moved = h.click(page, nxt["custom_id"], user=alice).result(timeout=15)
        check.acked("/search Next", moved)
        page = h.message(page["id"])
        check.expect(shows_later_results(page), "/search: page 2 shown")
        for label in ("Last", "First"):
            spec = button(page, label)
            if spec is not None and not spec.get("disabled"):
                clicked = h.click(page, spec["custom_id"]).result(timeout=15)
                check.acked(f"/search {label}", clicked)
                page = h.message(page["id"])
    bad = h.slash("search", query="routing", collection="nope").result(timeout=10)
    check.acked("/search bad collection", bad)
    check.expect(
        "No collection" in texts(last(bad)) and bad.messages[-1]["flags"] & 64,
        "/search: bad collection is an ephemeral error",
    )

    print("\n== autocomplete, /paper, buttons")
    auto = h.autocomplete("paper", "id", "rout").result(timeout=5)
    check.acked("autocomplete /paper", auto)
    choices = auto.choices or []
    check.expect(0 < len(choices) <= 25, f"autocomplete: {len(choices)} choices")
    paper_id = choices[0]["value"] if choices else "icml2026-1"
    empty_auto = h.autocomplete("paper", "id", "").result(timeout=5)
    check.acked("autocomplete /paper empty", empty_auto)
    shown = h.slash("paper", id=paper_id).result(timeout=10)
    check.acked("/paper", shown)
    paper_message = last(shown)
    check.expect(paper_id in texts(paper_message), "/paper: the paper is shown")
    typed = h.slash("paper", id="some words nobody picked").result(timeout=10)
    check.acked("/paper free text", typed)
    check.expect(
        typed.ephemeral and "No paper" in texts(last(typed)), "/paper: typed value validated"
    )
    for label in ("Save", "Similar papers"):
        spec = button(paper_message, label)
        check.expect(spec is not None, f"/paper: {label} button")
        if spec is not None:
            clicked = h.click(paper_message, spec["custom_id"], user=bob).result(timeout=15)
            check.acked(f"/paper {label}", clicked)
            check.expect(
                clicked.ephemeral and bool(texts(last(clicked))), f"{label}: private answer"
            )

    print("\n== /similar, /random")
    for name, options in (
        ("similar", {"id": paper_id}),
        ("random", {}),
        ("random", {"collection": "icml2026"}),
    ):
        result = h.slash(name, options).result(timeout=15)
        check.acked(f"/{name} {options}", result)
        check.expect(bool(texts(last(result))), f"/{name}: answered")

    print("\n== reading list")
    for name, options in (
        ("save", {"id": paper_id}),
        ("saved", {}),
        ("saved", {"export": "md"}),
        ("saved", {"export": "txt"}),
        ("unsave", {"id": paper_id}),
    ):
        result = h.slash(name, options).result(timeout=10)
        check.acked(f"/{name} {options}", result)
        check.expect(result.ephemeral, f"/{name}: ephemeral")
        if options.get("export"):
            attachments = last(result).get("attachments") if last(result) else []
            check.expect(bool(attachments), f"/saved export {options['export']}: file attached")

    print("\n== admin")
    refused = h.slash("admin reload", user=alice).result(timeout=10)
    check.acked("/admin reload (member)", refused)
    check.expect("Only the bot's owners" in texts(last(refused)), "/admin reload: members refused")
    refused = h.slash("admin reload", user=bob).result(timeout=10)
    check.acked("/admin reload (moderator)", refused)
    check.expect(
        "Only the bot's owners" in texts(last(refused)), "/admin reload: no Manage Server refused"
    )
    allowed = h.slash("admin reload", user="owner").result(timeout=30)
    check.acked("/admin reload (owner)", allowed)
    check.expect("Reloaded" in texts(last(allowed)), "/admin reload: owner allowed")
    upload = h.slash("admin ingest", file="papers.jsonl", user="owner").result(timeout=10)
    check.acked("/admin ingest", upload)
    check.expect(
        "empty" in texts(last(upload)), "/admin ingest: empty upload refused before the DB"
    )
    wrong = h.slash("admin ingest", file="notes.pdf", user="owner").result(timeout=10)
    check.acked("/admin ingest pdf", wrong)
    check.expect(".jsonl" in texts(last(wrong)), "/admin ingest: wrong type refused")
    sync = h.slash("admin sync", scope="guild", user=bob).result(timeout=10)
    check.acked("/admin sync (not owner)", sync)

    print("\n== chat: mention, DM, plain message")
    asked = h.say("which papers study MoE routing?", mentions_bot=True)
    reply = h.wait_for_message(after=asked["id"], timeout=15)
    check.expect(
        (reply.get("message_reference") or {}).get("message_id") == asked["id"],
        "mention: answered as a reply",
    )
    check.expect(bool(reply.get("embeds")), "mention: answer embed")
    check.expect(bool(h.events("typing")), "mention: typing indicator shown")
    dm = h.say("diffusion models for video", channel="dm:alice")
    dm_reply = h.wait_for_message("dm:alice", after=dm["id"], timeout=15)
    check.expect(bool(dm_reply.get("embeds")), "DM: answered")
    for label, question in HOSTILE.items():
        sent = h.say(question[:1900], mentions_bot=True)
        answered = h.wait_for_message(after=sent["id"], timeout=15)
        check.expect(bool(texts(answered)), f"mention hostile {label}: answered")
    plain = h.say("which papers study MoE routing?")
    time.sleep(1.5)
    newer = [m for m in h.messages_in() if int(m["id"]) > int(plain["id"])]
    check.expect(not newer, "plain message without the intent: ignored")
    menu = select_menu(reply)
    if menu is not None:
        picked = h.select(reply, menu["custom_id"], [menu["options"][0]["value"]]).result(
            timeout=10
        )
        check.acked("chat answer select", picked)

    print(f"\n== {concurrency} concurrent /ask")
    questions = [
        "MoE routing", "attention sparsity", "reinforcement learning scaling",
        "diffusion video", "retrieval augmented generation attacks", "uncertainty calibration",
        "graph neural networks", "in-context learning", "LLM alignment faking", "bandits",
    ]  # fmt: skip
    users = [alice, bob, "owner"]
    started = time.perf_counter()
    handles = [
        h.slash("ask", question=questions[i % len(questions)], user=users[i % len(users)])
        for i in range(concurrency)
    ]
    dispatched = time.perf_counter() - started
    results = [handle.result(timeout=30, settle=0.05) for handle in handles]
    # when the answer was in place: the last follow-up/edit, in seconds since that dispatch
    done = [max(e["at"] for e in r.events) for r in results if r.events]
    outcome = {
        "dispatched_in_s": round(dispatched, 2),
        "answer_p50_s": round(percentile(done, 0.5), 3) if done else None,
        "answer_max_s": round(max(done), 3) if done else None,
        "acknowledged": sum(r.status == "acknowledged" for r in results),
        "failed": sum(r.failed for r in results),
        "answered": sum(
            bool(texts(last(r))) and not (last(r) or {}).get("flags", 0) & 128 for r in results
        ),
        "cooldown_refusals": sum("try again in" in texts(last(r)) for r in results),
    }
    for r in results:
        check.acked("concurrent /ask", r)
    check.expect(
        outcome["answered"] == concurrency, f"{concurrency} concurrent /ask: all answered {outcome}"
    )
    return outcome


def restart(h: Any, check: Check, env: dict[str, str]) -> None:
    """Restart on the same database: no command sync (unchanged tree), reading list kept."""
    print("\n== restart")
    synced_before = len(h.events("commands_synced"))
    h.stop_bot()
    launch(h, env, commands=False)
    time.sleep(1.0)
    check.expect(
        len(h.events("commands_synced")) == synced_before, "restart: no sync (tree unchanged)"
    )
    saved = h.slash("saved").result(timeout=10)
    check.acked("/saved after restart", saved)
    check.expect("icml2026-1" in texts(last(saved)), "restart: reading list survived")
    h.stop_bot()


def sync_cli(h: Any, check: Check, env: dict[str, str]) -> None:
    """`paperbot sync [--guild ID]`: logs in over REST, syncs once, prints one line."""
    import os

    print("\n== paperbot sync")
    full = {**os.environ, **h.bot_env("PAPERBOT_DISCORD_TOKEN"), **env}
    guild = str(h.server.guild_id)
    for extra in ([], ["--guild", guild]):
        out = subprocess.run(
            [*PAPERBOT, "sync", *extra],
            env=full,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr[-300:]
        check.expect(
            out.returncode == 0 and f"Synced {COMMANDS} commands" in line, f"sync {extra}: {line}"
        )
    names = {c["name"] for c in h.registered_commands(guild=True)}
    check.expect(len(names) == COMMANDS, f"guild commands after sync --guild: {len(names)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("harness", type=Path, help="path to the shared harness folder")
    parser.add_argument("--data", type=Path, help="folder of conference .txt lists to ingest first")
    parser.add_argument("--concurrency", type=int, default=50)
    args = parser.parse_args()
    harness = load_harness(args.harness)
    _, env = bot_workdir("e2e", PAPERBOT_COOLDOWN_QUESTIONS="1000", PAPERBOT_LOG_LEVEL="INFO")
    if args.data:
        ingest(args.data, env)

    check = Check()
    with harness.Harness() as h:
        env["PAPERBOT_OWNER_IDS"] = h.user("owner")["id"]
        token = h.token
        started = time.perf_counter()
        launch(h, env)
        print(f"bot ready and commands synced in {time.perf_counter() - started:.1f} s")
        names = sorted(c["name"] for c in h.registered_commands())
        print(f"registered commands: {names}")
        check.expect(len(names) == COMMANDS, f"{COMMANDS} commands registered")
        try:
            outcome = drive(h, check, args.concurrency)
            h.slash("save", id="icml2026-1").result(timeout=10)
            output = h.bot_output()
            restart(h, check, env)
            sync_cli(h, check, env)
        finally:
            violations = h.violations()
            output += h.bot_output()
        h.stop_bot()

    print("\n== violations")
    for v in violations:
        print(f"  {v['level']} {v['rule']}: {v['message']} ({v.get('path') or v.get('request')})")
    print(f"  total: {len(violations)}")
    errors = [line for line in output.splitlines() if " ERROR " in line or "Traceback" in line]
    print(f"\n== bot log errors: {len(errors)}")
    for line in errors[:20]:
        print("  " + line[:300])
    log_file = Path(env["PAPERBOT_LOG_FILE"])
    logged = output + (log_file.read_text() if log_file.exists() else "")
    print(f"\n== token in bot output or log file: {token in logged}")
    check.expect(token not in logged, "the token never appears in the logs")

    every = [at for values in check.ack.values() for at in values]
    asks = [
        at
        for label, values in check.ack.items()
        if label.startswith(("/ask", "concurrent /ask"))
        for at in values
    ]
    print("\n== acknowledgement latency (s)")
    for label, values in (("all interactions", every), ("/ask", asks)):
        if values:
            print(
                f"  {label}: n={len(values)} p50={percentile(values, 0.5):.3f} "
                f"p99={percentile(values, 0.99):.3f} max={max(values):.3f} "
                f"mean={statistics.mean(values):.3f}"
            )
    print(f"\n== {args.concurrency} concurrent /ask: {outcome}")
    failed = check.summary()
    return 1 if violations or failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
