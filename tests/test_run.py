"""run.py's test command: the skip list is printed, and any failing step (including pytest's
exit 5, "no tests collected") fails the whole run."""

from __future__ import annotations

import importlib.util
import subprocess
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import ROOT


def load_run() -> ModuleType:
    spec = importlib.util.spec_from_file_location("paperbot_run", ROOT / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pytest_lists_skips_with_reasons() -> None:
    commands = load_run()._test_commands()
    pytest_command = next(command for command in commands if command[2] == "pytest")
    assert "-rs" in pytest_command


@pytest.mark.parametrize(("failing", "code"), [("pytest", 5), ("pytest", 1), ("mypy", 1)])
def test_a_failing_step_fails_the_run(
    monkeypatch: pytest.MonkeyPatch, failing: str, code: int
) -> None:
    run = load_run()
    ran: list[str] = []

    def fake_run(command: list[str], *args: Any, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        ran.append(command[2])
        return subprocess.CompletedProcess(command, code if command[2] == failing else 0)

    monkeypatch.setattr(run, "_ensure_environment", lambda: None)
    monkeypatch.setattr(run.subprocess, "run", fake_run)
    monkeypatch.setattr(run.sys, "argv", ["run.py", "test"])
    monkeypatch.chdir(ROOT)
    assert run.main() == 1
    assert ran[-1] == failing  # stops at the failing step
    assert ran == ["ruff", "ruff", "mypy", "pytest"][: len(ran)]


def test_all_steps_passing_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    run = load_run()
    ran: list[str] = []

    def fake_run(command: list[str], *args: Any, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        ran.append(command[2])
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(run, "_ensure_environment", lambda: None)
    monkeypatch.setattr(run.subprocess, "run", fake_run)
    monkeypatch.setattr(run.sys, "argv", ["run.py", "test"])
    assert run.main() == 0
    assert ran == ["ruff", "ruff", "mypy", "pytest"]
