"""Logging: configured once, discord.http at WARNING, the token never written."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.logs import RedactToken, configure_logging
from config.settings import Settings

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.abcdefghijklmnopqrstuvwxyz0123456789AB"


def ours(root: logging.Logger) -> list[logging.Handler]:
    return [h for h in root.handlers if type(h).__name__ != "LogCaptureHandler"]


@pytest.fixture
def clean_root() -> Iterator[logging.Logger]:
    root = logging.getLogger()
    before, level = ours(root), root.level
    for handler in before:
        root.removeHandler(handler)
    root.__dict__.pop("_paperbot_configured", None)
    yield root
    for handler in ours(root):
        root.removeHandler(handler)
        handler.close()
    for handler in before:
        root.addHandler(handler)
    root.setLevel(level)
    root.__dict__.pop("_paperbot_configured", None)


def test_redacts_the_token_and_token_shapes() -> None:
    redact = RedactToken("plain-secret")
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "using %s and %s", ("plain-secret", TOKEN), None
    )
    redact.filter(record)
    assert record.getMessage() == "using [token] and [token]"


def test_configure_once_with_rotating_file(clean_root: logging.Logger, tmp_path: Path) -> None:
    log_file = tmp_path / "logs" / "paperbot.log"
    settings = Settings(_env_file=None, discord_token=TOKEN, log_file=log_file)  # type: ignore[call-arg]
    configure_logging(settings)
    configure_logging(settings)
    assert len(ours(clean_root)) == 2
    assert logging.getLogger("discord.http").level == logging.WARNING
    logging.getLogger("paperbot.test").warning("token is %s", TOKEN)
    try:
        raise RuntimeError(f"failed with {TOKEN}")
    except RuntimeError:
        logging.getLogger("paperbot.test").exception("boom")
    for handler in clean_root.handlers:
        handler.flush()
    written = log_file.read_text()
    assert TOKEN not in written
    assert "token is [token]" in written and "RuntimeError: failed with [token]" in written


URL = "postgresql://paperbot:p%40ss-W0rd@db.internal:5432/paperbot"


def test_redacts_database_passwords_in_urls_queries_and_decoded() -> None:
    redact = RedactToken(None, ["p%40ss-W0rd", "p@ss-W0rd"])
    for given, expected in [
        (f"connecting to {URL}", "connecting to postgresql://paperbot:[password]@db.internal"),
        ("auth failed for p@ss-W0rd", "auth failed for [password]"),
        (
            "postgres://u@h/db?sslmode=x&password=other1",
            "postgres://u@h/db?sslmode=x&password=[password]",
        ),
        # Any URL's password, not only the configured one's.
        ("redis://cache:hunter2@10.0.0.1/0", "redis://cache:[password]@10.0.0.1/0"),
    ]:
        record = logging.LogRecord("x", logging.WARNING, __file__, 1, "%s", (given,), None)
        redact.filter(record)
        assert record.getMessage().startswith(expected), record.getMessage()
        assert "W0rd" not in record.getMessage() and "hunter2" not in record.getMessage()


def test_the_database_password_never_reaches_the_log_file(
    clean_root: logging.Logger, tmp_path: Path
) -> None:
    log_file = tmp_path / "paperbot.log"
    settings = Settings(_env_file=None, database_url=URL, log_file=log_file)  # type: ignore[call-arg]
    configure_logging(settings)
    log = logging.getLogger("paperbot.test")
    log.warning("store at %s", URL)
    log.warning("server said: password authentication failed (p@ss-W0rd)")
    try:
        raise ConnectionError(f"cannot connect: {URL}")
    except ConnectionError:
        log.exception("boom")
    for handler in clean_root.handlers:
        handler.flush()
    written = log_file.read_text()
    assert "ss-W0rd" not in written
    assert written.count("[password]") == 3
    assert "ConnectionError: cannot connect: postgresql://paperbot:[password]@" in written
