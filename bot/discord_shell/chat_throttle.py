"""Throttling chat without noise: who gets an answer, a single notice, or nothing (pure).

Chat (mentions, DMs, chat channels) shares the user's question cooldown with slash commands, but
an over-eager user gets ONE notice per cooldown window, not one per message; each channel gets
at most `channel_answers` answers per `channel_seconds`, however many people ask; and the same
question from the same user within `repeat_seconds` is answered once. Follow-ups that run no new
search (opening a result, paging, asking about a paper) spend no quota and may repeat.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from bot.discord_shell.cooldown import Cooldown
from bot.text import one_line


class Action(Enum):
    ANSWER = "answer"
    NOTICE = "notice"  # the first refusal in a window: a ⏳ reaction or one short line
    SILENT = "silent"  # already told (or a repeat): say nothing


@dataclass(frozen=True, slots=True)
class Decision:
    action: Action
    wait: float = 0.0  # seconds until this user (or channel) may be answered again


class ChatThrottle:
    """Decides per chat message; `clock` is injectable for tests."""

    def __init__(
        self,
        cooldown: Cooldown,
        *,
        channel_answers: int,
        channel_seconds: float,
        repeat_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cooldown = cooldown
        self.channel_answers = channel_answers
        self.channel_seconds = channel_seconds
        self.repeat_seconds = repeat_seconds
        self._clock = clock
        self._told_until: dict[tuple[str, int], float] = {}
        self._channel: dict[int, deque[float]] = {}
        self._recent: dict[tuple[int, str], float] = {}

    def decide(
        self, user_id: int, channel_id: int, question: str, *, follow_up: bool = False
    ) -> Decision:
        """`follow_up`: a message that runs no new search ("the second one", "more", "does it
        have code?"): a conversation's pace, so it spends no question quota and may repeat
        ("more", "more"); the channel cap still holds."""
        now = self._clock()
        self._forget(now)
        key = (user_id, one_line(question).casefold())
        if not follow_up and now - self._recent.get(key, -1e18) < self.repeat_seconds:
            return Decision(Action.SILENT)
        answers = self._channel.setdefault(channel_id, deque())
        while answers and answers[0] <= now - self.channel_seconds:
            answers.popleft()
        if len(answers) >= self.channel_answers:
            return self._refuse(("channel", channel_id), answers[0] + self.channel_seconds - now)
        wait = None if follow_up else self.cooldown.hit(user_id)
        if wait is not None:
            return self._refuse(("user", user_id), wait)
        answers.append(now)
        self._recent[key] = now
        return Decision(Action.ANSWER)

    def _refuse(self, who: tuple[str, int], wait: float) -> Decision:
        now = self._clock()
        if self._told_until.get(who, -1e18) > now:
            return Decision(Action.SILENT, wait)
        self._told_until[who] = now + wait
        return Decision(Action.NOTICE, wait)

    def _forget(self, now: float) -> None:
        """Bound memory: drop repeats and notices that no longer matter."""
        if len(self._recent) > 10_000:
            self._recent = {k: t for k, t in self._recent.items() if now - t < self.repeat_seconds}
        if len(self._told_until) > 10_000:
            self._told_until = {k: t for k, t in self._told_until.items() if t > now}
