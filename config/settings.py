"""Settings from PAPERBOT_* variables, a .env file and an optional TOML file, validated once.

Nothing here runs at import time: call `load_settings()` where the program starts, and build
`Settings(_env_file=None, ...)` in tests.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qs, unquote, urlsplit

from dotenv import dotenv_values
from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)
from pydantic_settings import SettingsError as SourceError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TOML = PROJECT_ROOT / "config" / "paperbot.toml"
ENV_PREFIX = "PAPERBOT_"
ENV_FILE = Path(".env")
_TOKEN_VARIABLE = f"{ENV_PREFIX}DISCORD_TOKEN"
# Discord bot tokens: three dot-separated base64url parts.
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}")


class SettingsError(Exception):
    """A setting is invalid; the message is one line naming the setting and the fix."""


def _toml_path() -> Path | None:
    named = os.environ.get(f"{ENV_PREFIX}CONFIG")
    if named:
        return Path(named)
    return DEFAULT_TOML if DEFAULT_TOML.is_file() else None


class Settings(BaseSettings):
    """Everything configurable. Environment names are the field names upper-cased with PAPERBOT_."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
    )

    # Discord
    discord_token: SecretStr | None = Field(default=None, description="The bot token.")
    dev_guild_id: int | None = Field(default=None, description="Guild to sync commands to.")
    owner_ids: Annotated[list[int], NoDecode] = Field(
        default_factory=list, description="Users allowed admin commands."
    )
    message_content_intent: bool = Field(
        default=False, description="Ask for the privileged intent to answer unmentioned questions."
    )
    chat_channel_ids: Annotated[list[int], NoDecode] = Field(
        default_factory=list, description="Channels where plain questions are answered."
    )
    cooldown_questions: int = Field(default=5, ge=1, le=1000)
    cooldown_seconds: float = Field(default=30.0, gt=0, le=3600)
    chat_channel_answers: int = Field(
        default=10, ge=1, le=1000, description="Most chat answers per channel per window."
    )
    chat_channel_seconds: float = Field(
        default=60.0, gt=0, le=3600, description="The per-channel chat answer window."
    )
    chat_repeat_seconds: float = Field(
        default=60.0,
        ge=0,
        le=3600,
        description="The same question from the same user within this is answered once.",
    )
    public_answers: bool = Field(default=True, description="Answers visible to the channel.")
    shard_count: int | None = Field(
        default=None, ge=1, le=10_000, description="Shards in the deployment; unset: Discord's."
    )
    shard_ids: Annotated[list[int], NoDecode] = Field(
        default_factory=list, description="Shards this process runs, e.g. `0,1` or `0-3`."
    )
    max_upload_bytes: int = Field(default=5_000_000, ge=1_000, le=25_000_000)

    # Storage
    db_path: Path = Field(default=PROJECT_ROOT / "data" / "paperbot.db")
    database_url: SecretStr | None = Field(
        default=None,
        description="postgresql://user:password@host:port/database; unset: SQLite at db_path.",
    )
    seeds_dir: Path = Field(default=PROJECT_ROOT / "seeds")
    max_list_file_bytes: int = Field(
        default=512 * 1024 * 1024, ge=1_000, description="Largest list file ingest reads."
    )
    max_list_papers: int = Field(
        default=200_000, ge=1, description="Most abstracts one list file may hold."
    )
    index_dir: Path | None = Field(
        default=None, description="Folder for index files; unset: <database>.index beside it."
    )

    # Ranking
    ranking: Literal["enhanced", "exact"] = "enhanced"
    bm25_k1: float = Field(default=1.5, gt=0, le=10)  # docs/tuning.md: best on SciFact train
    bm25_b: float = Field(default=0.75, ge=0, le=1)
    bm25_epsilon: float = Field(default=0.25, ge=0, le=1)
    acronym_weight: float = Field(default=0.3, ge=0, le=1, description="Weight of acronym forms.")
    proximity_weight: float = Field(default=0.5, ge=0, le=5, description="Word-proximity bonus.")
    every_word_weight: float = Field(
        default=0.1,
        ge=0,
        le=5,
        description="Bonus, as a share of the best score, for a paper holding every query word.",
    )

    # Answers
    answer_results: int = Field(default=3, ge=1, le=10)
    search_results: int = Field(default=5, ge=1, le=10)
    max_results: int = Field(default=50, ge=1, le=1000)
    excerpt_chars: int = Field(default=320, ge=80, le=1000)
    max_query_chars: int = Field(default=2000, ge=50, le=100_000)
    max_query_terms: int = Field(default=64, ge=1, le=1024)

    corpus_poll_seconds: float = Field(
        default=5.0, gt=0, le=3600, description="How often a running bot checks for new papers."
    )
    heartbeat_seconds: float = Field(
        default=15.0,
        gt=0,
        le=3600,
        description="How often a running bot records itself for `paperbot status`.",
    )
    node_retention_hours: float = Field(
        default=24.0,
        gt=0,
        le=24 * 365,
        description="A process silent this long is dropped from `paperbot status` and /stats.",
    )

    # Conversation
    conversation_idle_minutes: float = Field(
        default=30.0,
        gt=0,
        le=7 * 24 * 60,
        description="After this, follow-ups need a new question.",
    )

    # Watches (docs/watches.md: the matching rule, its precision and recall)
    watch_max_per_user: int = Field(default=10, ge=0, le=1000)
    watch_max_per_guild: int = Field(default=200, ge=0, le=100_000)
    watch_matcher: Literal["model", "words"] = Field(
        default="model",
        description="model: the fitted watch model decides; words: the all-words rule below.",
    )
    watch_min_probability: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="The model fires at this probability; unset: the threshold fitted with it.",
    )
    watch_top_k: int = Field(
        default=10,
        ge=1,
        le=1000,
        description="Words rule: a new paper holding every query word fires when it ranks this "
        "high...",
    )
    watch_min_score: float = Field(
        default=0.35,
        ge=0,
        le=1,
        description="...or when its normalised BM25 score for the query reaches this.",
    )
    watch_poll_seconds: float = Field(
        default=15.0, gt=0, le=3600, description="How often the bot looks for digests to send."
    )

    # Server reading lists (/shortlist): Manage Messages, or this role, may add and remove.
    shortlist_curator_role_id: int | None = Field(
        default=None, description="A role that may curate /shortlist besides Manage Messages."
    )

    # Logging
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log_file: Path | None = None

    @property
    def index_location(self) -> Path:
        """PAPERBOT_INDEX_DIR, or a folder named after the SQLite database, beside it."""
        if self.index_dir is not None:
            return self.index_dir
        return self.db_path.with_name(self.db_path.name + ".index")

    @property
    def owns_shard_zero(self) -> bool:
        """This process runs shard 0: it gets the DMs and syncs the commands for everyone."""
        return not self.shard_ids or 0 in self.shard_ids

    @field_validator("owner_ids", "chat_channel_ids", mode="before")
    @classmethod
    def _split_id_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part for part in value.replace(",", " ").split() if part]
        if isinstance(value, int):
            return [value]
        return value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _split_shard_ids(cls, value: Any) -> Any:
        if isinstance(value, int):
            return [value]
        if not isinstance(value, str):
            return value
        ids: list[int] = []
        for part in value.replace(",", " ").split():
            first, dash, last = part.partition("-")
            if not (first.isdigit() and (not dash or last.isdigit())):
                raise ValueError(f"expected shard numbers like `0,1` or `0-3`, not `{part}`")
            ids.extend(range(int(first), int(last) + 1) if dash else [int(first)])
        return ids

    @model_validator(mode="after")
    def _shards_fit(self) -> Settings:
        if self.shard_ids and self.shard_count is None:
            raise ValueError("PAPERBOT_SHARD_IDS needs PAPERBOT_SHARD_COUNT too")
        if self.shard_count is not None and any(i >= self.shard_count for i in self.shard_ids):
            raise ValueError(
                f"PAPERBOT_SHARD_IDS must be below PAPERBOT_SHARD_COUNT ({self.shard_count})"
            )
        return self

    @field_validator("database_url", mode="before")
    @classmethod
    def _check_database_url(cls, value: Any) -> Any:
        # Only the shape is checked here; whether the server answers is the store's to say.
        # Messages never include the value: it may hold a password.
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        if not isinstance(text, str):
            return value
        text = text.strip()
        if not text:
            return None  # PAPERBOT_DATABASE_URL= (empty) means unset, as for the token
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 (raises ValueError on a port that is not a number)
        except ValueError:
            raise ValueError(
                "is not a URL; use postgresql://user:password@host:port/database"
            ) from None
        if parts.scheme not in {"postgresql", "postgres"}:
            raise ValueError(
                "must start with postgresql:// (unset it to use SQLite at PAPERBOT_DB_PATH)"
            )
        if not parts.path.strip("/"):
            raise ValueError("names no database; use postgresql://user@host:port/database")
        return text

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings, dotenv_settings]
        toml = _toml_path()
        if toml is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml))
        return tuple(sources)


def env_file_warning(path: Path = ENV_FILE) -> str | None:
    """A warning to print at start if `path` (the .env, which may hold the token) can be read by
    users other than its owner; None if it is private or absent."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if not stat.S_ISREG(mode) or not mode & (stat.S_IRGRP | stat.S_IROTH):
        return None
    return (
        f"warning: {path} can be read by other users (mode {stat.S_IMODE(mode):03o}) and may "
        f"hold the Discord token; run `chmod 600 {path}`"
    )


def url_secrets(url: str) -> list[str]:
    """The password(s) a database URL holds (in its user part or `?password=`), as written and
    percent-decoded, so no message or log line repeats them. Raises ValueError if unparseable."""
    parts = urlsplit(url)
    found = [parts.password or "", *parse_qs(parts.query).get("password", [])]
    return sorted({form for secret in found if secret for form in (secret, unquote(secret))})


def _secrets() -> set[str]:
    """The token as given in the environment or .env, so no message ever repeats it."""
    found = {os.environ.get(_TOKEN_VARIABLE, "")}
    try:
        if ENV_FILE.is_file():
            found.add(dotenv_values(ENV_FILE).get(_TOKEN_VARIABLE) or "")
    except (OSError, UnicodeDecodeError):
        pass
    return {secret.strip() for secret in found if secret.strip()}


def _looks_secret(given: object) -> bool:
    if not isinstance(given, str):
        return False
    text = given.strip()
    return bool(TOKEN_SHAPE.search(text)) or any(secret in text for secret in _secrets())


def _describe(error: ValidationError, labels: Mapping[str, str]) -> str:
    first = error.errors()[0]
    message = str(first["msg"]).removeprefix("Value error, ")
    # A value given another way (a command-line flag) is named as the user gave it.
    for field, label in labels.items():
        message = message.replace(f"{ENV_PREFIX}{field.upper()}", label)
    if not first["loc"]:  # a rule across settings; its message names them
        return f"settings: {message}"
    name = ".".join(str(part) for part in first["loc"])
    given = first.get("input")
    # The token, the database URL (it may hold a password), or a token pasted into the wrong
    # setting, is never echoed.
    hidden = (
        name in {"discord_token", "database_url"} or isinstance(given, dict) or _looks_secret(given)
    )
    shown = "" if hidden else f" (got {given!r})"
    label = labels.get(name, f"setting {ENV_PREFIX}{name.upper()}")
    return f"{label}: {message}{shown}"


def load_settings(labels: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
    """Build the settings, turning every failure into one `SettingsError` line.

    `labels` names overridden fields as the user gave them (`{"shard_ids": "--shard-ids"}`),
    so an error about a command-line flag names the flag, not the environment variable.
    """
    toml = _toml_path()
    if toml is not None and not toml.is_file():
        raise SettingsError(
            f"setting {ENV_PREFIX}CONFIG: no file at {toml}; fix the path or unset it"
        )
    try:
        return Settings(**overrides)
    except ValidationError as error:
        raise SettingsError(_describe(error, labels or {})) from None
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"config file {toml}: {error}; fix the TOML syntax") from None
    except SourceError as error:
        raise SettingsError(f"settings: {error}; check the PAPERBOT_* values and .env") from None
    except UnicodeDecodeError:
        raise SettingsError(f"config file {toml} or .env is not UTF-8 text") from None
