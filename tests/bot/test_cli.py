"""The `paperbot` command line against a temporary database: `main()` in this process for the
commands' output, a real subprocess where the process itself is the point.

A subprocess costs 1.5-2.5 s of CPU (interpreter, numpy, numba, discord.py imports, the kernels
loaded from their cache); `run_here` calls the same `main()` with the same environment, folder,
stdin and captured streams (tests/inprocess.py). What only a process shows stays a subprocess:
the console script and `python -m bot` agreeing (below), Ctrl-C (test_cli_console.py), a broken
pipe and the password never printed (test_cli_edges.py), the canary and crash tests
(tests/reliability/).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.terminal import console
from retrieval.nodes import NodeRow
from retrieval.stores.sqlite import SqliteStore
from tests.conftest import FIXTURE_ABSTRACTS, ROOT, SEEDS, write_list
from tests.inprocess import run_main

# run.py installs the console script into .venv, beside the interpreter running the tests
CONSOLE_SCRIPT = Path(sys.executable).with_name("paperbot")


def run(
    tmp_path: Path,
    *args: str,
    stdin: str = "",
    command: tuple[str, ...] = (sys.executable, "-m", "bot"),
    **env: str,
) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("PAPERBOT_")
    }
    environment.update(PAPERBOT_DB_PATH=str(tmp_path / "cli.db"), PAPERBOT_SEEDS_DIR=str(SEEDS))
    environment.update(env)
    return subprocess.run(
        [*command, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no .env here
        env=environment,
        timeout=120,
    )


def run_here(
    tmp_path: Path, *args: str, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    """`run` in this process (tests/inprocess.py): `main(args)` with the environment `run` gives
    the child, in `tmp_path` (no .env)."""
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("PAPERBOT_")
    }
    environment.update(PAPERBOT_DB_PATH=str(tmp_path / "cli.db"), PAPERBOT_SEEDS_DIR=str(SEEDS))
    environment.update(env)
    return run_main(args, folder=tmp_path, environment=environment, stdin=stdin)


def test_search_json_ranks_eyes_on_me_first(tmp_path: Path) -> None:
    result = run_here(
        tmp_path, "search", "poisoning attacks on retrieval-augmented generation", "--json"
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) >= {"query", "took_ms", "total", "hits"}
    top = data["hits"][0]
    assert set(top) >= {
        "id",
        "external_id",
        "collection",
        "label",
        "score",
        "excerpt",
        "abstract",
        "urls",
    }
    assert "Eyes-on-Me" in top["label"]
    assert top["collection"] == "ICML 2026"
    assert "**" not in top["excerpt"]
    # The README's --json example is this command's output: its first hit names the same paper.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = json.loads(readme.split("```json\n", 1)[1].split("```", 1)[0])
    shown = example["hits"][0]
    assert (shown["id"], shown["external_id"], shown["collection"]) == (
        top["id"],
        top["external_id"],
        top["collection"],
    )


def test_ask_reads_a_collection_named_in_words_as_chat_does(tmp_path: Path) -> None:
    lists = tmp_path / "lists"
    lists.mkdir()
    write_list(
        lists / "iclr.txt",
        ["Poisoning attacks on retrieval-augmented generation retrievers at scale."],
        "ICLR 2024",
    )
    env = {"PAPERBOT_SEEDS_DIR": str(lists), "PAPERBOT_DB_PATH": str(tmp_path / "two.db")}
    assert run_here(tmp_path, "ingest", str(SEEDS), **env).returncode == 0
    result = run_here(
        tmp_path, "ask", "which ICML 2026 papers attack RAG retrievers?", "--json", **env
    )
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)["hits"]
    assert hits and all(hit["collection"] == "ICML 2026" for hit in hits)
    unknown = run_here(tmp_path, "ask", "CVPR 2023 papers on RAG poisoning", **env)
    assert unknown.returncode == 0, unknown.stderr
    assert unknown.stdout.startswith("No collection called “CVPR 2023” is loaded")
    # As in chat, a word no paper uses is corrected and the corrected question answered.
    typo = run_here(tmp_path, "ask", "retreivers poisoning", "--json", **env)
    assert typo.returncode == 0, typo.stderr
    assert typo.stderr.startswith("Searched for “retrievers” instead of “retreivers”")
    assert json.loads(typo.stdout)["query"] == "retrievers poisoning"


def test_paper_json_and_unknown_id(tmp_path: Path) -> None:
    ok = run_here(tmp_path, "paper", "ICML2026-1", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["id"] == "icml2026-1"
    missing = run_here(tmp_path, "paper", "icml2026-999")
    assert missing.returncode == 1
    assert missing.stderr.count("\n") == 1 and "“icml2026-999”" in missing.stderr
    assert "`" not in missing.stderr  # Discord's code spans are quotes in a terminal
    assert "Traceback" not in missing.stderr


def test_ingest_reports_counts_then_skips(tmp_path: Path) -> None:
    listing = write_list(tmp_path / "extra.txt", FIXTURE_ABSTRACTS)
    first = run_here(tmp_path, "ingest", str(listing))
    assert first.returncode == 0, first.stderr
    assert "6 papers added" in first.stdout
    again = run_here(tmp_path, "ingest", str(listing))
    assert "0 papers added" in again.stdout and "1 already ingested" in again.stdout
    collections = run_here(tmp_path, "collections")
    assert "Fixture 2026" in collections.stdout and "ICML 2026" in collections.stdout


def test_ingest_bad_file_is_one_line_and_nonzero(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x01binary")
    result = run_here(tmp_path, "ingest", str(bad))
    assert result.returncode == 1
    assert "bad.txt" in result.stderr and "Traceback" not in result.stderr


def test_a_newcomers_dead_ends_each_get_one_line_that_says_why(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = run_here(tmp_path, "ingest", str(empty))
    assert nothing.returncode == 1
    assert nothing.stderr.strip().endswith(
        f"no paper list (.txt or .jsonl) found in {empty}; "
        "name a list file or a folder that holds some"
    )
    unknown = run_here(tmp_path, "ask", "qwxzt blorf")
    assert unknown.stdout.startswith("No paper mentions “qwxzt” or “blorf”.")
    past = run_here(tmp_path, "paper", "icml2026-999")
    assert past.returncode == 1
    assert past.stderr.strip().endswith("ICML 2026 has ids icml2026-1 to icml2026-38.")


def test_batch_mode_writes_one_json_line_per_query(tmp_path: Path) -> None:
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\tMoE routing\nq2\tzzzz nothing\n", encoding="utf-8")
    result = run_here(tmp_path, "search", "--batch", str(queries), "--top-k", "2")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["query_id"] for line in lines] == ["q1", "q2"]
    assert len(lines[0]["hits"]) == 2 and set(lines[0]["hits"][0]) == {"id", "external_id", "score"}
    assert lines[1]["hits"] == []


def test_batch_ids_only_ranks_the_same_papers_without_excerpts(tmp_path: Path) -> None:
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\tMoE routing\nq2\tzzzz nothing\n", encoding="utf-8")
    full = run_here(tmp_path, "search", "--batch", str(queries), "--top-k", "3")
    ids = run_here(tmp_path, "search", "--batch", str(queries), "--top-k", "3", "--ids-only")
    assert ids.returncode == 0, ids.stderr
    expected = [[h["id"] for h in json.loads(line)["hits"]] for line in full.stdout.splitlines()]
    lines = [json.loads(line) for line in ids.stdout.splitlines()]
    assert [[h["id"] for h in line["hits"]] for line in lines] == expected
    assert len(expected[0]) == 3 and set(lines[0]["hits"][0]) == {"id", "score"}
    refused = run_here(tmp_path, "search", "MoE", "--ids-only")
    assert refused.returncode == 1 and "--ids-only" in refused.stderr


def test_chat_console_answers_and_opens_papers(tmp_path: Path) -> None:
    result = run_here(
        tmp_path, "chat", stdin="which papers study MoE routing?\npaper icml2026-1\nquit\n"
    )
    assert result.returncode == 0, result.stderr
    assert "papers loaded" in result.stdout
    assert "icml2026-" in result.stdout and "matching papers" in result.stdout


def test_start_without_token_opens_console(tmp_path: Path) -> None:
    result = run_here(tmp_path, stdin="")
    assert result.returncode == 0
    assert "paperbot console" in result.stdout


def test_run_without_token_says_how(tmp_path: Path) -> None:
    result = run_here(tmp_path, "run")
    assert result.returncode == 2
    assert "PAPERBOT_DISCORD_TOKEN" in result.stderr and "paperbot chat" in result.stderr


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("PAPERBOT_BM25_K1", "-1", "PAPERBOT_BM25_K1"),
        ("PAPERBOT_RANKING", "fancy", "PAPERBOT_RANKING"),
        ("PAPERBOT_OWNER_IDS", "abc", "PAPERBOT_OWNER_IDS"),
    ],
)
def test_invalid_setting_is_one_clear_line(
    tmp_path: Path, name: str, value: str, expected: str
) -> None:
    result = run_here(tmp_path, "stats", **{name: value})
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and expected in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_python_dash_m_bot_and_console_script_agree(tmp_path: Path) -> None:
    assert CONSOLE_SCRIPT.exists(), f"{CONSOLE_SCRIPT} missing: run `python3 run.py test`"
    for args in (["--help"], ["collections"], ["paper", "icml2026-1", "--json"]):
        module = run(tmp_path, *args)
        console = run(tmp_path, *args, command=(str(CONSOLE_SCRIPT),))
        assert module.returncode == console.returncode == 0, (args, module.stderr, console.stderr)
        assert module.stdout == console.stdout, args
        assert module.stdout.strip(), args


def test_eval_labels_prints_both_measures_per_file(tmp_path: Path) -> None:
    records = [
        {"title": "FooNet: Graph Networks", "abstract": "We propose FooNet, a network for graphs."},
        {"title": "Pruning Graphs", "abstract": "Graphs are large. We study pruning of graphs."},
    ]
    path = tmp_path / "conf.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    result = run_here(tmp_path, "eval", "labels", str(path))
    assert result.returncode == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("conf.jsonl"))
    # papers, named, named rate, baseline named rate, recall, baseline recall, recall all, punct
    assert row.split()[1:5] == ["2", "1", "1.000", "0.000"]


def test_eval_labels_writes_a_blind_reader_sheet_and_its_key(tmp_path: Path) -> None:
    records = [
        {"doc_id": f"c-{n}", "title": f"Paper {n}", "abstract": f"We study graph task {n}."}
        for n in range(5)
    ]
    path = tmp_path / "conf.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    other = tmp_path / "old.tsv"
    other.write_text("".join(f"c-{n}\told label {n}\n" for n in range(5)), encoding="utf-8")
    key = tmp_path / "key.tsv"
    args = ["eval", "labels", str(path), "--other", str(other), "--sample", "3", "--key", str(key)]
    result = run_here(tmp_path, *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("## Paper ") == 3
    assert "Paper 0" not in result.stdout.replace("## Paper ", "")  # titles stay hidden
    assert len(key.read_text(encoding="utf-8").splitlines()) == 4
    compared = run_here(
        tmp_path, "eval", "labels", str(path), "--other", str(other), "--pairs", "2"
    )
    assert compared.returncode == 0, compared.stderr
    assert "conf.jsonl (other)" in compared.stdout
    assert compared.stdout.count("→") == 2
    # --sample without a key is one line and nonzero
    refused = run_here(tmp_path, "eval", "labels", str(path), "--sample", "3")
    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0


def test_eval_labels_without_titles_is_one_line_and_nonzero(tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text("ICML 2026 论文列表\n\nWe propose FooNet, a network.\n", encoding="utf-8")
    result = run_here(tmp_path, "eval", "labels", str(path))
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "needs JSONL lists with titles" in result.stderr


def test_status_without_processes_says_so(tmp_path: Path) -> None:
    result = run_here(tmp_path, "status")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == console.NO_NODES


def test_status_lists_processes_and_flags_the_silent_one(tmp_path: Path) -> None:
    async def report() -> None:
        async with await SqliteStore.open(tmp_path / "cli.db") as store:
            await store.heartbeat(NodeRow("old:7:1", "old", 7, "0", 2, 1.0, 1.0))
            now = time.time()
            await store.heartbeat(NodeRow("new:8:2", "new", 8, "1,2", 3, now, now, 1200))

    asyncio.run(report())
    # 600 s beats: "new" turns STALE only after 30 minutes, however slowly `status` starts.
    result = run_here(tmp_path, "status", PAPERBOT_HEARTBEAT_SECONDS="600")
    assert result.returncode == 0, result.stderr
    old, new = result.stdout.strip().splitlines()  # oldest start first
    assert old.startswith("old  pid 7  shards 0  generation 2  guilds 0  heartbeat ")
    assert old.endswith("STALE")
    assert new.startswith("new  pid 8  shards 1,2  generation 3  guilds 1,200  heartbeat ")
    assert "STALE" not in new


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (("--shard-count", "x", "--shard-ids", "0"), "--shard-count: Input should be a valid"),
        (("--shard-count", "0"), "--shard-count: Input should be greater than or equal to 1"),
        (("--shard-count", "2", "--shard-ids", "0-a"), "--shard-ids: expected shard numbers"),
        (("--shard-count", "2", "--shard-ids", "0-3"), "--shard-ids must be below --shard-count"),
        (("--shard-ids", "1"), "--shard-ids needs PAPERBOT_SHARD_COUNT"),
    ],
)
def test_bad_run_flags_are_one_line_naming_the_flag(
    tmp_path: Path, flags: tuple[str, ...], expected: str
) -> None:
    # A token is set, so only the flags can stop the bot before it connects.
    result = run_here(tmp_path, "run", *flags, PAPERBOT_DISCORD_TOKEN="x")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and expected in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and "PAPERBOT_SHARD_IDS" not in result.stderr


def test_run_flags_override_the_shard_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.terminal.cli import _parser, settings_for

    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.setenv("PAPERBOT_SHARD_COUNT", "8")
    monkeypatch.setenv("PAPERBOT_SHARD_IDS", "7")
    settings = settings_for(
        _parser().parse_args(["run", "--shard-count", "4", "--shard-ids", "0-2"])
    )
    assert (settings.shard_count, settings.shard_ids) == (4, [0, 1, 2])
    assert settings.owns_shard_zero
    # Only the count given: the environment's ids stay, checked against the new count.
    settings = settings_for(_parser().parse_args(["run", "--shard-count", "9"]))
    assert (settings.shard_count, settings.shard_ids) == (9, [7])
    # Other commands take no shard flags: the environment is used as is.
    settings = settings_for(_parser().parse_args(["stats"]))
    assert (settings.shard_count, settings.shard_ids) == (8, [7])


def test_chat_console_summarises_an_opened_paper(tmp_path: Path) -> None:
    result = run_here(tmp_path, "chat", stdin="paper icml2026-1\ntl;dr\nquit\n")
    assert result.returncode == 0, result.stderr
    assert "Summary:" in result.stdout


def test_a_bad_batch_line_stops_the_run_before_any_result(tmp_path: Path) -> None:
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\tMoE routing\nnot a query line\nq3\trouting\n", encoding="utf-8")
    result = run_here(tmp_path, "search", "--batch", str(queries), "--top-k", "2")
    assert result.returncode == 1
    assert result.stdout == ""  # no partial result file that looks complete
    assert "queries.tsv:2:" in result.stderr and "Traceback" not in result.stderr


def test_ask_about_a_paper_named_by_id_answers_about_that_paper(tmp_path: Path) -> None:
    result = run_here(tmp_path, "ask", "does icml2026-6 have code?")
    assert result.returncode == 0, result.stderr
    assert "[icml2026-6]" in result.stdout
    assert "https://github.com/2020-qqtcg/DRIFT" in result.stdout
    assert "matching papers" not in result.stdout  # an answer about one paper, not a search


def test_ask_to_compare_papers_named_by_id_compares_them(tmp_path: Path) -> None:
    result = run_here(tmp_path, "ask", "compare icml2026-13 and icml2026-25")
    assert result.returncode == 0, result.stderr
    assert "Compared: icml2026-13 vs icml2026-25" in result.stdout
    assert "No paper mentions" not in result.stdout  # the ids are not searched as words


def test_ask_with_only_an_id_shows_that_paper(tmp_path: Path) -> None:
    result = run_here(tmp_path, "ask", "ICML 2026-6")
    assert result.returncode == 0, result.stderr
    assert "icml2026-6 · ICML 2026" in result.stdout
    assert "No paper mentions" not in result.stdout  # not searched as a word


def test_ask_about_an_unknown_id_fails_with_its_closest(tmp_path: Path) -> None:
    result = run_here(tmp_path, "ask", "does icml2026-999 have code?")
    assert result.returncode == 1
    assert "No paper has the id" in result.stdout


def test_a_query_beside_batch_is_refused_in_one_line(tmp_path: Path) -> None:
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\tMoE routing\n", encoding="utf-8")
    result = run_here(tmp_path, "search", "x", "--batch", str(queries))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == (
        "paperbot: search takes a query or --batch FILE, not both (got “x”)"
    )


def test_similar_says_whose_papers_these_are(tmp_path: Path) -> None:
    result = run_here(tmp_path, "similar", "icml2026-13", "--top-k", "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Papers like icml2026-13 (Eyes-on-Me")
    assert "\n1. " in result.stdout and "icml2026-13 ·" not in result.stdout


@pytest.mark.parametrize("command", [["ask", "moe routing"], ["search", "moe"], ["stats"]])
def test_a_one_shot_command_starts_no_background_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    # Background work (completing the sentence table) would compete with the one answer and
    # be thrown away at exit, every run: only the console opens a warm engine.
    from retrieval.engine import Engine

    opened: list[bool] = []
    real_open = Engine.open

    async def recording_open(*args: object, warm: bool = True, **kwargs: object) -> Engine:
        opened.append(warm)
        return await real_open(*args, warm=warm, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Engine, "open", recording_open)
    result = run_here(tmp_path, *command)
    assert result.returncode == 0, result.stderr
    assert opened == [False]
