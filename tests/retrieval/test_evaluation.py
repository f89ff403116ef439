"""Evaluation: BEIR folders and known-item lists through the real engine, on tiny fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.terminal.cli import main
from config.settings import Settings
from retrieval.errors import EvaluationError
from retrieval.evaluation import (
    evaluate_beir,
    evaluate_known_item,
    format_reports,
    read_qrels,
    reports_json,
    temporary_engine,
    with_ranking,
)

CORPUS = [
    ("d1", "Mixture of experts", "Sparse mixture of experts routing sends tokens to experts."),
    ("d2", "Retrieval attacks", "We poison retrievers of retrieval-augmented generation."),
    ("d3", "Protein folding", "Structure prediction of proteins with attention networks."),
    ("d4", "Vitamin D", "Vitamin D supplementation does not reduce fracture risk in adults."),
    ("d5", "Graph networks", "Message passing graph neural networks for molecules."),
    ("d6", "Diffusion models", "Score-based diffusion models generate images from noise."),
]
QUERIES = {
    "1": "mixture of experts routing",
    "2": "poisoning retrieval-augmented generation",
    "3": 'vitamin D "does not" reduce -fracture risk',  # operators must be read as words
    "4": "graph neural networks molecules",
    "9": "a train query about diffusion",
}


def write_beir(folder: Path) -> Path:
    (folder / "qrels").mkdir(parents=True)
    with (folder / "corpus.jsonl").open("w") as file:
        for doc_id, title, text in CORPUS:
            file.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with (folder / "queries.jsonl").open("w") as file:
        for query_id, text in QUERIES.items():
            file.write(json.dumps({"_id": query_id, "text": text}) + "\n")
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n1\td1\t1\n2\td2\t1\n3\td4\t1\n4\td5\t1\n4\td3\t0\n"
    )
    (folder / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\n9\td6\t1\n")
    return folder


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    # A seed paper that would answer query 1 if seeds were mixed into the evaluation corpus.
    (seeds / "seed.txt").write_text("Seeds 2026\n\nMixture of experts routing, routing, experts.\n")
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        db_path=tmp_path / "real.db",
        seeds_dir=seeds,
    )


async def test_beir_scores_every_split_over_the_corpus_only(
    tmp_path: Path, settings: Settings
) -> None:
    folder = write_beir(tmp_path / "tiny")
    test, train = await evaluate_beir(folder, settings, splits=["test", "train"])
    assert (test.name, test.documents, test.queries) == ("tiny test", len(CORPUS), 4)
    assert test.metrics == {"nDCG@10": 1.0, "Recall@100": 1.0, "MRR@10": 1.0}
    assert train.queries == 1
    assert train.metrics["MRR@10"] == 1.0
    assert not settings.db_path.exists()  # a temporary database, never the configured one


async def test_beir_reports_the_ranking_settings(tmp_path: Path, settings: Settings) -> None:
    folder = write_beir(tmp_path / "tiny")
    exact = with_ranking(settings, "exact", 0.9, 0.4)
    [report] = await evaluate_beir(folder, exact)
    assert (report.ranking, report.k1, report.b) == ("exact", 0.9, 0.4)
    data = reports_json([report], per_query=True)["reports"][0]
    assert data["metrics"]["nDCG@10"] == 1.0
    assert set(data["per_query"]) == {"1", "2", "3", "4"}
    table = format_reports([report])
    assert table.splitlines()[0].startswith("| data | ranking | k1 | b |")
    assert "| tiny test | exact | 0.9 | 0.4 | 6 | 4 | 1.0000 | 1.0000 | 1.0000 |" in table


def test_invalid_ranking_settings_are_one_line(settings: Settings) -> None:
    with pytest.raises(EvaluationError, match="bm25_k1"):
        with_ranking(settings, k1=-1.0)


def test_qrels_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\n1\td1\t1\n2\td2\n")
    with pytest.raises(EvaluationError, match=r"test.tsv:3: expected"):
        read_qrels(path)
    path.write_text("1\td1\t2\n")  # no header is fine
    assert read_qrels(path) == {"1": {"d1": 2}}


async def test_missing_beir_files_are_reported(tmp_path: Path, settings: Settings) -> None:
    with pytest.raises(EvaluationError, match=r"no corpus\.jsonl"):
        await evaluate_beir(tmp_path, settings)
    folder = write_beir(tmp_path / "tiny")
    with pytest.raises(EvaluationError, match="no such file"):
        await evaluate_beir(folder, settings, splits=["dev"])


def write_known_items(path: Path) -> Path:
    records = [
        {"doc_id": "c-1", "title": "Routing in sparse experts", "abstract": CORPUS[0][2]},
        {"doc_id": "c-2", "title": "Poisoned retrievers", "abstract": CORPUS[1][2]},
        # The title shares no word with any abstract: only the title could have found it.
        {"doc_id": "c-3", "title": "Zebra crossings", "abstract": CORPUS[2][2]},
        {"doc_id": "c-4", "abstract": CORPUS[3][2]},  # no title: in the corpus, not a query
    ]
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


async def test_known_item_searches_titles_over_abstracts_only(
    tmp_path: Path, settings: Settings
) -> None:
    path = write_known_items(tmp_path / "conf2026.jsonl")
    report = await evaluate_known_item(path, settings)
    assert (report.name, report.documents, report.queries) == ("conf2026 known-item", 4, 3)
    assert report.per_query["c-1"]["MRR@10"] == 1.0
    assert report.per_query["c-3"] == {"MRR@10": 0.0, "Recall@10": 0.0, "Recall@100": 0.0}
    assert report.metrics["MRR@10"] == pytest.approx(2 / 3)


async def test_known_item_needs_titles(tmp_path: Path, settings: Settings) -> None:
    path = tmp_path / "plain.jsonl"
    path.write_text(json.dumps({"abstract": "An abstract about graphs."}) + "\n")
    with pytest.raises(EvaluationError, match="no paper has a title"):
        await evaluate_known_item(path, settings)


async def test_rank_text_reads_operators_as_words_and_agrees_with_ask(
    tmp_path: Path, settings: Settings
) -> None:
    folder = write_beir(tmp_path / "tiny")
    async with temporary_engine(settings) as engine:
        await engine.ingest([folder / "corpus.jsonl"])
        ranked = await engine.rank_text("-fracture", depth=3)
        assert [engine.corpus.papers.doc_of(paper_id) for paper_id, _ in ranked] == [3]
        answer = await engine.ask("experts routing networks", limit=3)
        ranked = await engine.rank_text("experts routing networks", depth=3)
        assert [paper_id for paper_id, _ in ranked] == [hit.paper.id for hit in answer.hits]
        assert [score for _, score in ranked] == [hit.score for hit in answer.hits]


def test_cli_prints_the_table_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env from the working copy
    monkeypatch.setenv("PAPERBOT_DB_PATH", str(tmp_path / "never.db"))
    folder = write_beir(tmp_path / "tiny")
    assert main(["eval", "beir", str(folder), "--split", "test,train"]) == 0
    out = capsys.readouterr().out
    assert "| tiny test | enhanced |" in out
    assert "| tiny train | enhanced |" in out
    assert main(["eval", "known-item", str(write_known_items(tmp_path / "c.jsonl")), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reports"][0]["queries"] == 3
    assert main(["eval", "beir", str(tmp_path / "nowhere")]) == 1
    assert "no corpus.jsonl" in capsys.readouterr().err
    assert not (tmp_path / "never.db").exists()
