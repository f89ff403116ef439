"""Two `paperbot run` processes over one PostgreSQL database, against the shared fake Discord.

Not collected by pytest (it needs the shared harness and a PostgreSQL server). Usage:

    /work/main/.venv/bin/python tools/e2e/cluster_check.py ../shared/harness \
        [--database-url postgresql://postgres@127.0.0.1:5432/postgres] \
        [--papers 100000 [--data ../shared/data]]

A fresh database is created next to the one the URL names (default PAPERBOT_TEST_DATABASE_URL)
and dropped at the end. The seeds (and with --papers N, N replicated real abstracts from
benchmarks/corpus.py) are ingested first. Then Harness(guilds=4, recommended_shards=2) and two
processes, `paperbot run --shard-count 2 --shard-ids 0` (s0) and `... 1` (s1), and the checks:

- /ask in every guild is answered, and the guild belongs to the process its shard says;
- /save in a guild of s0, then /saved in a guild of s1 shows the paper;
- `paperbot ingest` of a new list while both run: both answer about the new paper within 10 s
  (the delay is measured from the ingest command's exit);
- kill -9 s1 the moment an ingest has committed (its NOTIFY is on the way: s1 is starting to
  catch up) and while an /ask to it is in flight (that one question fails, as on Discord, and is
  the only violation allowed); ingest another new list while it is down; relaunch it: the time
  until it is ready and until it answers about both papers (catch-up) is measured; no
  reading-list entry is lost or duplicated (in /saved and in the database);
- /stats shows both processes live at the store's generation;
- no harness violation of level error, no ERROR line or traceback in either bot's log.

Exit status 0 only when every check passes. A summary of the numbers is printed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
from harness import PAPERBOT, ROOT, TOKEN_ENV, Check, last, load_harness, poll, texts

QUESTION = "which papers study mixture of experts routing?"
# Interactions sent to a process as it is killed: their failure is what Discord shows too.
EXPECTED_FAILURES: set[str] = set()
NEW_LISTS = {
    "zorblax": (
        "Cluster Check Papers\n\n"
        "We introduce Zorblax, a quasicrystal annealing schedule for training sparse mixture "
        "of experts models. Zorblax anneals router temperatures along a quasicrystal lattice "
        "and reduces expert collapse on language modelling benchmarks.\n"
    ),
    "wobblequant": (
        "Cluster Check Papers\n\n"
        "Wobblequant quantizes key value caches of language models to three bits with a learned "
        "wobble transform. Wobblequant keeps long-context accuracy at a fifth of the memory.\n"
    ),
    "quibbleflux": (
        "Cluster Check Papers\n\n"
        "Quibbleflux is a benchmark of hand-written proofs for checking whether retrieval "
        "augmented provers cite the lemmas they use. Quibbleflux covers algebra, topology "
        "and combinatorics.\n"
    ),
}


def paperbot(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`paperbot ARGS` with this checkout's code, in a subprocess."""
    return subprocess.run(
        [*PAPERBOT, *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=3600,
    )


def ingest(paths: list[Path], env: dict[str, str], what: str) -> float:
    started = time.perf_counter()
    out = paperbot("ingest", *map(str, paths), env=env)
    took = time.perf_counter() - started
    if out.returncode != 0:
        raise SystemExit(f"ingest of {what} failed ({out.returncode}): {out.stderr[-2000:]}")
    print(f"  ingest {what}: {out.stdout.strip().splitlines()[-1]} ({took:.1f} s)", flush=True)
    return took


def write_papers(count: int, data: Path, work: Path) -> Path:
    """`count` distinct real abstracts (replicated with marker words) as JSONL files."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.corpus import base_documents, write_corpus

    base = base_documents(data)
    return write_corpus(base, count, work)


async def create_database(base_url: str) -> str:
    name = f"paperbot_cluster_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(base_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return base_url.rsplit("/", 1)[0] + f"/{name}"


async def drop_database(base_url: str, url: str) -> None:
    name = url.rsplit("/", 1)[1]
    admin = await asyncpg.connect(base_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


async def saved_rows(url: str, user_id: int) -> list[tuple[str, int]]:
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(
            "SELECT paper_id, count(*) FROM reading_list WHERE user_id = $1 "
            "GROUP BY paper_id ORDER BY paper_id",
            user_id,
        )
    finally:
        await connection.close()
    return [(row[0], row[1]) for row in rows]


async def store_generation(url: str) -> int:
    connection = await asyncpg.connect(url)
    try:
        value = await connection.fetchval("SELECT value FROM meta WHERE key = 'generation'")
    finally:
        await connection.close()
    return int(value or 0)


def ask(h: Any, guild: str, question: str = QUESTION) -> str:
    result = h.slash("ask", question=question, guild=guild, user="alice").result(timeout=30)
    return texts(last(result)) if result.status == "acknowledged" else ""


def answered(text: str) -> bool:
    return "No paper matches" not in text and "went wrong" not in text and bool(text.strip())


def until_answers(h: Any, guilds: dict[str, str], word: str, timeout: float) -> dict[str, float]:
    """Ask about `word` in one guild of each process until each answers with it; returns the
    seconds each took (from now)."""
    started = time.perf_counter()
    seen: dict[str, float] = {}
    while len(seen) < len(guilds) and time.perf_counter() - started < timeout:
        for bot, guild in guilds.items():
            if bot not in seen and word.lower() in ask(h, guild, f"{word} papers").lower():
                seen[bot] = time.perf_counter() - started
        time.sleep(0.05)
    return seen


def launch(h: Any, name: str, shard: int, env: dict[str, str], work: Path) -> None:
    process_env = {
        **env,
        "PAPERBOT_INDEX_DIR": str(work / f"index-{name}"),  # one machine each
        "PAPERBOT_LOG_FILE": str(work / f"{name}.log"),
    }
    command = [*PAPERBOT, "run", "--shard-count", "2", "--shard-ids", str(shard)]
    h.launch(command, env=process_env, cwd=str(ROOT), token_env=TOKEN_ENV, name=name)


def owners(h: Any) -> dict[int, str]:
    """guild id -> the launch name of the live session that owns it."""
    return {
        int(guild): session["bot"]
        for session in h.sessions()
        if session.get("live", True)
        for guild in session["guilds"]
    }


def run_checks(h: Any, check: Check, env: dict[str, str], work: Path, url: str) -> dict[str, Any]:
    numbers: dict[str, Any] = {}
    started = time.perf_counter()
    for shard in (0, 1):
        launch(h, f"s{shard}", shard, env, work)
    h.wait_ready(timeout=900, count=2)
    numbers["start_s"] = time.perf_counter() - started
    print(f"\n== both processes ready in {numbers['start_s']:.1f} s")

    guilds = h.guilds()
    owner = owners(h)
    by_bot: dict[str, str] = {}
    print("\n== /ask in every guild, answered by the process owning it")
    for guild in guilds:
        shard = (int(guild["id"]) >> 22) % 2
        bot = owner.get(int(guild["id"]))
        check.expect(bot == f"s{shard}", f"{guild['name']}: shard {shard} owned by {bot}")
        check.expect(answered(ask(h, guild["name"])), f"{guild['name']}: /ask answered")
        by_bot.setdefault(str(bot), guild["name"])
    check.expect(set(by_bot) == {"s0", "s1"}, f"each process owns guilds ({by_bot})")

    print("\n== reading list: /save in a guild of s0, /saved in a guild of s1")
    saved = h.slash("save", id="icml2026-1", guild=by_bot["s0"], user="alice").result(timeout=15)
    check.expect("Saved" in texts(last(saved)), "/save icml2026-1 in s0's guild")
    listed = h.slash("saved", guild=by_bot["s1"], user="alice").result(timeout=15)
    check.expect("icml2026-1" in texts(last(listed)), "/saved in s1's guild shows icml2026-1")

    print("\n== paperbot ingest of a new list while both run")
    new = work / "zorblax.txt"
    new.write_text(NEW_LISTS["zorblax"], encoding="utf-8")
    ingest([new], env | {"PAPERBOT_INDEX_DIR": str(work / "index-cli")}, "a new list")
    seen = until_answers(h, by_bot, "Zorblax", timeout=30)
    for bot in ("s0", "s1"):
        took = seen.get(bot)
        numbers[f"new_paper_{bot}_s"] = took
        check.expect(
            took is not None and took <= 10, f"{bot} answers about the new paper ({_s(took)})"
        )

    print("\n== kill -9 s1 as an ingest commits, with an /ask in flight; ingest while it is down")
    second = h.slash("save", id="icml2026-2", guild=by_bot["s1"], user="alice").result(timeout=15)
    check.expect("Saved" in texts(last(second)), "/save icml2026-2 in s1's guild")
    racing = work / "wobblequant.txt"
    racing.write_text(NEW_LISTS["wobblequant"], encoding="utf-8")
    ingest([racing], env | {"PAPERBOT_INDEX_DIR": str(work / "index-cli")}, "a list s1 races")
    in_flight = h.slash("ask", question=QUESTION, guild=by_bot["s1"], user="alice")
    h.kill_bot("s1")
    EXPECTED_FAILURES.add(str(in_flight.id))
    outcome = in_flight.result(timeout=15)
    print(f"  the /ask in flight on s1: {outcome.status} (a killed process answers nothing)")
    missed = work / "quibbleflux.txt"
    missed.write_text(NEW_LISTS["quibbleflux"], encoding="utf-8")
    ingest([missed], env | {"PAPERBOT_INDEX_DIR": str(work / "index-cli")}, "a list s1 missed")
    check.expect(
        "quibbleflux" in ask(h, by_bot["s0"], "Quibbleflux papers").lower(),
        "s0 kept answering while s1 was down",
    )
    relaunched = time.perf_counter()
    launch(h, "s1", 1, env, work)
    h.wait_ready(timeout=900, count=2)
    numbers["restart_ready_s"] = time.perf_counter() - relaunched
    poll(lambda: owners(h).get(int(_guild_id(h, by_bot["s1"]))) == "s1", 60, "s1's session")
    caught = until_answers(h, {"s1": by_bot["s1"]}, "Quibbleflux", timeout=120)
    took = caught.get("s1")
    numbers["restart_answer_s"] = None if took is None else time.perf_counter() - relaunched
    check.expect(took is not None, f"relaunched s1 answers about the paper it missed ({_s(took)})")
    raced = until_answers(h, {"s1": by_bot["s1"]}, "Wobblequant", timeout=30)
    check.expect("s1" in raced, "relaunched s1 answers about the list ingested as it was killed")
    print(
        f"  relaunch -> ready {_s(numbers['restart_ready_s'])}, "
        f"-> answering {_s(numbers['restart_answer_s'])}"
    )

    listed = h.slash("saved", guild=by_bot["s1"], user="alice").result(timeout=15)
    shown = texts(last(listed))
    check.expect(
        shown.count("icml2026-1") == 1 and shown.count("icml2026-2") == 1,
        "/saved after the kill: both entries, once each",
    )
    alice = int(h.user("alice")["id"])
    rows = asyncio.run(saved_rows(url, alice))
    check.expect(
        rows == [("icml2026-1", 1), ("icml2026-2", 1)], f"reading_list rows for alice: {rows}"
    )

    print("\n== /stats: the cluster")
    time.sleep(float(env["PAPERBOT_HEARTBEAT_SECONDS"]) * 1.5)  # both beat since the ingest
    generation = asyncio.run(store_generation(url))
    for bot, guild in by_bot.items():
        stats = h.slash("stats", guild=guild, user="alice").result(timeout=15)
        text = texts(last(stats))
        check.expect("2 live" in text, f"/stats in {bot}'s guild: 2 processes live")
        check.expect(
            f"store: **{generation}**" in text and " behind" not in text,
            f"/stats in {bot}'s guild: every live process at generation {generation}",
        )
        check.expect("Shards covered\n0,1 of 2" in text, f"/stats in {bot}'s guild: shards 0,1")
    return numbers


def _s(seconds: float | None) -> str:
    return "never" if seconds is None else f"{seconds:.2f} s"


def _guild_id(h: Any, name: str) -> str:
    return next(g["id"] for g in h.guilds() if g["name"] == name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("harness", type=Path, help="path to the shared harness folder")
    parser.add_argument("--database-url", default=os.environ.get("PAPERBOT_TEST_DATABASE_URL"))
    parser.add_argument("--papers", type=int, default=0, help="ingest N replicated abstracts")
    parser.add_argument(
        "--data",
        type=Path,
        help="with --papers: the shared data folder (conference_abstracts/, scifact/); "
        "default: beside the harness folder",
    )
    args = parser.parse_args()
    if not args.database_url:
        raise SystemExit("set PAPERBOT_TEST_DATABASE_URL or pass --database-url")
    harness = load_harness(args.harness)

    work = Path(tempfile.mkdtemp(prefix="paperbot-cluster-"))
    url = asyncio.run(create_database(args.database_url))
    env = {key: value for key, value in os.environ.items() if not key.startswith("PAPERBOT_")} | {
        "PYTHONPATH": str(ROOT),
        "PAPERBOT_DATABASE_URL": url,
        "PAPERBOT_COOLDOWN_QUESTIONS": "1000",
        "PAPERBOT_HEARTBEAT_SECONDS": "1",
        "PAPERBOT_LOG_LEVEL": "INFO",
    }
    check = Check()
    numbers: dict[str, Any] = {"papers": args.papers}
    try:
        print(f"== database {url.rsplit('/', 1)[1]}, work folder {work}")
        cli = env | {"PAPERBOT_INDEX_DIR": str(work / "index-cli")}
        paths = [ROOT / "seeds"]
        if args.papers:
            data = args.data or args.harness.resolve().parent / "data"
            paths.append(write_papers(args.papers, data, work))
        numbers["ingest_s"] = ingest(paths, cli, "seeds" + (" and papers" if args.papers else ""))
        with harness.Harness(guilds=4, recommended_shards=2) as h:
            try:
                numbers |= run_checks(h, check, env, work, url)
            finally:
                errors = []
                for violation in h.violations(level="error"):
                    if violation.get("interaction") in EXPECTED_FAILURES:
                        print(f"  expected (killed mid-question): {violation['rule']}")
                        continue
                    errors.append(violation)
                    print(f"  VIOLATION {violation['rule']}: {violation['message']}")
                h.stop_bot()
        check.expect(not errors, f"no harness violation of level error ({len(errors)})")
        for name in ("s0", "s1"):
            log = (work / f"{name}.log").read_text(errors="replace")
            bad = [line for line in log.splitlines() if " ERROR " in line or "Traceback" in line]
            check.expect(not bad, f"{name}'s log: no ERROR line, no traceback ({bad[:2]})")
    finally:
        asyncio.run(drop_database(args.database_url, url))

    print("\n== summary")
    for key, value in numbers.items():
        shown = f"{value:.2f}" if isinstance(value, float) else value
        print(f"  {key:<20} {shown}")
    return check.summary()


if __name__ == "__main__":
    raise SystemExit(main())
