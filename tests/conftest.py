"""Shared fixtures: settings that never read the environment, and small paper lists."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from config.settings import Settings
from retrieval.engine import Engine
from tests.budgets import load_profile

load_profile()

# The test suite's own variables (docs/testing.md); every other PAPERBOT_* one is the user's
# configuration.
_TEST_VARIABLES = (
    "PAPERBOT_TEST_",
    "PAPERBOT_REQUIRE_POSTGRES",
    "PAPERBOT_LONG_RELIABILITY",
    "PAPERBOT_RELIABILITY_REPORT",
)


@pytest.fixture(autouse=True)
def _without_the_users_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A user who runs the tests with their paperbot configuration exported (PAPERBOT_DB_PATH,
    PAPERBOT_RANKING ...) gets the same results as CI: no test reads it."""
    for name in list(os.environ):
        if name.startswith("PAPERBOT_") and not name.startswith(_TEST_VARIABLES):
            monkeypatch.delenv(name)


ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"

# Six short abstracts with known winners for typical questions.
FIXTURE_ABSTRACTS = [
    "We study Mixture of Experts (MoE) routing and show that expert load balancing improves "
    "sparse transformers. Routers trained with auxiliary losses collapse less often.",
    "Retrieval-augmented generation (RAG) systems are vulnerable to corpus poisoning. We present "
    "an attack that injects adversarial passages into the retriever's corpus.",
    "Diffusion models generate images by iterative denoising. We propose a faster sampler that "
    "halves the number of steps without loss of quality.",
    "Graph neural networks struggle with oversmoothing. We introduce a residual normalization "
    "that keeps node features distinct in deep graph networks.",
    "Large language models can be aligned with reinforcement learning from human feedback. Our "
    "reward model reduces reward hacking, e.g. verbosity, by 35.5% on average.",
    "A survey of routing algorithms in computer networks, covering shortest paths and "
    "congestion-aware routing for data centers.",
]


def write_list(
    path: Path, abstracts: list[str], header: str | None = "Fixture 2026 论文列表"
) -> Path:
    body = "\n\n".join(abstracts) + "\n"
    path.write_text((f"{header}\n\n" if header else "") + body, encoding="utf-8")
    return path


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    def build(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "db_path": tmp_path / "db" / "paperbot.db",
            "seeds_dir": tmp_path / "no-seeds",
        }
        values.update(overrides)
        return Settings(_env_file=None, **values)  # type: ignore[call-arg]

    return build


@pytest.fixture
def fixture_seeds(tmp_path: Path) -> Path:
    """A seeds folder holding the six fixture abstracts as `fixture.txt`."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    write_list(seeds / "fixture.txt", FIXTURE_ABSTRACTS)
    return seeds


@pytest.fixture
async def fixture_engine(
    fixture_seeds: Path, make_settings: Callable[..., Settings]
) -> AsyncIterator[Engine]:
    engine = await Engine.open(make_settings(seeds_dir=fixture_seeds))
    try:
        yield engine
    finally:
        await engine.close()


@pytest.fixture
async def seed_engine(make_settings: Callable[..., Settings]) -> AsyncIterator[Engine]:
    engine = await Engine.open(make_settings(seeds_dir=SEEDS))
    try:
        yield engine
    finally:
        await engine.close()
