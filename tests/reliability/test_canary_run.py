"""A real `paperbot run` process never shows its token: not while it fails to reach Discord and
exits, and not when it is terminated while logging in.

Discord is replaced by a local address (tests/reliability/discord_shim), so nothing leaves the
machine: a closed port (connection refused), or a socket that reads the login request and never
answers. The second case also proves that the canary really was the token in use, since it
arrives in the request's Authorization header.
"""

from __future__ import annotations

import signal
import socket
import subprocess
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from tests.reliability.helpers import ROOT, cli_env, paperbot, record
from tests.reliability.test_access import CANARY
from tests.waits import HANG_SECONDS

SHIM = Path(__file__).resolve().parent / "discord_shim"


@contextmanager
def _bot(tmp_path: Path, port: int) -> Iterator[tuple[subprocess.Popen[bytes], dict[str, Path]]]:
    """`paperbot run` with the canary token, pointed at 127.0.0.1:port, logging at DEBUG."""
    files = {name: tmp_path / f"{name}.txt" for name in ("stdout", "stderr", "log", "shim")}
    env = cli_env(
        tmp_path / "db" / "paperbot.db",
        tmp_path,
        PAPERBOT_DISCORD_TOKEN=CANARY,
        PAPERBOT_LOG_LEVEL="DEBUG",
        PAPERBOT_LOG_FILE=str(files["log"]),
        PAPERBOT_TEST_DISCORD=f"http://127.0.0.1:{port}",
        PAPERBOT_TEST_SHIM_MARK=str(files["shim"]),
        PYTHONPATH=f"{SHIM}:{ROOT}",
    )
    with files["stdout"].open("wb") as out, files["stderr"].open("wb") as err:
        process = subprocess.Popen(paperbot("run"), cwd=tmp_path, env=env, stdout=out, stderr=err)
        try:
            yield process, files
        finally:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=HANG_SECONDS)


def _output(files: dict[str, Path]) -> str:
    assert files["shim"].read_text().startswith("http://127.0.0.1:"), "the shim did not load"
    return "\n".join(
        files[name].read_text(encoding="utf-8", errors="replace")
        for name in ("stdout", "stderr", "log")
        if files[name].exists()
    )


def test_canary_never_shown_when_discord_refuses_the_connection(tmp_path: Path) -> None:
    with closing(socket.socket()) as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with _bot(tmp_path, port) as (process, files):
        code = process.wait(timeout=HANG_SECONDS)
    output = _output(files)
    assert code != 0, output  # it cannot run without Discord, and says so by its exit code
    assert f"127.0.0.1:{port}" in output  # the connection it tried, and failed
    assert CANARY not in output
    assert "canaryXYZ" not in output  # no part of it either
    record("access", "canary: real `paperbot run`, Discord unreachable (refused), exits")


def test_canary_never_shown_when_terminated_while_logging_in(tmp_path: Path) -> None:
    with closing(socket.create_server(("127.0.0.1", 0))) as server:
        server.settimeout(HANG_SECONDS)
        port = server.getsockname()[1]
        with _bot(tmp_path, port) as (process, files):
            connection, _ = server.accept()
            with closing(connection):
                connection.settimeout(HANG_SECONDS)
                request = b""
                while b"\r\n\r\n" not in request:
                    chunk = connection.recv(65536)
                    assert chunk, "the bot closed the connection before sending its login"
                    request += chunk
                # the login request carries the canary: it is the token in use
                assert f"Authorization: Bot {CANARY}".encode() in request, request[:200]
                process.send_signal(signal.SIGTERM)
                code = process.wait(timeout=HANG_SECONDS)
    output = _output(files)
    assert code == 0, output  # SIGTERM is a normal stop: gateway closed, then the database
    assert "database closed" in output
    assert CANARY not in output
    assert "canaryXYZ" not in output
    record("access", "canary: real `paperbot run`, SIGTERM while logging in")
