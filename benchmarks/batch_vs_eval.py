"""`search --batch` against `eval beir` on one BEIR folder: the two must score the same.

    python benchmarks/batch_vs_eval.py ../shared/data/scifact [--split test] [--top-k 100]

Ingests the corpus into a throwaway database, runs the split's queries through the command
line's batch path (`paperbot search --batch FILE --top-k K --json`) and through `eval beir`, and
prints nDCG@10 of each and a verdict (equal to 4 decimals). Before the lead stopped reordering
the page, the batch path scored lower (issue 23).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from retrieval import metrics
from retrieval.evaluation import read_qrels, read_queries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--split", default="test")
    parser.add_argument("--top-k", type=int, default=100)
    args = parser.parse_args()
    qrels = read_qrels(args.directory / "qrels" / f"{args.split}.tsv")
    queries = {
        key: text
        for key, text in read_queries(args.directory / "queries.jsonl").items()
        if key in qrels
    }
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PAPERBOT_DB_PATH": str(Path(folder) / "pb.db")}
        env["PAPERBOT_SEEDS_DIR"] = str(Path(folder) / "no-seeds")
        command = [sys.executable, "-m", "bot"]
        subprocess.run(
            [*command, "ingest", str(args.directory / "corpus.jsonl"), "--collection", "beir"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        query_file = Path(folder) / "queries.tsv"
        query_file.write_text("".join(f"{key}\t{text}\n" for key, text in queries.items()))
        batch = subprocess.run(
            [*command, "search", "--batch", str(query_file), "--top-k", str(args.top_k)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        evaluated = subprocess.run(
            [*command, "eval", "beir", str(args.directory), "--split", args.split, "--json"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    run = {}
    for line in batch.splitlines():
        row = json.loads(line)
        run[row["query_id"]] = [hit["external_id"].rsplit(":", 1)[-1] for hit in row["hits"]]
    ndcg = metrics.parse_measure("nDCG@10")
    batch_score = metrics.mean_scores(metrics.evaluate(run, qrels, [ndcg]), [ndcg])["nDCG@10"]
    print(f"search --batch --top-k {args.top_k}: nDCG@10 {batch_score:.4f}")
    report = json.loads(evaluated)["reports"][0]
    eval_score = report["metrics"]["nDCG@10"]
    print(f"eval beir: nDCG@10 {eval_score:.4f}")
    equal = round(batch_score, 4) == round(eval_score, 4)
    print(f"verdict: {'EQUAL' if equal else 'NOT EQUAL'} (to 4 decimals)")
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
