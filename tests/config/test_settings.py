"""Settings: defaults, environment, TOML, and one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from config.settings import Settings, SettingsError, load_settings


def test_defaults_need_no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAPERBOT_DISCORD_TOKEN", raising=False)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.discord_token is None
    assert settings.db_path.name == "paperbot.db"
    assert settings.ranking == "enhanced"


def test_token_is_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERBOT_DISCORD_TOKEN", "canary-secret-123")
    settings = load_settings()
    assert "canary-secret-123" not in repr(settings)
    assert "canary-secret-123" not in str(settings.model_dump())
    assert settings.discord_token is not None
    assert settings.discord_token.get_secret_value() == "canary-secret-123"


def test_id_lists_accept_commas_and_spaces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERBOT_OWNER_IDS", "1, 2 3")
    assert load_settings().owner_ids == [1, 2, 3]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PAPERBOT_BM25_B", "1.5"),
        ("PAPERBOT_COOLDOWN_SECONDS", "soon"),
        ("PAPERBOT_LOG_LEVEL", "LOUD"),
    ],
)
def test_invalid_values_name_the_setting(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith(f"setting {name}:")
    assert "\n" not in message


def test_toml_file_is_read_and_env_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = tmp_path / "paperbot.toml"
    toml.write_text("bm25_k1 = 0.9\nexcerpt_chars = 200\n", encoding="utf-8")
    monkeypatch.setenv("PAPERBOT_CONFIG", str(toml))
    monkeypatch.setenv("PAPERBOT_EXCERPT_CHARS", "250")
    settings = load_settings()
    assert settings.bm25_k1 == 0.9
    assert settings.excerpt_chars == 250


def test_missing_or_broken_toml_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERBOT_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(SettingsError, match="PAPERBOT_CONFIG"):
        load_settings()
    broken = tmp_path / "broken.toml"
    broken.write_text("bm25_k1 = = 1\n", encoding="utf-8")
    monkeypatch.setenv("PAPERBOT_CONFIG", str(broken))
    with pytest.raises(SettingsError, match=r"broken\.toml"):
        load_settings()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"shard_count": 4, "shard_ids": "0-1"}, [0, 1]),
        ({"shard_count": 4, "shard_ids": "0,3"}, [0, 3]),
        ({"shard_count": 4, "shard_ids": "2 - 3"}, None),
        ({"shard_ids": "1"}, "PAPERBOT_SHARD_IDS needs PAPERBOT_SHARD_COUNT"),
        ({"shard_count": 2, "shard_ids": "0-3"}, "must be below PAPERBOT_SHARD_COUNT (2)"),
        ({"shard_count": 2, "shard_ids": "a"}, "setting PAPERBOT_SHARD_IDS: expected shard"),
    ],
)
def test_shard_ranges(given: dict[str, object], expected: list[int] | str | None) -> None:
    if isinstance(expected, list):
        settings = load_settings(_env_file=None, **given)
        assert settings.shard_ids == expected
        assert settings.owns_shard_zero is (0 in expected)
        return
    with pytest.raises(SettingsError) as raised:
        load_settings(_env_file=None, **given)
    message = str(raised.value)
    assert "\n" not in message
    if expected is not None:
        assert expected in message


def test_database_url_is_secret_and_unset_when_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgresql://bot:pw-canary-77@db.example:5432/paperbot"
    monkeypatch.setenv("PAPERBOT_DATABASE_URL", url)
    settings = load_settings()
    assert "pw-canary-77" not in repr(settings)
    assert "pw-canary-77" not in str(settings.model_dump())
    assert settings.database_url is not None
    assert settings.database_url.get_secret_value() == url
    monkeypatch.setenv("PAPERBOT_DATABASE_URL", "  ")
    assert load_settings().database_url is None


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("mysql://bot:pw-canary-77@db/paperbot", "must start with postgresql://"),
        ("postgresql://bot:pw-canary-77@db:port/paperbot", "is not a URL"),
        ("postgresql://bot:pw-canary-77@db:5432", "names no database"),
        ("pw-canary-77", "must start with postgresql://"),
    ],
)
def test_a_malformed_database_url_is_one_line_without_the_password(
    monkeypatch: pytest.MonkeyPatch, value: str, problem: str
) -> None:
    monkeypatch.setenv("PAPERBOT_DATABASE_URL", value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith("setting PAPERBOT_DATABASE_URL:")
    assert problem in message
    assert "pw-canary-77" not in message
    assert "\n" not in message


def test_the_users_exported_settings_do_not_reach_the_tests(tmp_path: Path) -> None:
    # A newcomer had PAPERBOT_DB_PATH exported from trying the bot; the defaults test failed.
    environment = {**os.environ, "PAPERBOT_DB_PATH": str(tmp_path / "mine.db")}
    environment["PAPERBOT_RANKING"] = "exact"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            f"{Path(__file__)}::test_defaults_need_no_token",
        ],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-2000:]
