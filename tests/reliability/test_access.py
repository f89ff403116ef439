"""Issue 5 §5 (engine and command-line side): a warning when .env is readable by others, and a
canary token that never shows in output, error messages, tracebacks, logs or `stats`."""

from __future__ import annotations

import io
import logging
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from bot.logs import FORMAT, RedactToken
from config.settings import Settings, SettingsError, env_file_warning, load_settings
from tests.reliability.conftest import Base
from tests.reliability.helpers import abstracts, record, run_cli, run_cli_here, write_list

# Shaped like a real token (so shape-based redaction is exercised too) and easy to grep for.
CANARY = "MTAxMjM0NTY3ODkwMTIzNDU2Nzg5.GcAnRy.canaryXYZcanaryXYZcanaryXYZcanary12"
PLAIN_CANARY = "canary-XYZ-0123456789"


@pytest.mark.parametrize(
    ("mode", "warns"),
    [(0o600, False), (0o400, False), (0o644, True), (0o640, True), (0o604, True), (0o666, True)],
)
def test_env_file_warning(tmp_path: Path, mode: int, warns: bool) -> None:
    env = tmp_path / ".env"
    env.write_text(f"PAPERBOT_DISCORD_TOKEN={CANARY}\n")
    env.chmod(mode)
    warning = env_file_warning(env)
    if warns:
        assert warning is not None
        assert str(env) in warning and "chmod 600" in warning and f"{mode:03o}" in warning
        assert CANARY not in warning
    else:
        assert warning is None
    record("access", f".env mode {mode:03o}: {'warned' if warns else 'quiet'}")


def test_env_file_warning_without_a_file(tmp_path: Path) -> None:
    assert env_file_warning(tmp_path / ".env") is None
    (tmp_path / "dir").mkdir()
    assert env_file_warning(tmp_path / "dir") is None


def _write_env(base: Base, mode: int, *lines: str) -> Path:
    env = base.workdir / ".env"
    env.write_text("".join(f"{line}\n" for line in lines))
    env.chmod(mode)
    return env


def test_cli_warns_at_start_about_a_readable_env(base_db_path: Path, tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(f"PAPERBOT_DISCORD_TOKEN={CANARY}\n")
    env.chmod(0o644)
    loud = run_cli(tmp_path, base_db_path, "stats")
    assert loud.returncode == 0, loud.stderr
    assert loud.stderr.startswith("paperbot: warning: .env can be read by other users (mode 644)")
    env.chmod(0o600)
    quiet = run_cli(tmp_path, base_db_path, "stats")
    assert quiet.returncode == 0 and quiet.stderr == ""
    for result in (loud, quiet):
        assert CANARY not in result.stdout + result.stderr
    record("access", "`paperbot stats` warns about a 644 .env, not a 600 one", cases=2)


@pytest.fixture
def base_db_path(base: Base) -> Path:
    return base.db_path


def _assert_no_canary(result: object, *canaries: str) -> None:
    text = f"{result}"  # CompletedProcess repr holds args, stdout and stderr
    for canary in canaries:
        assert canary not in text, text


# Each: extra environment, .env lines, expected exit code, text stderr must hold.
FAILURES: dict[str, tuple[dict[str, str], list[str], int, str]] = {
    "invalid setting next to the token": (
        {"PAPERBOT_DISCORD_TOKEN": CANARY, "PAPERBOT_BM25_B": "7"},
        [],
        2,
        "PAPERBOT_BM25_B",
    ),
    "token pasted into the wrong setting": (
        {"PAPERBOT_DISCORD_TOKEN": CANARY, "PAPERBOT_DEV_GUILD_ID": CANARY},
        [],
        2,
        "PAPERBOT_DEV_GUILD_ID",
    ),
    "plain token pasted into the wrong setting": (
        {"PAPERBOT_DISCORD_TOKEN": PLAIN_CANARY, "PAPERBOT_OWNER_IDS": PLAIN_CANARY},
        [],
        2,
        "PAPERBOT_OWNER_IDS",
    ),
    ".env with the token and a bad value": (
        {},
        [f"PAPERBOT_DISCORD_TOKEN={CANARY}", "PAPERBOT_MAX_RESULTS=lots"],
        2,
        "PAPERBOT_MAX_RESULTS",
    ),
    ".env token copied into another .env value": (
        {},
        [f"PAPERBOT_DISCORD_TOKEN={PLAIN_CANARY}", f"PAPERBOT_LOG_LEVEL={PLAIN_CANARY}"],
        2,
        "PAPERBOT_LOG_LEVEL",
    ),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_canary_never_printed_on_a_settings_failure(base: Base, case: str) -> None:
    extra, env_lines, code, expected = FAILURES[case]
    if env_lines:
        _write_env(base, 0o600, *env_lines)
    # In process: settings fail before a store or thread exists, so the output ends with main.
    result = run_cli_here(base.workdir, base.db_path, "stats", **extra)
    assert result.returncode == code, result
    assert expected in result.stderr and "Traceback" not in result.stderr
    _assert_no_canary(result, CANARY, PLAIN_CANARY)
    record("access", f"canary, settings failure: {case}")


def _corrupt(db_path: Path) -> None:
    """Garbage over the pages after the schema: opening works, reading papers fails. The same
    garbage every run (seeded), so every run takes the same path through the store."""
    with sqlite3.connect(db_path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = db_path.stat().st_size
    with db_path.open("r+b") as file:
        file.seek(size // 2)
        file.write(random.Random(27).randbytes(size - size // 2))


@pytest.mark.parametrize("command", [["stats"], ["ask", "mixture experts"], ["paper", "x-1"]])
async def test_canary_never_printed_when_a_command_crashes(
    base: Base, tmp_path: Path, command: list[str]
) -> None:
    """Forced failures inside commands: a database that is not SQLite, one that is a folder,
    and one whose pages are garbage (SQLite reports it only when a read reaches them)."""
    await base.engine.close()  # everything checkpointed into the file copied below
    env = {"PAPERBOT_DISCORD_TOKEN": CANARY}
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database" * 100)
    folder = tmp_path / "folder.db"
    folder.mkdir()
    damaged = tmp_path / "damaged.db"
    shutil.copyfile(base.db_path, damaged)
    for path in (junk, folder, damaged):
        if path == damaged:
            _corrupt(path)
        result = run_cli(tmp_path, path, *command, **env)
        _assert_no_canary(result, CANARY)
        assert result.returncode == 1, result
        assert result.stderr.startswith("paperbot: ") and str(path) in result.stderr, result
        assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1
    record("access", f"canary, crashing `paperbot {command[0]}` on 3 broken databases", cases=3)


@pytest.mark.slow
async def test_canary_never_in_stats_or_ingest_output(base: Base) -> None:
    await base.engine.close()
    good = write_list(base.workdir / "good.txt", abstracts(5, seed=70))
    bad = base.workdir / "bad.txt"
    bad.write_bytes(b"\x00\xff" * 100)
    _write_env(base, 0o600, f"PAPERBOT_DISCORD_TOKEN={CANARY}")
    for args in (("stats",), ("ingest", str(good), str(bad)), ("collections",)):
        result = run_cli(base.workdir, base.db_path, *args, PAPERBOT_LOG_LEVEL="DEBUG")
        assert result.returncode in (0, 1), result
        _assert_no_canary(result, CANARY)
    record("access", "canary absent from stats, ingest (with a bad file), collections", cases=3)


def test_settings_never_show_the_token(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no developer's .env
    (tmp_path / "empty.toml").write_text("")
    monkeypatch.setenv("PAPERBOT_CONFIG", str(tmp_path / "empty.toml"))
    monkeypatch.setenv("PAPERBOT_DISCORD_TOKEN", CANARY)
    settings = load_settings()
    for text in (
        repr(settings),
        str(settings),
        str(settings.model_dump()),
        settings.model_dump_json(),
    ):
        assert CANARY not in text
    monkeypatch.setenv("PAPERBOT_COOLDOWN_QUESTIONS", CANARY)
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert CANARY not in str(raised.value) and "COOLDOWN_QUESTIONS" in str(raised.value)
    record("access", "canary absent from Settings repr/dump and validation errors", cases=2)


def test_log_records_are_redacted() -> None:
    """The bot's log filter: the token in a message, its arguments or a traceback is replaced."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(RedactToken(PLAIN_CANARY))
    logger = logging.getLogger("paperbot.reliability.canary")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.error("login with %s failed", PLAIN_CANARY)
        logger.warning("token-shaped text %s", CANARY)
        try:
            raise RuntimeError(f"gateway refused {PLAIN_CANARY}")
        except RuntimeError:
            logger.exception("crash")
    finally:
        logger.removeHandler(handler)
    output = stream.getvalue()
    assert "[token]" in output and "RuntimeError" in output
    assert PLAIN_CANARY not in output and CANARY not in output
    record("access", "canary in log message, arguments and traceback redacted", cases=3)


def test_settings_from_a_readable_env_still_load(tmp_path: Path) -> None:
    """The warning is a warning: the bot still starts with a 644 .env."""
    env = tmp_path / ".env"
    env.write_text(f"PAPERBOT_DISCORD_TOKEN={CANARY}\n")
    env.chmod(0o644)
    settings = Settings(_env_file=env)  # type: ignore[call-arg]
    assert settings.discord_token is not None
    assert settings.discord_token.get_secret_value() == CANARY
