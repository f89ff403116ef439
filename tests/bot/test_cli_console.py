"""`paperbot chat` in a real pseudo-terminal: what Ctrl-C does at the prompt."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import SEEDS

PROMPT = b"paperbot> "


class Terminal:
    """A child process on a pseudo-terminal; reads what it printed until a marker shows up."""

    def __init__(self, tmp_path: Path) -> None:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
        environment.update(
            PAPERBOT_DB_PATH=str(tmp_path / "console.db"), PAPERBOT_SEEDS_DIR=str(SEEDS)
        )
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bot", "chat"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=tmp_path,
            env=environment,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = b""

    def read_until(self, marker: bytes, count: int = 1, timeout: float = 120) -> bytes:
        """Everything printed so far, once `marker` has appeared `count` times (or on exit)."""
        deadline = time.monotonic() + timeout
        while self.seen.count(marker) < count and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 1)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                self.seen += chunk
        return self.seen

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> int:
        try:
            return self.process.wait(timeout=60)
        finally:
            os.close(self.master)


def test_ctrl_c_at_the_prompt_gives_a_fresh_prompt_and_keeps_the_next_question(
    tmp_path: Path,
) -> None:
    terminal = Terminal(tmp_path)
    try:
        terminal.read_until(PROMPT)
        terminal.type("half a quest")  # typed, then abandoned with Ctrl-C
        terminal.read_until(b"half a quest")
        # A signal that lands after the prompt is written but before input() blocks in read()
        # waits for the next key (input()'s own race; Python's REPL has it too): send again
        # until a prompt shows. A repeat is harmless: the console is at a prompt either way.
        for _ in range(60):
            terminal.process.send_signal(signal.SIGINT)
            seen = terminal.read_until(PROMPT, count=2, timeout=1)
            if seen.count(PROMPT) >= 2:
                break
        assert seen.count(PROMPT) >= 2, seen  # a fresh prompt, like a shell
        assert b"line cleared" in seen
        # Counted before typing: the answer and the next prompt can arrive in one read.
        prompts = seen.count(PROMPT)
        terminal.type("poisoning attacks on retrieval-augmented generation\n")
        seen = terminal.read_until(PROMPT, count=prompts + 1)
        assert b"matching paper" in seen, seen
        assert b"Eyes-on-Me" in seen, seen  # the question after Ctrl-C was answered, not dropped
        terminal.type("quit\n")
        terminal.read_until(b"never printed", timeout=60)  # drain the terminal until it exits
    finally:
        code = terminal.close()
    assert code == 0, terminal.seen
    assert b"Traceback" not in terminal.seen
