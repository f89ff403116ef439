"""SQL written once for both backends: named parameters (`:name`) and `{word}`s a dialect fills.

Each query is one string. A `Dialect` turns it into its backend's text, once per string
(cached): `:name` becomes `?` (SQLite, one per occurrence) or `$n` (PostgreSQL, one number per
name), and `{word}` becomes what the schemas really spell differently (SQLite's implicit rowid
is PostgreSQL's `key` column; the ordering collation). `Query.args` binds values by name in the
order the text wants them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

# `::bigint` (a PostgreSQL cast) is not a parameter: the second colon follows the first.
_PARAMETER = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_WORD = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True, slots=True)
class Query:
    """One query in one backend's SQL, and the parameter names its placeholders stand for."""

    text: str
    names: tuple[str, ...]

    def args(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        """The values in placeholder order; KeyError names a parameter the caller left out."""
        return tuple(values[name] for name in self.names)


@dataclass(frozen=True, slots=True, eq=False)
class Dialect:
    """What one backend spells its own way. `numbered`: `$1, $2…` instead of `?`."""

    name: str
    numbered: bool
    words: Mapping[str, str] = field(default_factory=dict)

    def query(self, sql: str) -> Query:
        return _compile(self, sql)


@lru_cache(maxsize=512)
def _compile(dialect: Dialect, sql: str) -> Query:
    text = _WORD.sub(lambda match: dialect.words[match.group(1)], sql)
    names: list[str] = []

    def placeholder(match: re.Match[str]) -> str:
        name = match.group(1)
        if not dialect.numbered:
            names.append(name)
            return "?"
        if name not in names:
            names.append(name)
        return f"${names.index(name) + 1}"

    text = _PARAMETER.sub(placeholder, text)
    return Query(text, tuple(names))


# Now as text, UTC with milliseconds and 'Z', the same on both backends.
SQLITE_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
# clock_timestamp(), not now(): two rows written in one transaction get their own times.
POSTGRES_NOW = "to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"

SQLITE = Dialect(
    "sqlite",
    numbered=False,
    words={
        "key": "rowid",  # papers' implicit rowid is the paper key
        "member_key": "paper_rowid",
        "binary": "",  # SQLite's default collation orders by code point already
        "now": SQLITE_NOW,
        "int64": "INTEGER",
    },
)
POSTGRES = Dialect(
    "postgres",
    numbered=True,
    words={
        "key": "key",
        "member_key": "paper_key",
        "binary": ' COLLATE "C"',  # the database's locale would order otherwise
        "now": POSTGRES_NOW,
        "int64": "BIGINT",
    },
)
