"""Shared by the reliability tests and `kill_ingest.py`: synthetic corpora, database dumps,
subprocess environments, the short/long switch and the tally behind docs/reliability.md."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

from config.settings import Settings
from tests.inprocess import run_main
from tests.unprivileged import child_python

ROOT = Path(__file__).resolve().parents[2]
# PAPERBOT_LONG_RELIABILITY=1 runs the long fuzz, kill and concurrency loops (docs/reliability.md).
LONG = os.environ.get("PAPERBOT_LONG_RELIABILITY", "") not in ("", "0")
# With PAPERBOT_RELIABILITY_REPORT=FILE every test appends what it tried to FILE (JSON lines).
REPORT = os.environ.get("PAPERBOT_RELIABILITY_REPORT")

_COMMON = [
    "model",
    "learning",
    "neural",
    "network",
    "transformer",
    "attention",
    "retrieval",
    "augmented",
    "generation",
    "mixture",
    "experts",
    "routing",
    "sparse",
    "dense",
    "graph",
    "diffusion",
    "policy",
    "reinforcement",
    "reward",
    "agent",
    "language",
    "vision",
    "benchmark",
    "dataset",
    "training",
    "inference",
    "quantization",
    "pruning",
    "distillation",
    "robust",
    "adversarial",
    "privacy",
    "federated",
    "optimization",
    "gradient",
    "convex",
    "bandit",
    "causal",
    "kernel",
    "embedding",
    "token",
    "sequence",
    "protein",
    "molecule",
    "physics",
    "simulation",
    "planning",
    "reasoning",
]
_SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "sa", "do", "qu", "xe", "fy")


def scale(short: int, long: int) -> int:
    return long if LONG else short


def record(area: str, case: str, *, cases: int = 1, crashes: int = 0, lost: int = 0) -> None:
    """Count what a test tried, for the table in docs/reliability.md (only with REPORT set)."""
    if not REPORT:
        return
    line = {"area": area, "case": case, "cases": cases, "crashes": crashes, "lost": lost}
    with Path(REPORT).open("a", encoding="utf-8") as file:
        file.write(json.dumps(line) + "\n")


def rare_words(count: int, seed: int = 7) -> list[str]:
    """Pronounceable made-up words: a vocabulary far larger than real abstracts repeat."""
    rng = random.Random(seed)
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(3, 5))))
    return sorted(words)


def abstracts(count: int, *, seed: int, marker: str | None = None) -> list[str]:
    """`count` distinct abstract-like paragraphs; each holds `marker` if one is given."""
    rng = random.Random(seed)
    rare = rare_words(2000, seed=1)
    found = []
    for number in range(count):
        words = [
            rng.choice(rare) if rng.random() < 0.2 else rng.choice(_COMMON)
            for _ in range(rng.randint(40, 120))
        ]
        if marker:
            words.insert(rng.randrange(len(words)), marker)
        words.append(f"s{seed}n{number}")
        found.append(" ".join(words).capitalize() + ".")
    return found


def write_list(path: Path, papers: list[str], header: str = "Synthetic 2026 论文列表") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as file:
        file.write(f"{header}\n\n")
        for paper in papers:
            file.write(f"{paper}\n\n")
    return path


def make_settings(db_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"db_path": db_path, "seeds_dir": db_path.parent / "no-seeds"}
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def dump(db_path: Path) -> list[str]:
    """Every table's schema and rows, as SQL: equal dumps mean an unchanged database."""
    with closing(sqlite3.connect(db_path)) as connection:
        return list(connection.iterdump())


def integrity(db_path: Path) -> str:
    with closing(sqlite3.connect(db_path)) as connection:
        rows = connection.execute("PRAGMA integrity_check").fetchall()
        problems = connection.execute("PRAGMA foreign_key_check").fetchall()
    text = "; ".join(str(row[0]) for row in rows)
    return text if not problems else f"{text}; foreign keys: {problems[:3]}"


def query(db_path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(db_path)) as connection:
        return list(connection.execute(sql, params).fetchall())


def count_papers(db_path: Path) -> int:
    return int(query(db_path, "SELECT count(*) FROM papers")[0][0])


def reading_lists(db_path: Path) -> list[tuple[Any, ...]]:
    return query(db_path, "SELECT user_id, paper_id, added_at FROM reading_list ORDER BY 1, 2")


def cli_env(db_path: Path, workdir: Path, **extra: str) -> dict[str, str]:
    """The environment for a `paperbot` subprocess: no PAPERBOT_* from outside, no .env or
    config/paperbot.toml of the developer's (an empty TOML file in `workdir` stands in)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PAPERBOT_")}
    empty = workdir / "empty.toml"
    if not empty.exists():
        empty.write_text("", encoding="utf-8")
    (workdir / "no-seeds").mkdir(exist_ok=True)
    env.update(
        PAPERBOT_DB_PATH=str(db_path),
        PAPERBOT_SEEDS_DIR=str(workdir / "no-seeds"),
        PAPERBOT_CONFIG=str(empty),
        PYTHONPATH=str(ROOT),
    )
    env.update(extra)
    return env


def paperbot(*args: str) -> list[str]:
    return [sys.executable, "-m", "bot", *args]


def run_cli_here(
    workdir: Path, db_path: Path, *args: str, **extra: str
) -> subprocess.CompletedProcess[str]:
    """`run_cli` in this process (tests/inprocess.py): for a command whose output ends when
    `main` returns, such as a settings failure before any store is opened."""
    return run_main(args, folder=workdir, environment=cli_env(db_path, workdir, **extra))


def run_cli(
    workdir: Path,
    db_path: Path,
    *args: str,
    timeout: float = 120,
    unprivileged: bool = False,
    **extra: str,
) -> subprocess.CompletedProcess[str]:
    """Run `paperbot ARGS`; `unprivileged` runs it as nobody when the suite runs as root."""
    if unprivileged:
        return child_python().run(
            ["-m", "bot", *args],
            cwd=workdir,
            env=cli_env(db_path, workdir, **extra),
            timeout=timeout,
        )
    return subprocess.run(
        paperbot(*args),
        cwd=workdir,
        env=cli_env(db_path, workdir, **extra),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
