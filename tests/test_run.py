"""run.py's test command: the skip list is printed, and any failing step (including pytest's
exit 5, "no tests collected") fails the whole run."""

from __future__ import annotations

import importlib.util
import subprocess
from collections.abc import Callable
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


def _fake_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, kernels: Callable[[], int]
) -> tuple[ModuleType, list[list[str]]]:
    """run.py with its .venv in `tmp_path` and subprocess.run recorded; `kernels` plays the
    kernel compile (its exit status, or it raises)."""
    run = load_run()
    binaries = tmp_path / "bin"
    binaries.mkdir()
    (binaries / "python").write_text("")
    monkeypatch.setattr(run, "BIN", binaries)
    monkeypatch.setattr(run, "STAMP", tmp_path / "stamp")
    ran: list[list[str]] = []

    def fake_run(command: list[str], *args: Any, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        ran.append(command[1:])
        code = kernels() if "retrieval.precompile" in command else 0
        return subprocess.CompletedProcess(command, code)

    monkeypatch.setattr(run.subprocess, "run", fake_run)
    return run, ran


def test_an_install_compiles_the_kernels_then_stamps(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    run, ran = _fake_install(monkeypatch, tmp_path, lambda: 0)
    run._ensure_environment()
    assert [command[:2] for command in ran] == [["-m", "pip"], ["-m", "retrieval.precompile"]]
    assert run.STAMP.exists()
    ran.clear()
    run._ensure_environment()  # stamped: nothing to do
    assert ran == []


def test_a_failed_kernel_compile_is_not_fatal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    run, _ = _fake_install(monkeypatch, tmp_path, lambda: 1)
    run._ensure_environment()
    assert run.STAMP.exists()  # kernels then compile at first use; no reinstall every run
    assert "compiling the kernels failed; they compile at first use" in capsys.readouterr().err


def test_ctrl_c_while_compiling_is_one_line_and_leaves_no_stamp(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted() -> int:
        raise KeyboardInterrupt

    run, _ = _fake_install(monkeypatch, tmp_path, interrupted)
    monkeypatch.setattr(run.sys, "argv", ["run.py", "test"])
    monkeypatch.chdir(ROOT)  # main() changes into the project folder
    assert run.main() == 130
    assert not run.STAMP.exists()  # the next run installs and compiles again
    assert capsys.readouterr().err.strip().splitlines()[-1] == "paperbot: interrupted"
