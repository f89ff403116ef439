"""What paperbot remembers about one interaction while answering it, behind one typed accessor.

discord.py offers `interaction.extras` (an untyped dict); paperbot keeps a single `Progress`
there, so the command tree, replies and the error boundary share typed fields, not string keys.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import discord

_KEY = "paperbot.progress"


@dataclass(slots=True)
class Progress:
    """`started`: perf_counter when handling began; `deferred_public`: a public "thinking…" is
    showing; `filled`: a follow-up already replaced that placeholder; `shown`: the ids of the
    papers an answer showed (what /trending counts, without ranking the question again)."""

    started: float
    deferred_public: bool = False
    filled: bool = False
    shown: tuple[str, ...] = ()


def progress(interaction: discord.Interaction) -> Progress:
    """This interaction's Progress, created on first use."""
    value = interaction.extras.get(_KEY)
    if not isinstance(value, Progress):
        value = Progress(started=time.perf_counter())
        interaction.extras[_KEY] = value
    return value
