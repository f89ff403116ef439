"""Hypothesis budgets: one profile for every run of the suite, one for a long nightly-style run.

HYPOTHESIS_PROFILE picks the profile (tests/conftest.py loads it; docs/testing.md says why the
numbers are what they are):

- `ci` (the default, also locally): CI_EXAMPLES examples per property test, new random ones
  every run (not derandomized), so successive runs explore different inputs instead of proving
  the same ones again; a failure prints the `@reproduce_failure` blob to replay it, and the
  local example database (.hypothesis/) replays it first on the next run.
- `nightly`: NIGHTLY_FACTOR times the examples of every test, for a run where time is cheap.

Both: no deadline and no too_slow health check, since a test's speed on a shared machine is not
what it checks.

A test whose every example is expensive (a database round trip, an engine built) asks for fewer
with `examples(n)`: n in `ci`, NIGHTLY_FACTOR times n in `nightly`.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

CI_EXAMPLES = 50
NIGHTLY_FACTOR = 20
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")

for _name, _examples in (("ci", CI_EXAMPLES), ("nightly", CI_EXAMPLES * NIGHTLY_FACTOR)):
    settings.register_profile(
        _name,
        max_examples=_examples,
        deadline=None,
        print_blob=True,
        derandomize=False,
        suppress_health_check=[HealthCheck.too_slow],
    )


def load_profile() -> None:
    if PROFILE not in ("ci", "nightly"):
        raise SystemExit(f"HYPOTHESIS_PROFILE={PROFILE!r}: use ci (the default) or nightly")
    settings.load_profile(PROFILE)


def examples(ci: int) -> int:
    """`max_examples` for a test with expensive examples: `ci` in the ci profile, NIGHTLY_FACTOR
    times as many in the nightly one."""
    return ci * NIGHTLY_FACTOR if PROFILE == "nightly" else ci
