"""End-to-end check of issue 12 (research servers) with the real `paperbot run` process against
the shared fake Discord: watches by DM and to a channel fire exactly once after a `paperbot
ingest` run in another process while the bot runs, and never for an unrelated watch; /shortlist,
/trending, the four export formats and /forget-me work; zero violations, zero pings.

Not collected by pytest (it needs the shared harness). Usage:

    .venv/bin/python tools/e2e/research_check.py ../shared/harness
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from harness import PAPERBOT, ROOT, Check, bot_workdir, button, last, launch, load_harness, texts

MOE = (
    "Mixture of experts (MoE) layers route each token to a few experts, but learned routing "
    "collapses onto a handful of experts. We propose balanced expert routing for sparse "
    "mixture of experts models, a router that keeps every expert busy, and show that our "
    "mixture of experts routing improves perplexity at equal compute."
)
UNRELATED = "Diffusion models generate video frames with temporal attention across long clips."
DIGEST_TITLE = "New papers for your watch"


def digests(h: Any, channel: str) -> list[dict[str, Any]]:
    return [
        m
        for m in h.messages_in(channel)
        if any((e.get("title") or "").startswith(DIGEST_TITLE) for e in m.get("embeds") or [])
    ]


def watches(h: Any, check: Check, env: dict[str, str], workdir: Path) -> None:
    print("\n== watches")
    dm = h.slash("watch", query="mixture of experts routing", user="alice").result(timeout=10)
    check.expect(dm.ephemeral and "by DM" in texts(last(dm)), "/watch by DM saved (private)")
    refused = h.slash(
        "watch", {"query": "mixture of experts", "channel": "bot-test"}, user="bob"
    ).result(timeout=10)
    check.expect("Manage Server" in texts(last(refused)), "/watch channel: moderators refused")
    chan = h.slash(
        "watch", {"query": "mixture of experts", "channel": "bot-test"}, user="owner"
    ).result(timeout=10)
    check.expect("Watch" in texts(last(chan)) and " in <#" in texts(last(chan)), "/watch channel")
    other = h.slash("watch", query="protein folding structure", user="bob").result(timeout=10)
    check.expect("by DM" in texts(last(other)), "/watch unrelated saved")

    new = workdir / "new.txt"
    new.write_text(f"Later 2026 papers\n\n{UNRELATED}\n\n{MOE}\n", encoding="utf-8")
    out = subprocess.run(
        [*PAPERBOT, "ingest", str(new)],
        env={**os.environ, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    check.expect(out.returncode == 0, f"paperbot ingest while the bot runs: {out.stdout[-200:]}")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not (digests(h, "dm:alice") and digests(h, "bot-test")):
        time.sleep(0.5)
    time.sleep(3.0)  # a few more delivery rounds: nothing may be sent twice
    to_alice, to_channel = digests(h, "dm:alice"), digests(h, "bot-test")
    check.expect(len(to_alice) == 1, f"DM watch: exactly one digest ({len(to_alice)})")
    check.expect(len(to_channel) == 1, f"channel watch: exactly one digest ({len(to_channel)})")
    check.expect(not digests(h, "dm:bob"), "unrelated watch: no digest")
    for message in to_alice + to_channel:
        check.expect("later2026-2" in texts(message), "digest names the MoE paper")
        check.expect("later2026-1" not in texts(message), "digest leaves out the unrelated one")
    listed = h.slash("watches", user="alice").result(timeout=10)
    check.expect("last fired" in texts(last(listed)), "/watches: last fired shown")


def shortlist_and_exports(h: Any, check: Check) -> None:
    print("\n== shortlist, exports, trending")
    refused = h.slash("shortlist add", id="icml2026-13", user="alice").result(timeout=10)
    check.expect("Manage Messages" in texts(last(refused)), "/shortlist add: members refused")
    added = h.slash("shortlist add", id="icml2026-13", note="for Friday", user="bob").result(
        timeout=10
    )
    check.expect("Added" in texts(last(added)) and not added.ephemeral, "/shortlist add (public)")
    shown = h.slash("shortlist show", user="alice").result(timeout=10)
    check.expect("added by" in texts(last(shown)) and not shown.ephemeral, "/shortlist show")
    h.slash("save", id="icml2026-13", user="alice").result(timeout=10)
    for fmt in ("md", "txt", "bibtex", "csv"):
        for name, options in (("saved", {"export": fmt}), ("shortlist export", {"format": fmt})):
            result = h.slash(name, options, user="alice").result(timeout=10)
            attachments = (last(result) or {}).get("attachments") or []
            check.expect(bool(attachments), f"/{name} {fmt}: file attached")
    h.slash("paper", id="icml2026-13", user="alice").result(timeout=10)
    time.sleep(0.5)
    trending = h.slash("trending", user="bob").result(timeout=10)
    check.expect("icml2026-13" in texts(last(trending)), "/trending lists the opened paper")


def forget(h: Any, check: Check) -> None:
    print("\n== privacy")
    shown = h.slash("privacy", user="alice").result(timeout=10)
    check.expect(shown.ephemeral and "watch" in texts(last(shown)), "/privacy: private summary")
    asked = h.slash("forget-me", user="alice").result(timeout=10)
    confirm = button(last(asked), "Delete everything")
    check.expect(confirm is not None, "/forget-me: confirmation button")
    if confirm is not None:
        done = h.click(last(asked), confirm["custom_id"], user="alice").result(timeout=10)
        check.expect("Nothing about you remains" in texts(last(done)), "/forget-me: deleted")
    after = h.slash("privacy", user="alice").result(timeout=10)
    check.expect("stores nothing about you" in texts(last(after)), "/privacy after: nothing")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("harness", type=Path, help="path to the shared harness folder")
    args = parser.parse_args()
    harness = load_harness(args.harness)
    workdir, env = bot_workdir(
        "research", PAPERBOT_COOLDOWN_QUESTIONS="1000", PAPERBOT_WATCH_POLL_SECONDS="1"
    )
    check = Check()
    with harness.Harness() as h:
        env["PAPERBOT_OWNER_IDS"] = h.user("owner")["id"]
        launch(h, env)
        try:
            watches(h, check, env, workdir)
            shortlist_and_exports(h, check)
            forget(h, check)
        finally:
            violations = h.violations()
            output = h.bot_output()
        h.stop_bot()
    for violation in violations:
        print(f"violation: {violation}")
    errors = [line for line in output.splitlines() if " ERROR " in line or "Traceback" in line]
    for line in errors[:20]:
        print(f"bot error: {line}")
    print(f"\n{len(violations)} violations, {len(errors)} error lines")
    failed = check.summary()
    return 1 if failed or violations or errors else 0


if __name__ == "__main__":
    sys.exit(main())
