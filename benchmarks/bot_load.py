"""Bot under load: 200 `/ask` in 10 s against the real `paperbot run` process, via the fake Discord.

Not part of CI (it needs ../shared/harness and the conference lists). Usage:

    .venv/bin/python benchmarks/bot_load.py ../shared/harness \
        --data ../shared/data/conference_abstracts [--count 200] [--seconds 10] [--users 50]

The conference .txt lists are ingested into a temporary database first (`paperbot ingest`),
then `paperbot run` logs in to the harness. After one warm-up question, `--count` /ask
interactions are dispatched at an even pace over `--seconds`, cycling through varied questions
and through `--users` members so that the default per-user cooldown (5 questions / 30 s) never
refuses one (50 users x 4 questions). The event-loop lag comes from `/stats`, sent right after
the last /ask (the bot's own probe: a 100 ms sleep, how late it woke; its samples cover the
bot's start, the warm-up and the load), and the bot log's "event loop blocked" warnings.
Prints a Markdown table; exit status 0 only when every target is met.

Targets (issue 4): every interaction acknowledged within 3 s; event-loop lag p99 < 100 ms.

Options for finding causes: `--reload-during N` adds a list of N new abstracts to the seeds
folder half-way through and runs `/admin reload` (questions while an ingest runs);
`--py-spy OUT` samples the bot's GIL-holding threads during the load; `--env NAME=VALUE`
passes e.g. `PYTHONASYNCIODEBUG=1` (asyncio then logs callbacks slower than 100 ms).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAPERBOT = ROOT / ".venv" / "bin" / "paperbot"
ACK_TARGET_S = 3.0
LAG_P99_TARGET_MS = 100.0

# Questions as people type them: short topics, full questions, operators, typos, long ones.
QUESTIONS = [
    "which papers study MoE routing?",
    "mixture of experts load balancing",
    "attacks on RAG retrievers",
    "poisoning retrieval-augmented generation",
    "how do diffusion models generate video?",
    "speculative decoding for faster LLM inference",
    "KV cache compression for long context",
    "membership inference against language models",
    "watermarking LLM generated text",
    "low-rank adaptation fine-tuning",
    "why does in-context learning work",
    "graph neural networks oversmoothing",
    "federated learning with differential privacy",
    "reward hacking in RLHF",
    "direct preference optimization vs PPO",
    "uncertainty calibration of classifiers",
    "out-of-distribution detection",
    "state space models like Mamba versus attention",
    "test-time scaling of reasoning models",
    "chain of thought faithfulness",
    "neural scaling laws data and compute",
    "offline reinforcement learning conservative Q",
    "multi-armed bandits regret bounds",
    "causal discovery from observational data",
    "protein structure prediction",
    "molecule generation with diffusion",
    "vision language model hallucination",
    "adversarial robustness certified defenses",
    "quantization of large language models to 4 bit",
    "sparse attention for long sequences",
    '"in-context learning" -vision',
    "benchmark for multi-agent LLM reasoning",
    "tabular data deep learning vs gradient boosting",
    "model merging task arithmetic",
    "continual learning catastrophic forgetting",
    "knowledge distillation from large to small models",
    "optimal transport for domain adaptation",
    "neural radiance fields 3D reconstruction",
    "self-supervised contrastive representation learning",
    "LLM agents tool use",
    "machine unlearning for LLMs",
    "differentially private SGD",
    "transformers length generalization",
    "mechanistic interpretability sparse autoencoders",
    "grokking and generalization",
    "alignment faking",
    "time series forecasting foundation models",
    "reinforcement learning from verifiable rewards for math",
    "diffusoin modles for imgae editing",
    "code generation with large language models evaluation",
    "which papers combine graph neural networks with large language models for molecular "
    "property prediction, and how do they handle 3D structure?",
    "is there any work on the privacy risks of fine-tuning on user data?",
]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (the same definition as bot/discord_shell/looplag.py)."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def texts(message: dict[str, Any] | None) -> str:
    if not message:
        return ""
    parts = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{f['name']}\n{f['value']}" for f in embed.get("fields") or []]
    return "\n".join(parts)


def ingest(data: Path, env: dict[str, str]) -> float:
    files = sorted(data.glob("*.txt"))
    if not files:
        raise SystemExit(f"no .txt lists in {data}")
    started = time.perf_counter()
    out = subprocess.run(
        [str(PAPERBOT), "ingest", *map(str, files)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"ingest failed ({out.returncode}): {out.stderr[-2000:]}")
    return time.perf_counter() - started


def outcome(result: Any) -> dict[str, Any]:
    """Ack and answer times (seconds since dispatch) and whether a real answer arrived."""
    events = result.events
    acks = [e["at"] for e in events if e["kind"] == "callback" and e.get("status") == 200]
    filled = [
        e["at"] for e in events if e["kind"] in ("followup", "edit") and e.get("status") == 200
    ]
    messages = result.messages
    shown = texts(messages[-1]) if messages else ""
    refused = "try again in" in shown or "went wrong" in shown
    loading = bool(messages and (messages[0].get("flags") or 0) & 128)
    answered = bool(shown) and not refused and not loading and result.status == "acknowledged"
    return {
        "status": result.status,
        "ack": acks[0] if acks else None,
        "answer": filled[0] if filled else None,
        "answered": answered,
        "refused": refused,
        "http_errors": [e for e in events if (e.get("status") or 200) >= 400],
    }


def lag_from_stats(result: Any) -> dict[str, float | int | None]:
    """Parse the /stats field 'Event-loop lag p50 / p99 / max': 'a ms / b ms / c ms (n samples)'."""
    for message in result.messages:
        for embed in message.get("embeds") or []:
            for field in embed.get("fields") or []:
                if field["name"].startswith("Event-loop lag"):
                    numbers = re.findall(r"([\d.,]+) ms", field["value"])
                    samples = re.search(r"\(([\d,]+) samples\)", field["value"])
                    values = [float(n.replace(",", "")) for n in numbers]
                    if len(values) == 3:
                        return {
                            "p50_ms": values[0],
                            "p99_ms": values[1],
                            "max_ms": values[2],
                            "samples": int(samples.group(1).replace(",", "")) if samples else None,
                        }
    return {"p50_ms": None, "p99_ms": None, "max_ms": None, "samples": None}


def stats_field(result: Any, name: str) -> str:
    for message in result.messages:
        for embed in message.get("embeds") or []:
            for field in embed.get("fields") or []:
                if field["name"] == name:
                    return str(field["value"])
    return "?"


def write_list(corpus: Path, count: int, out: Path) -> None:
    """A .txt paper list of `count` abstracts the database does not hold yet."""
    abstracts = []
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            text = " ".join(str(json.loads(line).get("text") or "").split())
            if len(text) > 200:
                abstracts.append(text)
            if len(abstracts) == count:
                break
    out.write_text("SciFact sample\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")


def load(
    h: Any, count: int, seconds: float, users: list[str], reload: Any = None
) -> dict[str, Any]:
    handles = []
    skew = 0.0
    reloaded = None
    started = time.perf_counter()
    for i in range(count):
        if reload is not None and i == count // 2:
            reload()
            reloaded = h.slash("admin reload", user="owner")
        due = started + i * seconds / count
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        skew = max(skew, time.perf_counter() - due)
        question = QUESTIONS[i % len(QUESTIONS)]
        handles.append(h.slash("ask", question=question, user=users[i % len(users)]))
    dispatched = time.perf_counter() - started
    # Read the lag now: the samples then cover start-up and the load, not the idle time
    # spent collecting results below.
    stats = h.slash("stats", user="owner")
    results = [outcome(handle.result(timeout=60, settle=0.05)) for handle in handles]
    reload_outcome = None
    if reloaded is not None:
        done = reloaded.result(timeout=120, settle=0.05)
        reload_outcome = dict(
            outcome(done), text=texts(done.messages[-1] if done.messages else None)
        )
    return {
        "dispatched_s": dispatched,
        "max_dispatch_skew_s": skew,
        "results": results,
        "reload": reload_outcome,
        "stats": stats.result(timeout=30),
    }


def fmt(value: float | None, scale: float = 1.0, unit: str = "ms") -> str:
    return "—" if value is None else f"{value * scale:.0f} {unit}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("harness", type=Path, help="path to the shared harness folder")
    parser.add_argument("--data", type=Path, required=True, help="conference .txt lists to ingest")
    parser.add_argument("--count", type=int, default=200, help="/ask interactions (default 200)")
    parser.add_argument("--seconds", type=float, default=10.0, help="spread over (default 10)")
    parser.add_argument("--users", type=int, default=50, help="distinct members (default 50)")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the bot, e.g. PYTHONASYNCIODEBUG=1 to name slow callbacks",
    )
    parser.add_argument(
        "--reload-during",
        type=int,
        default=0,
        metavar="N",
        help="half-way through, add a list of N new abstracts (from --scifact) to the seeds "
        "folder and run /admin reload as the guild owner: questions during an ingest",
    )
    parser.add_argument(
        "--scifact",
        type=Path,
        default=ROOT.parent / "shared" / "data" / "scifact" / "corpus.jsonl",
        help="BEIR corpus.jsonl the --reload-during abstracts come from",
    )
    parser.add_argument(
        "--py-spy",
        type=Path,
        metavar="OUT",
        help="sample the bot's GIL-holding threads during the load (py-spy raw format) into OUT",
    )
    parser.add_argument("--json", action="store_true", help="also print the summary as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    sys.path.insert(0, str(args.harness.resolve()))
    from fakediscord import Harness  # the harness is not a project dependency

    workdir = Path(tempfile.mkdtemp(prefix="paperbot-load-"))
    env = {
        "PAPERBOT_DB_PATH": str(workdir / "paperbot.db"),
        "PAPERBOT_LOG_LEVEL": "INFO",
        "PAPERBOT_LOG_FILE": str(workdir / "paperbot.log"),
    }
    seeds = workdir / "seeds"
    seeds.mkdir()
    env["PAPERBOT_SEEDS_DIR"] = str(seeds)
    env.update(item.split("=", 1) for item in args.env)
    ingest_s = ingest(args.data, {**os.environ, **env})
    print(f"ingested {args.data} in {ingest_s:.1f} s", flush=True)

    names = [f"user{i:02d}" for i in range(args.users)]
    with Harness(users=tuple(names)) as h:
        started = time.perf_counter()
        h.launch([str(PAPERBOT), "run"], env=env, cwd=str(ROOT), token_env="PAPERBOT_DISCORD_TOKEN")
        h.wait_ready(timeout=180, commands=True)
        print(f"bot ready in {time.perf_counter() - started:.1f} s", flush=True)
        before = h.slash("stats", user="owner").result(timeout=10)
        warm = outcome(h.slash("ask", question="warm-up question", user="owner").result(timeout=30))
        print(f"warm-up /ask: ack {warm['ack']} s, answer {warm['answer']} s", flush=True)
        spy = None
        if args.py_spy and h.process is not None:
            command = [str(ROOT / ".venv" / "bin" / "py-spy"), "record"]
            command += ["--pid", str(h.process.pid), "--gil", "--threads", "-r", "250"]
            command += ["-f", "raw", "-o", str(args.py_spy), "-d", str(math.ceil(args.seconds) + 3)]
            spy = subprocess.Popen(
                command,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(0.5)
        reload = None
        if args.reload_during:
            target = seeds / "scifact_sample.txt"

            def reload() -> None:
                write_list(args.scifact, args.reload_during, target)

        run = load(h, args.count, args.seconds, names, reload)
        if spy is not None:
            spy.wait(timeout=60)
        after = run["stats"]
        violations = h.violations()
        output = h.bot_output()
        h.stop_bot()

    results = run["results"]
    acks = [r["ack"] for r in results if r["ack"] is not None]
    answers = [r["answer"] for r in results if r["answer"] is not None]
    failed = [r for r in results if not r["answered"]]
    lag = lag_from_stats(after)
    log_file = Path(env["PAPERBOT_LOG_FILE"])
    log_text = log_file.read_text(errors="replace") if log_file.exists() else output
    blocked = log_text.count("event loop blocked")
    errors = [line for line in output.splitlines() if " ERROR " in line or "Traceback" in line]
    summary = {
        "count": args.count,
        "seconds": args.seconds,
        "users": args.users,
        "papers": stats_field(after, "Papers"),
        "dispatched_s": round(run["dispatched_s"], 2),
        "max_dispatch_skew_s": round(run["max_dispatch_skew_s"], 3),
        "acknowledged": sum(r["status"] == "acknowledged" for r in results),
        "failed_interactions": sum(r["status"] == "failed" for r in results),
        "not_answered": len(failed),
        "cooldown_or_error_replies": sum(r["refused"] for r in results),
        "ack_p50_s": percentile(acks, 0.5) if acks else None,
        "ack_p99_s": percentile(acks, 0.99) if acks else None,
        "ack_max_s": max(acks) if acks else None,
        "answer_p50_s": percentile(answers, 0.5) if answers else None,
        "answer_p99_s": percentile(answers, 0.99) if answers else None,
        "answer_max_s": max(answers) if answers else None,
        "loop_lag": lag,
        "loop_lag_before_load": lag_from_stats(before),
        "loop_blocked_warnings": blocked,
        "engine_latency_p50_p95": stats_field(after, "Latency p50 / p95"),
        "violations": len(violations),
        "bot_log_errors": len(errors),
    }
    if run["reload"] is not None:
        done = run["reload"]
        summary["reload"] = {
            "abstracts": args.reload_during,
            "status": done["status"],
            "ack_s": done["ack"],
            "answer_s": done["answer"],
            "report": " ".join(done["text"].split())[:300],
        }
    ack_ok = summary["acknowledged"] == args.count and (summary["ack_max_s"] or 99) <= ACK_TARGET_S
    lag_ok = lag["p99_ms"] is not None and float(lag["p99_ms"]) < LAG_P99_TARGET_MS
    ok = ack_ok and lag_ok and not failed and not violations

    print(
        f"\n{args.count} /ask over {args.seconds:g} s from {args.users} users, "
        f"{summary['papers']} papers; dispatched in {summary['dispatched_s']} s\n"
    )
    print("| measure | p50 | p99 | max | target |")
    print("|---|---|---|---|---|")
    print(
        f"| acknowledgement (defer) | {fmt(summary['ack_p50_s'], 1000)} | "
        f"{fmt(summary['ack_p99_s'], 1000)} | {fmt(summary['ack_max_s'], 1000)} | "
        f"all ≤ 3 s: {'met' if ack_ok else 'MISSED'} |"
    )
    print(
        f"| answer in place | {fmt(summary['answer_p50_s'], 1000)} | "
        f"{fmt(summary['answer_p99_s'], 1000)} | {fmt(summary['answer_max_s'], 1000)} | — |"
    )
    print(
        f"| event-loop lag ({lag['samples']} samples) | {lag['p50_ms']} ms | {lag['p99_ms']} ms | "
        f"{lag['max_ms']} ms | p99 < 100 ms: {'met' if lag_ok else 'MISSED'} |"
    )
    print(
        f"\nacknowledged {summary['acknowledged']}/{args.count}; failed (no ack in 3 s) "
        f"{summary['failed_interactions']}; not answered {summary['not_answered']} "
        f"(cooldown/error replies {summary['cooldown_or_error_replies']}); "
        f"'event loop blocked' warnings {blocked}; harness violations {len(violations)}; "
        f"bot log errors {len(errors)}; engine latency p50/p95 {summary['engine_latency_p50_p95']}"
    )
    if "reload" in summary:
        print(f"/admin reload during the load: {summary['reload']}")
    for v in violations[:10]:
        print(f"  violation {v['level']} {v['rule']}: {v['message']}")
    for line in errors[:10]:
        print("  " + line[:300])
    if args.json:
        print(json.dumps(summary, indent=2))
    if args.keep:
        print(f"kept {workdir}")
    else:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
