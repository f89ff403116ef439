"""Logging, configured once at the entry point: console, optional rotating file, no token ever.

Libraries (and the rest of paperbot) only call `logging.getLogger(__name__)`.
"""

from __future__ import annotations

import logging
import logging.handlers

from config.settings import TOKEN_SHAPE, Settings

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
_MARK = "_paperbot_configured"
# Discord bot tokens: three dot-separated base64url parts.


class RedactToken(logging.Filter):
    """Replace the token (and anything token-shaped) in a record's final message."""

    def __init__(self, token: str | None) -> None:
        super().__init__()
        self.token = token or None

    def redact(self, text: str) -> str:
        if self.token:
            text = text.replace(self.token, "[token]")
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


def configure_logging(settings: Settings) -> None:
    """Set up the root logger once (repeat calls do nothing)."""
    root = logging.getLogger()
    if getattr(root, _MARK, False):
        return
    token = settings.discord_token.get_secret_value() if settings.discord_token else None
    redact = RedactToken(token)
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
