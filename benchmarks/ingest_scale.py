"""Ingest of N abstracts from ONE JSONL file: wall time and peak memory of the whole process tree.

    .venv/bin/python benchmarks/ingest_scale.py --size 1000000 --data ../shared/data --work /tmp/pb

Writes the replicated corpus of benchmarks/corpus.py (distinct tag word per copy) as a single
JSONL file, then runs `python -m bot ingest FILE` (this interpreter, this checkout's code first
on PYTHONPATH, so a git worktree measures its own code) into a fresh database with the list
limits raised to fit it (PAPERBOT_MAX_LIST_PAPERS, PAPERBOT_MAX_LIST_FILE_BYTES: what a user
loading such a file sets). Memory is the summed RSS of paperbot and its worker processes,
sampled every 0.2 s from /proc, beside the CPU seconds they used (steadier than wall time on a
shared machine); the progress lines split the run into phases. The time includes
building and writing the index. Issue 10's ingest target is judged at 1M by the rule below.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# (target, rule over m, applies at this size or above)
TARGETS = [
    ("1M ingest from one JSONL <= 150 s", "m['seconds'] <= 150", 1_000_000),
    ("1M ingest peak RSS <= 3 GB", "m['peak_rss_mb'] <= 3000", 1_000_000),
]


def write_single_file(data: Path, size: int, work: Path) -> Path:
    sys.path.insert(0, str(HERE))
    import corpus

    path = work / f"one-{size}.jsonl"
    if path.exists():
        return path
    partial = path.with_suffix(".partial")
    with partial.open("w", encoding="utf-8") as file:
        for doc in corpus.replicate(corpus.base_documents(data), size):
            record = {"id": doc.id, "title": doc.title, "abstract": doc.abstract}
            file.write(json.dumps(record, ensure_ascii=False) + "\n")
    partial.rename(path)
    return path


def tree_usage(root: int, cpu_seen: dict[int, float]) -> tuple[float, float]:
    """Summed RSS (MB) of `root` and its descendants (children found through /proc/*/stat), and
    the CPU seconds the tree has used so far: each process's last sampled user + system time is
    kept in `cpu_seen`, so workers that have exited still count."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = int(fields[1])
            except OSError:
                continue
    family, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in family:
                family.add(pid)
                frontier.append(pid)
    total = 0
    ticks = os.sysconf("SC_CLK_TCK")
    for pid in family:
        try:
            with open(f"/proc/{pid}/statm") as file:
                total += int(file.read().split()[1])
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            # utime and stime: fields 14 and 15 of stat, 12 and 13 after the command name.
            cpu_seen[pid] = (int(fields[11]) + int(fields[12])) / ticks
        except OSError:
            continue
    return total * os.sysconf("SC_PAGE_SIZE") / 1e6, sum(cpu_seen.values())


def read_lines(
    process: subprocess.Popen[bytes], started: float, out: list[tuple[float, str]]
) -> None:
    assert process.stdout is not None
    for raw in process.stdout:
        out.append((time.perf_counter() - started, raw.decode(errors="replace").rstrip()))


def phases(lines: list[tuple[float, str]], seconds: float) -> list[tuple[str, float, float]]:
    """(name, start, end): parse + analyze until the last 'papers analyzed' line, the store
    write until the last 'papers written' line (a streamed file), then the index and the rest."""
    ends = [
        ("parse + analyze", "papers analyzed"),
        ("store write", "papers written"),
    ]
    found: list[tuple[str, float, float]] = []
    start = 0.0
    for name, marker in ends:
        times = [at for at, line in lines if marker in line]
        if times:
            found.append((name, start, times[-1]))
            start = times[-1]
    found.append(("the rest (store write if not shown, index, exit)", start, seconds))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=Path("/tmp/paperbot-ingest"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    source = write_single_file(args.data, args.size, args.work)
    db = args.work / f"ingest-{args.size}.db"
    for stale in args.work.glob(f"ingest-{args.size}.db*"):
        if stale.is_dir():
            shutil.rmtree(stale)
        else:
            stale.unlink()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "PAPERBOT_DB_PATH": str(db),
        "PAPERBOT_MAX_LIST_PAPERS": str(args.size + 1),
        "PAPERBOT_MAX_LIST_FILE_BYTES": str(source.stat().st_size + 1),
    }
    command = [sys.executable, "-m", "bot", "ingest", str(source)]
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    # Read as it is printed (a full pipe would stall paperbot), each line with its time, so the
    # progress lines can split the run into phases.
    lines: list[tuple[float, str]] = []
    reader = threading.Thread(target=read_lines, args=(process, started, lines), daemon=True)
    reader.start()
    samples: list[tuple[float, float, float]] = []  # (time, RSS MB, CPU seconds so far)
    cpu_seen: dict[int, float] = {}
    while process.poll() is None:
        rss, cpu = tree_usage(process.pid, cpu_seen)
        samples.append((time.perf_counter() - started, rss, cpu))
        time.sleep(0.2)
    seconds = time.perf_counter() - started
    reader.join(timeout=5)
    peak = max((rss for _, rss, _ in samples), default=0.0)
    cpu_total = max((cpu for _, _, cpu in samples), default=0.0)
    m = {"seconds": seconds, "peak_rss_mb": peak, "exit": process.returncode}
    print(lines[-1][1] if lines else "(no output)")
    print(f"\n**{args.size:,} abstracts in one file** ({source.stat().st_size / 1e6:,.0f} MB),")
    print(f"load average {os.getloadavg()[0]:.2f}\n")
    # CPU seconds beside wall seconds: on a shared machine the wall time moves with the load,
    # the CPU time much less.
    print("| seconds | papers/s | peak RSS MB (process tree) | CPU s (process tree) | exit |")
    print("|---|---|---|---|---|")
    print(
        f"| {seconds:.1f} | {args.size / seconds:,.0f} | {peak:,.0f} | {cpu_total:,.1f} "
        f"| {process.returncode} |\n"
    )
    print("| phase (ends at the last progress line of its kind) | seconds | peak RSS MB | CPU s |")
    print("|---|---|---|---|")
    for name, start, end in phases(lines, seconds):
        inside = [(rss, cpu) for at, rss, cpu in samples if start <= at <= end]
        before = [cpu for at, _, cpu in samples if at < start]
        used = max((cpu for _, cpu in inside), default=0.0) - max(before, default=0.0)
        print(
            f"| {name} | {end - start:.1f} | {max((r for r, _ in inside), default=0.0):,.0f} "
            f"| {used:,.1f} |"
        )
    print()
    print("| target | rule | verdict |\n|---|---|---|")
    for name, rule, applies in TARGETS:
        if args.size < applies:
            verdict = f"NOT MEASURED ({args.size:,} abstracts)"
        elif process.returncode != 0:
            verdict = "NOT MET (ingest failed)"
        else:
            verdict = "MET" if eval(rule, {}, {"m": m}) else "NOT MET"
        print(f"| {name} | `{rule}` | {verdict} |")
    return process.returncode


if __name__ == "__main__":
    sys.exit(main())
