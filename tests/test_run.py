"""run.py's test command: the skip list is printed, and any failing step (including pytest's
exit 5, "no tests collected") fails the whole run."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
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


def test_pytest_lists_skips_with_reasons_and_uses_every_core() -> None:
    commands = load_run()._test_commands()
    pytest_command = next(command for command in commands if command[2] == "pytest")
    assert "-rs" in pytest_command
    assert pytest_command[pytest_command.index("-n") + 1] == "auto"


class _Steps:
    """run.py's test steps played by fakes: `codes` gives a step's exit status (0 when not
    named), `ran` the steps in the order they started; mypy (started with Popen) writes
    `typecheck` to its output file."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, **codes: int) -> None:
        self.run = load_run()
        self.ran: list[str] = []
        self.environments: list[dict[str, str] | None] = []
        self.codes = codes
        self.typecheck = "src/x.py:1: error: mypy's own words\n"
        steps = self

        def fake_run(command: list[str], *args: Any, **kwargs: Any) -> Any:
            steps.ran.append(command[2])
            steps.environments.append(kwargs.get("env"))
            return subprocess.CompletedProcess(command, codes.get(command[2], 0))

        class FakePopen:
            def __init__(self, command: list[str], *args: Any, stdout: Any, **kwargs: Any):
                steps.ran.append(command[2])
                steps.environments.append(kwargs.get("env"))
                stdout.write(steps.typecheck)
                self.code = codes.get(command[2], 0)

            def wait(self) -> int:
                return self.code

        monkeypatch.setattr(self.run, "_ensure_environment", lambda **_: None)
        monkeypatch.setattr(self.run.subprocess, "run", fake_run)
        monkeypatch.setattr(self.run.subprocess, "Popen", FakePopen)
        monkeypatch.setattr(self.run.sys, "argv", ["run.py", "test"])
        monkeypatch.chdir(ROOT)


@pytest.mark.parametrize(
    ("failing", "code"), [("pytest", 5), ("pytest", 1), ("mypy", 1), ("mypy", 2)]
)
def test_a_failing_mypy_or_pytest_fails_the_run_after_both_ran(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], failing: str, code: int
) -> None:
    steps = _Steps(monkeypatch, **{failing: code})
    assert steps.run.main() == 1
    assert steps.ran == ["ruff", "ruff", "mypy", "pytest"]  # mypy beside pytest, both to the end
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1] == f"paperbot: test failed: {failing}"
    # mypy's output is printed after pytest's, under its own command line
    assert out.index("$ pytest") < out.rindex("$ mypy") < out.index(steps.typecheck)


def test_both_failing_are_both_named(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    steps = _Steps(monkeypatch, mypy=1, pytest=1)
    assert steps.run.main() == 1
    assert capsys.readouterr().out.rstrip().endswith("paperbot: test failed: mypy and pytest")


def test_a_failing_ruff_step_stops_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    steps = _Steps(monkeypatch, ruff=1)
    assert steps.run.main() == 1
    assert steps.ran == ["ruff"]  # neither mypy nor pytest started


def test_all_steps_passing_passes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = _Steps(monkeypatch)
    assert steps.run.main() == 0
    assert steps.ran == ["ruff", "ruff", "mypy", "pytest"]
    assert "test failed" not in capsys.readouterr().out


def test_the_steps_cache_bytecode_even_where_the_shell_says_not_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the cache every pytest worker and every `python -m bot` a test starts compiles
    the project again (docs/testing.md); the rest of the environment is passed on."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("PAPERBOT_TEST_DATABASE_URL", "postgresql://example/db")
    steps = _Steps(monkeypatch)
    assert steps.run.main() == 0
    assert len(steps.environments) == 4
    for environment in steps.environments:
        assert environment is not None
        # Booleans, not the dict: a failure would print the whole environment.
        kept = "PYTHONDONTWRITEBYTECODE" in environment
        assert not kept
        assert environment.get("PAPERBOT_TEST_DATABASE_URL") == "postgresql://example/db"


def _fake_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, kernels: Callable[[], int]
) -> tuple[ModuleType, list[list[str]]]:
    """run.py with its .venv in `tmp_path` and its steps recorded; `kernels` plays the kernel
    compile (its exit status, or it raises)."""
    run = load_run()
    binaries = tmp_path / "bin"
    binaries.mkdir()
    (binaries / "python").write_text("")
    monkeypatch.setattr(run, "BIN", binaries)
    monkeypatch.setattr(run, "STAMP", tmp_path / "stamp")
    ran: list[list[str]] = []

    def fake_step(command: list[str], *args: Any, **kwargs: Any) -> int:
        ran.append(command[1:])
        return kernels() if "retrieval.snapshot.precompile" in command else 0

    monkeypatch.setattr(run, "_run_step", fake_step)
    return run, ran


def test_an_install_compiles_the_kernels_then_stamps(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    run, ran = _fake_install(monkeypatch, tmp_path, lambda: 0)
    run._ensure_environment()
    assert [command[:2] for command in ran] == [
        ["-m", "pip"],
        ["-m", "retrieval.snapshot.precompile"],
    ]
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


def test_relative_paths_are_the_callers_not_the_repositorys(tmp_path: Path) -> None:
    """`cd elsewhere && python3 repo/run.py ingest inputs/x.jsonl`: paperbot runs in `elsewhere`,
    so `inputs/x.jsonl` (and `-o out.csv`, and `.env`) are read where the user is."""
    repo = tmp_path / "repo"
    binaries = repo / ".venv" / "bin"
    binaries.mkdir(parents=True)
    shutil.copy(ROOT / "run.py", repo / "run.py")
    (repo / "pyproject.toml").write_text("[project]\nname = 'fake'\n")
    wanted = hashlib.sha256((repo / "pyproject.toml").read_bytes()).hexdigest()
    (repo / ".venv" / ".paperbot-installed").write_text(wanted)  # installed: no pip here
    fake = binaries / "paperbot"  # stands in for the console script: where and what it ran
    fake.write_text('#!/bin/sh\necho "cwd=$(pwd)"\necho "args=$*"\n')
    fake.chmod(0o755)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run(
        [sys.executable, str(repo / "run.py"), "ingest", "inputs/x.jsonl"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"cwd={elsewhere}", "args=ingest inputs/x.jsonl"]


def test_the_first_run_says_what_each_step_is_and_how_long_it_takes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    run, ran = _fake_install(monkeypatch, tmp_path, lambda: 0)
    run._ensure_environment()
    pip = next(command for command in ran if command[:2] == ["-m", "pip"])
    assert "--quiet" not in pip and "-q" not in pip  # pip's per-package lines are the progress
    lines = capsys.readouterr().err.splitlines()
    assert any("installing dependencies (one to two minutes" in line for line in lines)
    assert any("preparing the search engine (about ten seconds)" in line for line in lines)
    assert all("kernel" not in line for line in lines)  # words a user understands


def test_a_long_silent_step_prints_elapsed_ticks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real child prints a line, then is silent until a tick has been said about it."""
    run = load_run()
    ticked = tmp_path / "ticked"
    real_say = run._say

    def say(line: str) -> None:
        real_say(line)
        ticked.touch()

    run._say = say
    child = (
        "import pathlib, sys, time\n"
        "print('child: working', flush=True)\n"
        "give_up = time.monotonic() + 60\n"
        "while not pathlib.Path(sys.argv[1]).exists() and time.monotonic() < give_up:\n"
        "    time.sleep(0.01)\n"
        "sys.exit(3)\n"
    )
    command = [sys.executable, "-c", child, str(ticked)]
    assert run._run_step(command, "compiling", "about a minute", every=0.05) == 3
    captured = capsys.readouterr()
    assert captured.out == ""  # a command's stdout stays its own (JSON)
    assert "child: working" in captured.err  # the child's output is passed through
    assert "paperbot:   ... still compiling: " in captured.err
    assert "s so far (about a minute)" in captured.err


def test_a_failed_install_fails_the_run_and_leaves_no_stamp(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    run, _ = _fake_install(monkeypatch, tmp_path, lambda: 0)
    monkeypatch.setattr(run, "_run_step", lambda command, *args, **kwargs: 1)
    monkeypatch.setattr(run.sys, "argv", ["run.py", "test"])
    assert run.main() == 1
    assert not run.STAMP.exists()


def test_a_user_gets_no_test_tools_and_the_test_run_adds_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    run, ran = _fake_install(monkeypatch, tmp_path, lambda: 0)
    run._ensure_environment()
    assert ran[0][-1] == str(run.ROOT)  # paperbot alone: no ruff, mypy or pytest
    ran.clear()
    run._ensure_environment(dev=True)
    assert ran[0][-1] == f"{run.ROOT}[dev]"
    ran.clear()
    run._ensure_environment()  # the test environment serves a plain run too
    run._ensure_environment(dev=True)
    assert ran == []


def test_adding_the_test_tools_to_an_installed_venv_says_only_that(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`run.py test` after `run.py` said "first run: setting up in two steps, two to four
    minutes" again, though it only installs the dev extra."""
    run, ran = _fake_install(monkeypatch, tmp_path, lambda: 0)
    run._ensure_environment()  # a user's install: paperbot and its kernels
    capsys.readouterr()
    ran.clear()
    run._ensure_environment(dev=True)
    assert ran == [["-m", "pip", "install", "-e", f"{run.ROOT}[dev]"]]  # no second compile
    err = capsys.readouterr().err
    assert "first run" not in err and "two steps" not in err and "step 1 of 2" not in err
    assert "adding the test tools to .venv (ruff, mypy, pytest" in err
    assert run.STAMP.read_text().endswith(" dev")


def test_a_changed_pyproject_is_an_update_not_a_first_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    run, ran = _fake_install(monkeypatch, tmp_path, lambda: 0)
    run.STAMP.write_text("an older pyproject.toml")  # .venv/bin/python exists (the fake's)
    run._ensure_environment()
    err = capsys.readouterr().err
    assert "first run" not in err and "pyproject.toml changed" in err
    assert [command[:2] for command in ran] == [
        ["-m", "pip"],
        ["-m", "retrieval.snapshot.precompile"],
    ]
