"""Command-line edges: JSON errors for --json, quiet broken pipes, ids that are missing.

The pipe and the password (which the bot's logging prints) run a real process; the rest run
`main()` in process (tests/inprocess.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bot.test_cli import run, run_here
from tests.conftest import SEEDS


def test_search_json_errors_are_json_with_a_failing_exit(tmp_path: Path) -> None:
    result = run_here(tmp_path, "search", "moe", "--in", "nosuchcollection", "--json")
    assert result.returncode == 1
    error = json.loads(result.stdout)["error"]
    assert "nosuchcollection" in error
    assert "Traceback" not in result.stderr


def test_paper_and_similar_without_an_id_say_what_they_need(tmp_path: Path) -> None:
    for command in ("paper", "similar"):
        result = run_here(tmp_path, command)
        assert result.returncode == 1
        assert f"{command} needs a paper id, e.g. paperbot {command} icml2026-7" in result.stderr


def test_piping_into_head_exits_quietly(tmp_path: Path) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    environment.update(PAPERBOT_DB_PATH=str(tmp_path / "cli.db"), PAPERBOT_SEEDS_DIR=str(SEEDS))
    # thousands of lines, so the writer is still printing when `head` leaves
    batch = tmp_path / "queries.tsv"
    batch.write_text("".join(f"q{n}\tmodel learning\n" for n in range(3000)))
    command = f"{sys.executable} -m bot search --batch {batch} | head -n 1; exit ${{PIPESTATUS[0]}}"
    result = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=120,
    )
    assert len(result.stdout.splitlines()) == 1
    assert result.returncode == 141  # the writer saw the broken pipe (like SIGPIPE), quietly
    assert "BrokenPipe" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("command", [("stats",), ("run",), ("ingest", "missing.txt")])
def test_the_database_password_is_never_printed(tmp_path: Path, command: tuple[str, ...]) -> None:
    # Port 9 (discard) refuses connections: the store fails to open, with one line.
    url = "postgresql://paperbot:Sup3r-S3cret@127.0.0.1:9/paperbot"
    result = run(
        tmp_path,
        *command,
        PAPERBOT_DATABASE_URL=url,
        PAPERBOT_DISCORD_TOKEN="not-a-real-token",
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "S3cret" not in output and "Traceback" not in output
    assert "PAPERBOT_DATABASE_URL" in output and "postgresql://paperbot@127.0.0.1:9/" in output
    assert result.stderr.count("\n") <= 2, result.stderr  # run logs the line, then prints it
