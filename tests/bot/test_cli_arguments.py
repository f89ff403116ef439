"""Command-line argument mistakes: one clear line, and the usage of the command they are in."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

import pytest

from bot.terminal import console
from bot.terminal.cli import _parse, _parser, main
from retrieval.models import EngineStats


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        main(list(argv))
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


@pytest.mark.parametrize("value", ["0", "-5", "1001"])
@pytest.mark.parametrize("command", [("search", "moe routing"), ("similar", "icml2026-7")])
def test_an_out_of_range_top_k_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], command: tuple[str, ...], value: str
) -> None:
    err = _refused(capsys, *command, "--top-k", value)
    assert err.splitlines() == [f"paperbot: --top-k must be a number from 1 to 1000 (got {value})"]


def test_an_unknown_option_shows_the_sub_commands_usage_and_the_close_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = _refused(capsys, "search", "--topk", "3")
    assert err.startswith("usage: paperbot search ")
    assert "--top-k N" in err  # the search usage, not the list of commands
    assert err.splitlines()[-1].startswith("paperbot search: error: unrecognized arguments: --topk")
    assert "did you mean --top-k?" in err


def test_a_misspelt_command_gets_the_close_one(capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(capsys, "serch", "foo")
    assert err.splitlines()[-1].startswith("paperbot: error: no command `serch`")
    assert "did you mean `search`?" in err
    assert "did you mean" not in _refused(capsys, "zzzzzz")


def test_an_unknown_option_of_a_nested_command_shows_that_commands_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = _refused(capsys, "eval", "beir", "folder", "--splt", "test")
    assert err.startswith("usage: paperbot eval beir ")
    assert "did you mean --split?" in err


def test_stats_says_whose_questions_it_counts() -> None:
    fresh = console.render_stats(EngineStats(10, 2, 1234, 5678, 90_000, 200_000, 0, None, None))
    line = next(line for line in fresh.splitlines() if line.startswith("questions"))
    assert "0 answered" not in line  # a `paperbot stats` process never answered anything
    assert "this process" in line and "each bot or console counts its own" in line
    served = console.render_stats(EngineStats(10, 2, 1234, 5678, 90_000, 200_000, 7, 3.2, 9.9))
    assert "7 answered by this process (p50 3.2 ms, p95 9.9 ms)" in served


def test_an_excluded_word_is_part_of_the_query_not_an_option() -> None:
    # Query syntax's "-word" needs no quoting or "--" (a newcomer's `search attacks -watermark`).
    assert _parse(["search", "attacks", "-watermark"]).query == ["attacks", "-watermark"]
    assert _parse(["ask", "rag", "-survey", "attacks"]).question == ["rag", "-survey", "attacks"]
    assert _parse(["watch", "add", "rag", "-survey"]).query == ["rag", "-survey"]


def _parsers(parser: argparse.ArgumentParser, path: str = "paperbot") -> Iterator[tuple[str, Any]]:
    """Every (sub-)parser of the command line, named as typed, with its arguments."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helped = {choice.dest for choice in action._choices_actions if choice.help}
            for name, sub in action.choices.items():
                assert name in helped, f"{path} {name} has no help line"
                yield from _parsers(sub, f"{path} {name}")


def test_every_command_and_option_has_a_help_string() -> None:
    """`paperbot export papers --help` showed `--collection C` with no description."""
    missing = [
        f"{path} {'/'.join(action.option_strings) or action.dest}"
        for path, parser in _parsers(_parser())
        for action in parser._actions
        if not isinstance(action, argparse._SubParsersAction)
        and not (action.help and action.help.strip())
    ]
    assert missing == []
