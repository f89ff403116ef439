"""The conversation package is pure: importing it loads no Discord, event loop, store or engine
(numpy is allowed: the intent classifier is numpy arithmetic over its weights)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_importing_conversation_loads_nothing_heavy() -> None:
    code = (
        "import sys, retrieval.conversation; "
        "print(sorted(m for m in ('discord', 'asyncio', 'aiosqlite', "
        "'retrieval.stores', 'retrieval.engine', 'retrieval.snapshot.matrix') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
