"""What every end-to-end script in tools/e2e/ shares: the shared fake Discord loaded from its
folder, a work folder and the bot's environment, the check tally, and readers for the messages
the harness recorded.

The scripts are run by hand against /work/shared/harness (it is not a project dependency), never
collected by pytest: `python tools/e2e/NAME_check.py ../shared/harness`. Python puts this folder
first on sys.path for a script run that way, so `from harness import ...` finds this module.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# `paperbot` of this checkout, whichever virtual environment runs the script (a worktree has none
# of its own): run from ROOT, `-m bot` imports this checkout's code.
PAPERBOT = [sys.executable, "-m", "bot"]
TOKEN_ENV = "PAPERBOT_DISCORD_TOKEN"


def load_harness(folder: Path) -> ModuleType:
    """The `fakediscord` package of the shared harness in `folder`."""
    sys.path.insert(0, str(folder.resolve()))
    return importlib.import_module("fakediscord")


def bot_workdir(prefix: str, **settings: str) -> tuple[Path, dict[str, str]]:
    """A fresh temporary folder and the PAPERBOT_* settings of a bot whose database and log file
    live in it, plus `settings` (e.g. PAPERBOT_COOLDOWN_QUESTIONS="1000")."""
    workdir = Path(tempfile.mkdtemp(prefix=f"paperbot-{prefix}-"))
    env = {
        "PAPERBOT_DB_PATH": str(workdir / "paperbot.db"),
        "PAPERBOT_LOG_FILE": str(workdir / "paperbot.log"),
        **settings,
    }
    return workdir, env


def launch(
    h: Any, env: dict[str, str], *, command: list[str] | None = None, commands: bool = True
) -> None:
    """Start `paperbot run` (or `command`) under the harness and wait until it is ready and, with
    `commands`, its commands are synced (a restart on the same tree syncs none). Two minutes at
    most: a cold kernel cache compiles first."""
    h.launch(command or [*PAPERBOT, "run"], env=env, cwd=str(ROOT), token_env=TOKEN_ENV)
    h.wait_ready(timeout=120, commands=commands)


class Check:
    """Collects results: failed expectations and acknowledgement latencies."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.ack: dict[str, list[float]] = {}
        self.count = 0

    def expect(self, ok: bool, what: str) -> None:
        self.count += 1
        mark = "ok  " if ok else "FAIL"
        print(f"  [{mark}] {what}", flush=True)
        if not ok:
            self.failures.append(what)

    def acked(self, label: str, result: Any) -> None:
        callbacks = [e for e in result.events if e["kind"] == "callback" and e.get("status") == 200]
        if callbacks:
            self.ack.setdefault(label, []).append(callbacks[0]["at"])
        at = callbacks[0]["at"] if callbacks else "-"
        self.expect(
            result.status == "acknowledged" and not result.failed,
            f"{label}: acknowledged ({result.status}, {at} s)",
        )

    def summary(self) -> int:
        """Print the tally and every failed check; the exit status (0: all passed)."""
        print(f"\n== checks: {self.count - len(self.failures)}/{self.count} passed")
        for failure in self.failures:
            print(f"  FAIL {failure}")
        return 1 if self.failures else 0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def texts(message: dict[str, Any] | None) -> str:
    """A message's content and embed text, as one string."""
    if not message:
        return ""
    parts = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{f['name']}\n{f['value']}" for f in embed.get("fields") or []]
        parts.append((embed.get("footer") or {}).get("text") or "")
    return "\n".join(parts)


def shows_later_results(message: dict[str, Any] | None) -> bool:
    """Whether a paged answer shows results after the first ones: its footer's range ("4-8 of
    31 matching papers") starts past 1."""
    found = re.search(r"\b(\d[\d,]*)(?:-\d[\d,]*)? of \d", texts(message))
    return found is not None and int(found[1].replace(",", "")) > 1


def components(message: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not message:
        return []
    return [c for row in message.get("components") or [] for c in row.get("components") or []]


def button(message: dict[str, Any] | None, label: str) -> dict[str, Any] | None:
    return next((c for c in components(message) if c.get("label") == label), None)


def select_menu(message: dict[str, Any] | None) -> dict[str, Any] | None:
    return next((c for c in components(message) if c.get("type") == 3), None)


def last(result: Any) -> dict[str, Any] | None:
    messages = result.messages
    return messages[-1] if messages else None


def public(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages everyone sees (not flagged ephemeral)."""
    return [m for m in messages if not int(m.get("flags") or 0) & 64]


def poll(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll `predicate()` from this thread (it may call the driver, unlike `h.wait_until`'s)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)


def ingest(data: Path, env: dict[str, str]) -> None:
    """`paperbot ingest` every .txt list in `data` into the database `env` names."""
    files = sorted(data.glob("*.txt"))
    if not files:
        raise SystemExit(f"no .txt lists in {data}")
    started = time.perf_counter()
    out = subprocess.run(
        [*PAPERBOT, "ingest", *map(str, files)],
        env={**os.environ, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    print(out.stdout.strip()[-800:] or out.stderr.strip()[-800:])
    if out.returncode != 0:
        raise SystemExit(f"ingest failed ({out.returncode}): {out.stderr[-2000:]}")
    print(f"ingested {len(files)} lists in {time.perf_counter() - started:.1f} s")
