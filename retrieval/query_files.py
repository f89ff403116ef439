"""The one reader for files of queries: BEIR `queries.jsonl` and `query_id<TAB>query` lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from retrieval.errors import EvaluationError


def read_query_file(path: Path) -> Iterator[tuple[str, str]]:
    """(query id, text) per non-blank line; EvaluationError names the file and line if bad."""
    try:
        file = path.open(encoding="utf-8-sig")
    except FileNotFoundError:
        raise EvaluationError(f"{path}: no such file") from None
    except OSError as error:
        raise EvaluationError(f"{path}: cannot read it ({error.strerror})") from None
    with file:
        try:
            for number, raw in enumerate(file, start=1):
                line = raw.strip()
                if line:
                    yield _parse(path, number, line)
        except UnicodeDecodeError:
            raise EvaluationError(f"{path}: is not UTF-8 text") from None


def _parse(path: Path, number: int, line: str) -> tuple[str, str]:
    if line.startswith("{"):
        try:
            record = json.loads(line)
            return str(record["_id"]), str(record["text"])
        except (json.JSONDecodeError, KeyError, TypeError):
            raise EvaluationError(
                f"{path}:{number}: expected a JSON object with _id and text"
            ) from None
    if "\t" in line:
        query_id, query = line.split("\t", 1)
        return query_id, query
    raise EvaluationError(f"{path}:{number}: expected query_id<TAB>query or a JSON object")
