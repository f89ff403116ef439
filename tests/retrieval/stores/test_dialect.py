"""One `:name` query, rewritten per backend: placeholders, repeats, casts and words."""

from __future__ import annotations

import pytest

from retrieval.stores.dialect import POSTGRES, POSTGRES_NOW, SQLITE, SQLITE_NOW

SQL = "UPDATE t SET at = {now}, a = :a WHERE {key} = :k AND b = :a AND c::bigint > 0"


def test_sqlite_gets_one_question_mark_per_occurrence() -> None:
    query = SQLITE.query(SQL)
    assert query.text == (
        f"UPDATE t SET at = {SQLITE_NOW}, a = ? WHERE rowid = ? AND b = ? AND c::bigint > 0"
    )
    assert query.args({"a": 1, "k": 2}) == (1, 2, 1)


def test_postgres_numbers_each_name_once_and_leaves_casts_alone() -> None:
    query = POSTGRES.query(SQL)
    assert query.text == (
        f"UPDATE t SET at = {POSTGRES_NOW}, a = $1 WHERE key = $2 AND b = $1 AND c::bigint > 0"
    )
    assert query.args({"a": 1, "k": 2}) == (1, 2)


def test_a_missing_value_or_unknown_word_is_an_error() -> None:
    with pytest.raises(KeyError):
        POSTGRES.query(SQL).args({"a": 1})
    with pytest.raises(KeyError):
        SQLITE.query("SELECT {nonsense}")
