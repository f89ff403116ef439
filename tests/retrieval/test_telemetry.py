"""/stats latency figures: the median never exceeds the 95th percentile, whatever was measured."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval.telemetry import LatencyLog, percentile
from tests.budgets import examples

MILLIS = st.lists(
    st.floats(min_value=0.0, max_value=1e6, allow_nan=False), min_size=1, max_size=300
)


def _log(millis: list[float]) -> LatencyLog:
    log = LatencyLog()
    now = time.perf_counter()
    for value in millis:
        log.record(now - value / 1000)
    return log


def test_two_answers_report_p50_at_most_p95() -> None:
    p50, p95 = _log([3.2, 1998.0]).percentiles()
    assert p50 is not None and p95 is not None
    assert p50 <= p95
    assert _log([]).percentiles() == (None, None)


@given(MILLIS)
@settings(max_examples=examples(200))
def test_p50_at_most_p95_at_most_max_for_any_samples(millis: list[float]) -> None:
    assert percentile(millis, 0.5) <= percentile(millis, 0.95) <= max(millis)
    p50, p95 = _log(millis).percentiles()
    assert p50 is not None and p95 is not None
    assert p50 <= p95
