"""Discord faults and access, end to end: the real `paperbot run` process against the fake Discord.

Not collected by pytest (it needs the shared harness). Usage:

    .venv/bin/python tools/e2e/faults_check.py ../shared/harness \
        [--data ../shared/data/conference_abstracts]

Faults (issue 5 §6):
- gateway RECONNECT (op 7) while questions are in flight, three times: the bot RESUMEs (no new
  IDENTIFY), every in-flight question is answered, and commands and buttons of messages sent
  before the reconnect keep working;
- an interaction whose deadline passed: the harness's acknowledgement deadline is set to 0 s for
  a moment (`server.ack_timeout`), so the bot's defer arrives late and gets 404 10062, as from
  Discord after 3 s. Each is logged, tried once only, and the bot keeps answering;
- a follow-up whose token is gone: the harness's 15-minute token lifetime is set to 0 for a
  moment, so the answer's follow-up gets 404 10015. Logged, not retried, the bot keeps answering;
- a follow-up that fails for another reason (the harness answers the next follow-up with
  400 50035): the user still gets a private apology, on the same single acknowledgement.

Access (issue 5 §5): /admin reload, ingest and sync by a member, a Moderator (no Manage
Server), a member whose role has Manage Server, the guild owner (not in PAPERBOT_OWNER_IDS), and
an owner named in PAPERBOT_OWNER_IDS, in the guild and in DMs.

Exit status 0 only when every check passes, the bot never logged an ERROR or a traceback, the bot
process is still running at the end, and the harness recorded no violation other than the ones
these faults cause on purpose.
"""

from __future__ import annotations

import argparse
import collections
import time
from pathlib import Path
from typing import Any

from harness import (
    Check,
    bot_workdir,
    button,
    ingest,
    last,
    launch,
    load_harness,
    poll,
    shows_later_results,
    texts,
)

MANAGE_GUILD = 1 << 5
# Rules the harness records because of the faults forced here (the deadline and token tests).
EXPECTED_RULES = {"interaction_timeout", "late_callback", "webhook_token_invalid"}
QUESTIONS = [
    "which papers study MoE routing?",
    "attacks on RAG retrievers",
    "diffusion models for video",
    "reinforcement learning scaling",
    "uncertainty calibration",
]


class FollowupFault:
    """Makes the harness answer the next `armed` follow-ups with 400 50035 Invalid Form Body."""

    def __init__(self) -> None:
        self.armed = 0
        self.fired = 0

    def install(self, server_class: Any) -> None:
        real = server_class._followup
        fault = self

        def followup(server: Any, call: Any) -> Any:
            if fault.armed > 0:
                fault.armed -= 1
                fault.fired += 1
                iid = server.by_token.get(call.match_info.get("token", ""), "")
                if iid in server.interactions:
                    server._interaction_event(server.interactions[iid], "followup", status=400)
                return 400, {"message": "Invalid Form Body", "code": 50035, "errors": {}}
            return real(server, call)

        server_class._followup = followup


def callback_statuses(result: Any) -> list[int]:
    return [e.get("status") for e in result.events if e["kind"] == "callback"]


def answered(result: Any) -> bool:
    message = last(result)
    return (
        result.status == "acknowledged"
        and message is not None
        and not (message.get("flags") or 0) & 128
        and "Answer" in texts(message)
    )


def log_lines(log_file: Path, start: int) -> list[str]:
    lines = log_file.read_text(errors="replace").splitlines() if log_file.exists() else []
    return lines[start:]


def reconnects(h: Any, check: Check, rounds: int) -> None:
    print("\n== gateway RECONNECT -> RESUME, with questions in flight")
    pre = h.slash("search", query="reinforcement learning", results=2).result(timeout=15)
    check.acked("/search before the reconnects", pre)
    page = last(pre)
    identifies = len(h.events("identify"))
    for round_ in range(1, rounds + 1):
        resumes = len(h.events("resume"))
        users = ["alice", "bob", "carol", "dave"]
        handles = [
            h.slash("ask", question=QUESTIONS[i % len(QUESTIONS)], user=users[i % len(users)])
            for i in range(4)
        ]
        h.reconnect()
        poll(lambda n=resumes: len(h.events("resume")) > n, 20, "RESUME")
        results = [handle.result(timeout=20, settle=0.1) for handle in handles]
        check.expect(
            all(answered(r) for r in results),
            f"reconnect {round_}: {sum(answered(r) for r in results)}/4 in-flight /ask answered",
        )
        after = h.slash("ask", question="graph neural networks", user="alice").result(timeout=15)
        check.expect(answered(after), f"reconnect {round_}: /ask after the RESUME answered")
    check.expect(
        len(h.events("identify")) == identifies,
        f"RESUMEd {rounds} times without a new IDENTIFY",
    )
    nxt = button(page, "Next")
    if nxt is not None:
        moved = h.click(page, nxt["custom_id"], user="alice").result(timeout=15)
        check.acked("button of a pre-reconnect message", moved)
        check.expect(
            shows_later_results(h.message(page["id"])), "paginator still pages after RESUME"
        )
    stats = h.slash("stats").result(timeout=10)
    check.acked("/stats after the reconnects", stats)


def deadline(h: Any, check: Check, log_file: Path) -> None:
    print("\n== deadline passed (acknowledgement deadline 0 s for a moment): 10062")
    start = len(log_lines(log_file, 0))
    h.server.ack_timeout = 0.0
    try:
        pre = h.slash("search", query="attention", results=2, user="alice")
        late = [
            h.slash("ask", question="which papers study MoE routing?", user="bob"),
            h.slash("stats", user="alice"),
            h.slash("paper", id="icml2026-1", user="carol"),
        ]
        results = []
        for handle in [pre, *late]:
            poll(
                lambda handle=handle: bool(callback_statuses(handle.snapshot())),
                10,
                "the bot's late callback",
            )
            results.append(handle.result(timeout=2, settle=0.5))
    finally:
        h.server.ack_timeout = 3.0
    time.sleep(0.5)
    for name, result in zip(["/search", "/ask", "/stats", "/paper"], results, strict=True):
        check.expect(result.failed, f"{name}: failed as on Discord (deadline passed)")
        check.expect(
            callback_statuses(result) == [404],
            f"{name}: one late callback, no second attempt ({callback_statuses(result)})",
        )
        check.expect(
            not [e for e in result.events if e["kind"] in ("followup", "edit")],
            f"{name}: no follow-up on the dead token",
        )
    lines = log_lines(log_file, start)
    logged = [line for line in lines if "interaction expired before it was answered" in line]
    check.expect(
        len(logged) == 4 and all("10062" in line for line in logged),
        f"deadline: {len(logged)} WARNING lines with 10062",
    )
    again = h.slash("ask", question="which papers study MoE routing?", user="bob").result(
        timeout=15
    )
    check.expect(answered(again), "deadline: the next /ask is answered")


def dead_token(h: Any, check: Check, log_file: Path, server_module: Any) -> None:
    print("\n== follow-up on a token that is gone (token lifetime 0 s for a moment): 10015")
    start = len(log_lines(log_file, 0))
    lifetime = server_module.TOKEN_LIFETIME
    server_module.TOKEN_LIFETIME = 0.0
    try:
        handle = h.slash("ask", question="attacks on RAG retrievers", user="alice")

        def requests() -> list[tuple[str, str, int]]:
            """This interaction's requests: (method, callback|webhook, status)."""
            return [
                (
                    t["method"],
                    "callback" if t["path"].endswith("/callback") else "webhook",
                    t["status"],
                )
                for t in h.transcript()
                if handle.token in t["path"]
            ]

        poll(lambda: any(kind == "webhook" for _, kind, _ in requests()), 15, "the follow-up")
        time.sleep(1.0)
        sent = requests()
    finally:
        server_module.TOKEN_LIFETIME = lifetime
    check.expect(
        sent == [("POST", "callback", 200), ("POST", "webhook", 404)],
        f"10015: one defer, one follow-up attempt, nothing retried ({sent})",
    )
    lines = log_lines(log_file, start)
    check.expect(
        any("interaction expired" in line and "10015" in line for line in lines),
        "10015: logged as a WARNING",
    )
    again = h.slash("ask", question="attacks on RAG retrievers", user="alice").result(timeout=15)
    check.expect(answered(again), "10015: the next /ask is answered")


def failed_followup(h: Any, check: Check, fault: FollowupFault, log_file: Path) -> None:
    print("\n== a follow-up that fails (400 50035 once): the user still gets an answer")
    start = len(log_lines(log_file, 0))
    fault.armed = 1
    result = h.slash("ask", question="diffusion models for video", user="bob").result(
        timeout=15, settle=0.5
    )
    check.expect(fault.fired == 1, "the answer's follow-up was refused by the harness")
    check.expect(callback_statuses(result) == [200], "400: acknowledged once")
    kinds = [(e["kind"], e.get("status")) for e in result.events]
    check.expect(
        kinds == [("callback", 200), ("followup", 400), ("delete", 204), ("followup", 200)],
        f"400: 'thinking…' removed, then one private apology ({kinds})",
    )
    message = last(result)
    check.expect(
        message is not None
        and (message.get("flags") or 0) & 64
        and "error reference" in texts(message),
        "400: the apology is ephemeral and carries a reference",
    )
    lines = log_lines(log_file, start)
    check.expect(any(" ERROR " in line for line in lines), "400: logged as an ERROR with reference")
    again = h.slash("ask", question="diffusion models for video", user="bob").result(timeout=15)
    check.expect(answered(again), "400: the next /ask is answered")


def access(h: Any, check: Check) -> dict[str, int]:
    print("\n== access: /admin")
    counts: collections.Counter[str] = collections.Counter()
    admin = next(c for c in h.registered_commands() if c["name"] == "admin")
    default = admin.get("default_member_permissions")
    check.expect(
        str(default) == str(MANAGE_GUILD), f"/admin shown to Manage Server by default ({default})"
    )
    refused = "Only the bot's owners"
    cases = [
        # (command, options, user, channel, allowed, who)
        ("admin reload", {}, "alice", None, False, "member"),
        ("admin reload", {}, "bob", None, False, "Moderator (no Manage Server)"),
        ("admin reload", {}, "carol", None, True, "member with Manage Server"),
        ("admin reload", {}, "owner", None, True, "guild owner"),
        ("admin reload", {}, "dave", None, True, "PAPERBOT_OWNER_IDS, no permissions"),
        ("admin reload", {}, "alice", "dm:alice", False, "member in DMs"),
        ("admin reload", {}, "carol", "dm:carol", False, "Manage Server in DMs"),
        ("admin reload", {}, "dave", "dm:dave", True, "PAPERBOT_OWNER_IDS in DMs"),
        ("admin ingest", {"file": "list.txt"}, "alice", None, False, "member"),
        ("admin ingest", {"file": "list.txt"}, "bob", None, False, "Moderator"),
        ("admin sync", {"scope": "guild"}, "carol", None, False, "Manage Server"),
        ("admin sync", {"scope": "guild"}, "owner", None, False, "guild owner, not in owners"),
        ("admin sync", {"scope": "guild"}, "dave", None, True, "PAPERBOT_OWNER_IDS"),
    ]
    for name, options, user, channel, allowed, who in cases:
        result = h.slash(name, options, user=user, channel=channel).result(timeout=30)
        shown = texts(last(result))
        check.acked(f"/{name} by {user} ({who})", result)
        if allowed:
            ok = refused not in shown and bool(shown)
            if name == "admin reload":
                ok = ok and "Reloaded" in shown
            if name == "admin sync":
                ok = ok and "Synced" in shown
        else:
            ok = refused in shown
        counts["allowed" if allowed else "refused"] += 1
        check.expect(
            ok and result.ephemeral,
            f"/{name} by {user} ({who}): {'allowed' if allowed else 'refused'}, privately",
        )
    return dict(counts)


def add_manager(h: Any, user: str) -> None:
    """Give `user` a role with Manage Server only (the harness has none by default)."""
    from fakediscord import payloads as pl

    server = h.server
    member_id = h.user(user)["id"]

    def grant() -> None:  # on the server's loop, where its state lives
        role_id = server.snowflake()
        permissions = pl.EVERYONE_PERMISSIONS | MANAGE_GUILD
        server.roles[role_id] = pl.role(role_id, "Server Manager", permissions, 1)
        server.members[member_id]["roles"].append(role_id)

    h._call(grant)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("harness", type=Path, help="path to the shared harness folder")
    parser.add_argument("--data", type=Path, help="folder of conference .txt lists to ingest first")
    parser.add_argument("--reconnects", type=int, default=3)
    args = parser.parse_args()
    harness = load_harness(args.harness)
    from fakediscord import server as server_module

    fault = FollowupFault()
    fault.install(server_module.FakeDiscord)

    _, env = bot_workdir("faults", PAPERBOT_COOLDOWN_QUESTIONS="1000", PAPERBOT_LOG_LEVEL="INFO")
    log_file = Path(env["PAPERBOT_LOG_FILE"])
    if args.data:
        ingest(args.data, env)

    check = Check()
    with harness.Harness(users=("alice", "bob", "carol", "dave")) as h:
        add_manager(h, "carol")
        env["PAPERBOT_OWNER_IDS"] = h.user("dave")["id"]
        launch(h, env)
        try:
            reconnects(h, check, args.reconnects)
            deadline(h, check, log_file)
            dead_token(h, check, log_file, server_module)
            failed_followup(h, check, fault, log_file)
            counts = access(h, check)
            final = h.slash("ask", question="which papers study MoE routing?").result(timeout=15)
            check.expect(answered(final), "the bot still answers at the end")
            alive = h.process is not None and h.process.poll() is None
            check.expect(alive, "the bot process is still running")
        finally:
            violations = h.violations()
            output = h.bot_output()
        h.stop_bot()

    rules = collections.Counter(v["rule"] for v in violations)
    print(f"\n== harness violations by rule: {dict(rules)}")
    unexpected = [v for v in violations if v["rule"] not in EXPECTED_RULES]
    for v in unexpected:
        print(f"  UNEXPECTED {v['level']} {v['rule']}: {v['message']}")
    check.expect(not unexpected, "no violation other than the forced faults'")
    check.expect(rules.get("already_acknowledged", 0) == 0, "never acknowledged twice")
    logged = log_file.read_text(errors="replace") if log_file.exists() else output
    tracebacks = logged.count("Traceback")
    errors = [line for line in logged.splitlines() if " ERROR " in line]
    # The one ERROR expected: the failed follow-up's apology reference (with its traceback).
    check.expect(
        len(errors) == 1 and "error " in errors[0] and tracebacks == 1,
        f"bot log: {len(errors)} ERROR line(s), {tracebacks} traceback(s) (1 and 1 expected)",
    )
    print(f"\n== access cases: {counts}")
    return check.summary()


if __name__ == "__main__":
    raise SystemExit(main())
