"""The event-loop lag probe: arithmetic with a fake clock, the WARNING, the window, /stats."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from bot.discord_shell import render
from bot.discord_shell.client import PaperBot
from bot.discord_shell.looplag import LagStats, LoopLag, percentile
from retrieval.models import EngineStats
from tests.bot.discordfakes import Recorder, slash
from tests.bot.helpers import run

STATS = EngineStats(10, 2, 1234, 5678, 90_000, 200_000, 7, 3.2, 9.9)


class FakeTime:
    """A clock plus a sleep that advances it by the interval and the next scripted lag."""

    def __init__(self, lags_ms: list[float]) -> None:
        self.now = 100.0
        self.lags = list(lags_ms)
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds + self.lags.pop(0) / 1000


def probe(lags_ms: list[float], **kwargs: float) -> tuple[LoopLag, FakeTime]:
    fake = FakeTime(lags_ms)
    window = int(kwargs.pop("window", 100))
    return LoopLag(clock=fake.clock, sleep=fake.sleep, window=window, **kwargs), fake


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50
    assert percentile(values, 0.99) == 99
    assert percentile(values, 1.0) == 100
    assert percentile([7.0], 0.99) == 7


async def test_lag_is_how_late_the_sleep_woke() -> None:
    lag, fake = probe([0.0, 2.0, 40.0, 1.0], interval=0.1)
    await lag.run(probes=4)
    assert fake.slept == [0.1] * 4
    stats = lag.snapshot()
    assert stats.samples == 4
    assert stats.p50_ms == pytest.approx(1.0)
    assert stats.p99_ms == pytest.approx(40.0)
    assert stats.max_ms == pytest.approx(40.0)


async def test_no_samples_yet() -> None:
    lag, _ = probe([])
    assert lag.snapshot() == LagStats(0, None, None, None)


async def test_window_is_bounded() -> None:
    lag, _ = probe([900.0] + [1.0] * 10, window=10, warn_ms=1000)
    await lag.run(probes=11)
    stats = lag.snapshot()
    assert stats.samples == 10 and stats.max_ms == pytest.approx(1.0)


async def test_early_wake_counts_as_zero() -> None:
    lag, _ = probe([-5.0])
    assert await lag.probe() == 0.0
    assert lag.snapshot().max_ms == 0.0


async def test_a_long_block_logs_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    lag, _ = probe([499.0, 750.0], warn_ms=500)
    with caplog.at_level(logging.WARNING, logger="bot.discord_shell.looplag"):
        await lag.run(probes=2)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and lag.warnings == 1
    assert "event loop blocked" in warnings[0].getMessage()
    assert "750 ms late" in warnings[0].getMessage()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        LoopLag(interval=0)
    with pytest.raises(ValueError):
        LoopLag(window=0)


async def test_real_probe_sees_a_blocked_loop(caplog: pytest.LogCaptureFixture) -> None:
    lag = LoopLag(interval=0.01, warn_ms=30)
    with caplog.at_level(logging.WARNING, logger="bot.discord_shell.looplag"):
        task = lag.start()
        assert lag.start() is task and lag.running
        await asyncio.sleep(0.03)
        time.sleep(0.08)  # noqa: ASYNC251 - block the loop on purpose
        await asyncio.sleep(0.03)
        await lag.stop()
    assert not lag.running and task.cancelled()
    stats = lag.snapshot()
    assert stats.max_ms is not None and stats.max_ms >= 50
    assert lag.warnings >= 1


def test_stats_embed_shows_the_lag_line() -> None:
    embed = render.stats_embed(STATS, LagStats(1234, 0.4, 12.5, 80.0))
    fields = {f.name: f.value for f in embed.fields}
    value = fields["Event-loop lag p50 / p99 / max"]
    assert value == "0.4 ms / 12.5 ms / 80.0 ms (1,234 samples)"
    assert len(value) <= render.FIELD_VALUE_MAX
    empty = render.stats_embed(STATS, LagStats(0, None, None, None))
    assert "— / — / —" in {f.name: f.value for f in empty.fields}["Event-loop lag p50 / p99 / max"]
    assert "Event-loop lag p50 / p99 / max" not in {
        f.name for f in render.stats_embed(STATS).fields
    }


async def test_bot_starts_the_probe_and_stats_shows_it(bot: PaperBot, recorder: Recorder) -> None:
    assert bot.loop_lag.running
    bot.loop_lag.record(3.0)
    interaction = await run(bot, slash(bot, "stats"))
    assert "Event-loop lag p50 / p99 / max" in recorder.text(interaction)
    await bot.loop_lag.stop()
    assert not bot.loop_lag.running
