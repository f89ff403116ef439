"""The install-time kernel compile: a throwaway corpus, never the configured database."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.snapshot import precompile


async def test_compiling_asks_a_throwaway_corpus_and_leaves_the_configured_one_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configured = tmp_path / "configured" / "paperbot.db"
    monkeypatch.setenv("PAPERBOT_DB_PATH", str(configured))
    monkeypatch.setenv("PAPERBOT_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    work = tmp_path / "work"
    work.mkdir()
    found = await precompile.compile_kernels(work)
    assert found >= 1  # the question matched the RAG abstract: every kernel ran
    assert (work / "warm.db").exists()
    assert not configured.exists()
    assert not configured.parent.exists()


def test_a_failure_is_one_line_on_stderr_and_a_non_zero_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def broken(folder: Path) -> int:
        raise OSError("disk full")

    monkeypatch.setattr(precompile, "compile_kernels", broken)
    assert precompile.main() == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines() == [
        "paperbot: could not compile the search kernels now: disk full"
    ]


def test_success_reports_on_stderr_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def quick(folder: Path) -> int:
        return 1

    monkeypatch.setattr(precompile, "compile_kernels", quick)
    assert precompile.main() == 0
    captured = capsys.readouterr()
    assert captured.out == ""  # run.py may run this before a command that prints JSON
    assert captured.err.startswith("paperbot: search engine ready in ")
    assert "papers" not in captured.err  # no internal counts ("1 papers in the test corpus")
