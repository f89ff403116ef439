"""Chat throttling: one notice per window, a per-channel cap, repeats answered once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.discord_shell.chat_throttle import Action, ChatThrottle
from bot.discord_shell.cooldown import Cooldown


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def throttle(clock: Clock, *, channel_answers: int = 100) -> ChatThrottle:
    return ChatThrottle(
        Cooldown(3, 30, clock=clock),
        channel_answers=channel_answers,
        channel_seconds=60,
        repeat_seconds=10,
        clock=clock,
    )


def test_over_the_cooldown_one_notice_then_silence_until_the_window_ends() -> None:
    clock = Clock()
    gate = throttle(clock)
    actions = [gate.decide(1, 9, f"q{n}").action for n in range(10)]
    assert actions == [Action.ANSWER] * 3 + [Action.NOTICE] + [Action.SILENT] * 6
    clock.now = 31
    assert gate.decide(1, 9, "later").action is Action.ANSWER


def test_the_channel_cap_holds_across_users() -> None:
    clock = Clock()
    gate = throttle(clock, channel_answers=4)
    actions = [gate.decide(user, 9, "q").action for user in range(8)]
    assert actions == [Action.ANSWER] * 4 + [Action.NOTICE] + [Action.SILENT] * 3
    assert gate.decide(50, 10, "q").action is Action.ANSWER  # another channel is unaffected
    clock.now = 61
    assert gate.decide(99, 9, "q").action is Action.ANSWER


def test_a_repeat_is_silent_and_costs_nothing() -> None:
    clock = Clock()
    gate = throttle(clock)
    assert gate.decide(1, 9, "MoE routing").action is Action.ANSWER
    assert gate.decide(1, 9, " moe   routing").action is Action.SILENT
    assert gate.decide(2, 9, "moe routing").action is Action.ANSWER  # someone else may ask it
    assert gate.decide(1, 9, "other").action is Action.ANSWER
    assert gate.decide(1, 9, "third").action is Action.ANSWER  # the repeat used no quota
    clock.now = 11
    assert gate.decide(1, 9, "moe routing").action is Action.NOTICE  # quota, not repeat


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.floats(0, 5)), max_size=80))
def test_at_most_one_notice_per_user_per_window(
    events: list[tuple[int, int, float]],
) -> None:
    clock = Clock()
    gate = throttle(clock)
    last_notice: dict[int, tuple[float, float]] = {}
    for user, channel, step in events:
        clock.now += step
        decision = gate.decide(user, channel, f"{clock.now}")
        if decision.action is Action.NOTICE:
            if user in last_notice:
                when, wait = last_notice[user]
                assert clock.now >= when + wait  # never two notices inside one window
            last_notice[user] = (clock.now, decision.wait)


def test_follow_ups_spend_no_quota_and_may_repeat_but_the_channel_cap_holds() -> None:
    clock = Clock()
    gate = throttle(clock, channel_answers=6)
    searches = [gate.decide(1, 9, f"topic {n}").action for n in range(3)]
    assert searches == [Action.ANSWER] * 3  # the user's quota of 3 is spent
    steps = ["the second one", "more", "more", "does it have code?"]
    assert [gate.decide(1, 9, step, follow_up=True).action for step in steps] == [
        Action.ANSWER
    ] * 3 + [Action.NOTICE]  # the channel's 6 answers, then one notice
    assert gate.decide(1, 9, "topic 4").action is Action.SILENT  # told already
