"""Speed benchmark: paperbot against rank_bm25, bm25s and SQLite FTS5, in one run.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python benchmarks/run.py --sizes 10000,100000,1000000 --data ../shared/data

For each size it builds a corpus from the real abstracts (see corpus.py for the replication),
then runs every system and phase in a subprocess of its own (systems.py), on the same corpus and
the same queries, and prints markdown tables with the targets of issue 4. Raw results (every
latency) go to WORK/results/*.json; the tables also go to WORK/results.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402

PHASES = [
    ("paperbot", "ingest"),
    ("paperbot", "serve"),
    ("bm25s", "build"),
    ("bm25s", "serve"),
    ("fts5", "build"),
    ("fts5", "serve"),
    ("rank_bm25", "serve"),
]
ROW_ORDER = ["paperbot answer", "paperbot rank", "bm25s", "SQLite FTS5", "rank_bm25 BM25Okapi"]
SYSTEM_OF_ROW = {
    "paperbot answer": "paperbot",
    "paperbot rank": "paperbot",
    "bm25s": "bm25s",
    "SQLite FTS5": "fts5",
    "rank_bm25 BM25Okapi": "rank_bm25",
}


def okapi_sample(size: int) -> int:
    """Queries for the naive baseline: seconds per query at 1M documents."""
    return 300 if size <= 10_000 else 100 if size <= 100_000 else 30


def run_phase(system: str, phase: str, size: int, args: argparse.Namespace) -> dict[str, Any]:
    out = args.work / "results" / f"{size}-{system}-{phase}.json"
    if args.reuse and out.exists():
        return dict(json.loads(out.read_text()))
    command = [
        sys.executable,
        str(HERE / "systems.py"),
        system,
        phase,
        f"--size={size}",
        f"--work={args.work}",
        f"--data={args.data}",
        f"--budget={args.budget}",
        f"--sample={okapi_sample(size)}",
    ]
    print(f"[{time.strftime('%H:%M:%S')}] {size:,}: {system} {phase}", file=sys.stderr, flush=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(done.stderr[-3000:], file=sys.stderr)
        return {"system": system, "phase": phase, "error": done.stderr.strip()[-300:]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result))
    return result


def stats(latencies: list[float]) -> dict[str, float]:
    values = np.asarray(latencies, dtype=np.float64)
    p50, p95, p99 = np.percentile(values, [50, 95, 99])
    return {
        "p50": float(p50),
        "p95": float(p95),
        "p99": float(p99),
        "mean": float(values.mean()),
        "qps": 1000 / float(values.mean()),
        "n": len(values),
    }


def _fmt(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def _ms(value: float) -> str:
    return f"{value:,.2f}" if value < 10 else f"{value:,.1f}" if value < 1000 else f"{value:,.0f}"


def table(size: int, results: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The markdown table for one size, and the numbers the target checks need."""
    by_system: dict[str, dict[str, Any]] = {}
    latencies: dict[str, list[float]] = {}
    for result in results:
        merged = by_system.setdefault(result["system"], {})
        merged.update({k: v for k, v in result.items() if k != "latencies_ms"})
        latencies.update(result.get("latencies_ms", {}))
    lines = [
        f"### {size:,} abstracts",
        "",
        "| system | build / ingest s | build peak RSS MB | on disk MB | cold start s | "
        "serve peak RSS MB | p50 ms | p95 ms | p99 ms | QPS | queries |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    numbers: dict[str, Any] = {"latency": {}, "system": by_system, "raw": latencies}
    for row in ROW_ORDER:
        system = by_system.get(SYSTEM_OF_ROW[row], {})
        if row not in latencies or not latencies[row]:
            if "error" in system:
                lines.append(f"| {row} | failed: {system['error'][-80:]} |" + " |" * 9)
            continue
        s = stats(latencies[row])
        numbers["latency"][row] = s
        build = system.get("build_s")
        lines.append(
            f"| {row} | {_fmt(build)} | {_fmt(system.get('build_rss_mb'), 0)} | "
            f"{_fmt(system.get('disk_mb'))} | {_fmt(system.get('cold_start_s'), 2)} | "
            f"{_fmt(system.get('serve_rss_mb'), 0)} | {_ms(s['p50'])} | {_ms(s['p95'])} | "
            f"{_ms(s['p99'])} | {s['qps']:,.0f} | {s['n']:,} |"
        )
    loads = [value for result in results for value in result.get("load_average", [])]
    if loads:
        lines += ["", f"1-minute load average during the runs: {min(loads):.1f}–{max(loads):.1f}"]
    return "\n".join(lines), numbers


def comparisons(numbers: dict[str, Any]) -> list[str]:
    """Speed ratios on exactly the same queries (the first n of the shared list)."""
    raw = numbers["raw"]
    lines = []
    for base in ("rank_bm25 BM25Okapi", "bm25s", "SQLite FTS5"):
        if base not in raw:
            continue
        for ours in ("paperbot answer", "paperbot rank"):
            if ours not in raw:
                continue
            n = min(len(raw[base]), len(raw[ours]))
            a, b = np.asarray(raw[ours][:n]), np.asarray(raw[base][:n])
            lines.append(
                f"- {ours} vs {base} on the same {n:,} queries: "
                f"{b.mean() / a.mean():,.1f}× faster by mean, "
                f"{np.median(b) / np.median(a):,.1f}× by median"
            )
    return lines


def checks(size: int, numbers: dict[str, Any]) -> list[str]:
    """Issue 4's targets for this size, each marked met or not met with the measured value."""
    latency, systems, raw = numbers["latency"], numbers["system"], numbers["raw"]
    answer = latency.get("paperbot answer")
    paperbot = systems.get("paperbot", {})
    found: list[tuple[str, bool, str]] = []

    def ratio(base: str, ours: str = "paperbot answer") -> tuple[float, float] | None:
        """How many times faster paperbot is, by mean and by median, on the same queries."""
        if base not in raw or ours not in raw:
            return None
        n = min(len(raw[base]), len(raw[ours]))
        theirs, mine = raw[base][:n], raw[ours][:n]
        return (
            float(np.mean(theirs) / np.mean(mine)),
            float(np.median(theirs) / np.median(mine)),
        )

    if size == 100_000 and answer:
        found.append(("query p50 ≤ 5 ms", answer["p50"] <= 5, f"{answer['p50']:.2f} ms"))
        found.append(("query p99 ≤ 25 ms", answer["p99"] <= 25, f"{answer['p99']:.2f} ms"))
        okapi = ratio("rank_bm25 BM25Okapi")
        if okapi is not None:
            found.append(
                (
                    "≥ 50× faster than BM25Okapi.get_scores (mean and median)",
                    min(okapi) >= 50,
                    f"{okapi[0]:.0f}× by mean, {okapi[1]:.0f}× by median",
                )
            )
        bm25s = ratio("bm25s")
        if bm25s is not None:
            found.append(
                (
                    "not slower than bm25s (mean and median)",
                    min(bm25s) >= 1,
                    f"{bm25s[0]:.2f}× by mean, {bm25s[1]:.2f}× by median",
                )
            )
        cold = paperbot.get("cold_start_s")
        if cold is not None:
            found.append(("cold start ≤ 2 s", cold <= 2, f"{cold:.2f} s"))
        ingest = paperbot.get("build_s")
        if ingest is not None:
            found.append(("ingest ≤ 60 s", ingest <= 60, f"{ingest:.1f} s"))
        rss = max(paperbot.get("build_rss_mb", 0), paperbot.get("serve_rss_mb", 0))
        if rss:
            found.append(("peak RSS ≤ 1.5 GB", rss <= 1536, f"{rss:,.0f} MB"))
    if size == 1_000_000:
        ingested = paperbot.get("build_s")
        found.append(
            (
                "ingest works",
                ingested is not None,
                f"{ingested:.0f} s" if ingested is not None else "failed",
            )
        )
        if answer:
            found.append(("query p99 ≤ 100 ms", answer["p99"] <= 100, f"{answer['p99']:.1f} ms"))
    return [f"- {'met' if ok else 'NOT met'}: {name} ({value})" for name, ok, value in found]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated corpus sizes")
    parser.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    parser.add_argument("--work", type=Path, default=Path("/tmp/paperbot-bench"))
    parser.add_argument("--systems", default="paperbot,bm25s,fts5,rank_bm25")
    parser.add_argument("--budget", type=float, default=600, help="query seconds per system")
    parser.add_argument("--reuse", action="store_true", help="keep results already measured")
    args = parser.parse_args()
    args.work = args.work.resolve()
    args.data = args.data.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    wanted = set(args.systems.split(","))
    sizes = [int(size) for size in args.sizes.split(",")]

    base = corpus.base_documents(args.data)
    corpus.check_replica_tokens(base)
    queries = corpus.queries(args.data)
    (args.work / "queries.json").write_text(
        json.dumps([{"kind": q.kind, "text": q.text} for q in queries], ensure_ascii=False)
    )
    report = [
        f"Corpus: {len(base):,} real abstracts, replicated; {len(queries):,} queries "
        f"({sum(q.kind == 'scifact' for q in queries):,} SciFact claims, "
        f"{sum(q.kind == 'title' for q in queries):,} titles, "
        f"{sum(q.kind == 'question' for q in queries):,} questions).",
    ]
    for size in sizes:
        corpus.write_corpus(base, size, args.work)
        results = [
            run_phase(system, phase, size, args) for system, phase in PHASES if system in wanted
        ]
        text, numbers = table(size, results)
        section = ["", text, "", *comparisons(numbers), *checks(size, numbers)]
        report += section
        print("\n".join(section), flush=True)
    markdown = "\n".join(report)
    (args.work / "results.md").write_text(markdown + "\n")
    print("\n" + markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
