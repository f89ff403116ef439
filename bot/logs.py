"""Logging, configured once at the entry point: console, optional rotating file, and never the
token or the database password.

Libraries (and the rest of paperbot) only call `logging.getLogger(__name__)`.
"""

from __future__ import annotations

import logging
import logging.handlers
import re

from config.settings import TOKEN_SHAPE, Settings, url_secrets

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
_MARK = "_paperbot_configured"
# The password of any URL written out (scheme://user:password@host), and `password=` in a
# query string: a URL from somewhere else (an error, a library) is covered too.
_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s/@:]*:)[^\s/@]+@")
_QUERY_PASSWORD = re.compile(r"(?i)([?&]password=)[^&\s]+")


class RedactToken(logging.Filter):
    """Replace the token (and anything token-shaped) and the database password (and any URL's
    password) in a record's final message and traceback."""

    def __init__(self, token: str | None, passwords: list[str] | None = None) -> None:
        super().__init__()
        self.token = token or None
        # Longest first, so "p%40ss" goes whole before its decoded "p@ss" could split it.
        self.passwords = sorted(filter(None, passwords or []), key=len, reverse=True)

    def redact(self, text: str) -> str:
        if self.token:
            text = text.replace(self.token, "[token]")
        text = _URL_PASSWORD.sub(r"\1[password]@", text)
        text = _QUERY_PASSWORD.sub(r"\1[password]", text)
        for password in self.passwords:
            text = text.replace(password, "[password]")
        return TOKEN_SHAPE.sub("[token]", text)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = self.redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and record.exc_info[1] is not None:
            # Formatters reuse a cached exc_text, so the traceback is redacted here.
            text = record.exc_text or logging.Formatter().formatException(record.exc_info)
            record.exc_text = self.redact(text)
        elif record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        return True


def redactor(settings: Settings) -> RedactToken:
    """The filter for every handler paperbot installs: the token and the database password."""
    token = settings.discord_token.get_secret_value() if settings.discord_token else None
    passwords: list[str] = []
    if settings.database_url is not None:
        try:
            passwords = url_secrets(settings.database_url.get_secret_value())
        except ValueError:
            passwords = []  # the settings refuse such a URL; nothing to find in it
    return RedactToken(token, passwords)


def configure_logging(settings: Settings) -> None:
    """Set up the root logger once (repeat calls do nothing)."""
    root = logging.getLogger()
    if getattr(root, _MARK, False):
        return
    redact = redactor(settings)
    formatter = logging.Formatter(FORMAT)
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    if settings.log_file is not None:
        settings.log_file.parent.mkdir(parents=True, exist_ok=True)
        handlers.append(
            logging.handlers.RotatingFileHandler(
                settings.log_file, maxBytes=5_000_000, backupCount=5, encoding="utf-8"
            )
        )
    for handler in handlers:
        handler.setFormatter(formatter)
        handler.addFilter(redact)
        root.addHandler(handler)
    root.setLevel(settings.log_level)
    logging.getLogger("discord").setLevel(max(logging.INFO, root.level))
    logging.getLogger("discord.http").setLevel(logging.WARNING)
    setattr(root, _MARK, True)
