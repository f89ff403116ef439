"""The label evaluation: which titles name a method, both measures, the baseline, misses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from retrieval.label_eval import (
    baseline_label,
    content_recall,
    dangles,
    ends_in_ellipsis,
    ends_open,
    evaluate_labels,
    format_label_reports,
    is_comma_list,
    read_label_tsv,
    reader_sheet,
    starts_with_name,
    title_f1,
    title_name,
)
from retrieval.models import ParsedPaper


@pytest.mark.parametrize(
    ("title", "abstract", "name"),
    [
        ("FooNet: Fast Graphs", "We propose FooNet, a network.", "FooNet"),
        ("Foo-2 Bar: Fast Graphs", "We propose Foo-2 Bar for graphs.", "Foo-2 Bar"),
        ("RoboMP$^2$: Robots", r"We propose RoboMP$^2$ for robots.", "RoboMP²"),
        # the abstract never uses the name
        ("FooNet: Fast Graphs", "We propose a network.", None),
        # only as part of a longer word
        ("Foo: Fast Graphs", "We propose FooNet.", None),
        # no colon, or a long lowercase phrase before it
        ("Fast Graphs", "We propose FooNet.", None),
        ("on the role of graphs: a study", "on the role of graphs", None),
    ],
)
def test_title_name(title: str, abstract: str, name: str | None) -> None:
    assert title_name(title, abstract) == name


def test_starts_with_name_needs_a_whole_word() -> None:
    assert starts_with_name("FooNet: a network", "FooNet")
    assert starts_with_name("foonet, a network", "FooNet")
    assert not starts_with_name("FooNet2: a network", "FooNet")
    assert not starts_with_name("Foo-Net: a network", "Foo")
    assert not starts_with_name("A FooNet network", "FooNet")


def test_content_recall_counts_stemmed_title_words() -> None:
    assert content_recall("Pruning Large Models", "pruned large model weights") == 1.0
    assert content_recall("Pruning Large Models", "large graphs") == pytest.approx(1 / 3)
    assert content_recall("The Of And", "anything") == 1.0  # no content words


def test_baseline_is_the_first_90_characters() -> None:
    assert baseline_label("x" * 200) == "x" * 90


def test_evaluate_labels_splits_named_and_other_papers() -> None:
    records = [
        ("We propose FooNet, a network for graphs.", "FooNet: Graph Networks"),
        ("We propose BarNet for images.", "BarNet: Image Networks"),
        ("Graphs are large. We study pruning of graphs.", "Pruning Graphs"),
        ("Images are noisy. We study denoising.", "Denoising Images"),
    ]
    labels = {
        records[0][0]: "FooNet: a network",  # hit
        records[1][0]: "Images, a study",  # miss
        records[2][0]: "Pruning of graphs",  # recall 1
        records[3][0]: ", denoising",  # recall 1/2, opens with punctuation
    }
    report = evaluate_labels("test", records, labeler=labels.__getitem__)
    assert (report.papers, report.named, report.named_hits) == (4, 2, 1)
    assert report.named_rate == 0.5
    assert report.recall == pytest.approx(0.75)
    assert report.starts_with_punctuation == 1
    assert [case.title for case in report.named_misses] == ["BarNet: Image Networks"]
    assert report.baseline_named_hits == 0
    text = format_label_reports([report])
    assert "test" in text
    assert "BarNet: Image Networks" in text


def test_the_table_header_names_each_column_once_and_lines_up() -> None:
    report = evaluate_labels(
        "icml2024.jsonl",
        [("FooNet learns. FooNet is fast.", "FooNet: Fast Learning")],
        labeler=lambda abstract: "FooNet: fast",
    )
    lines = format_label_reports([report, report], examples=False).splitlines()
    header, row = lines[0], lines[1]
    columns = list(re.finditer(r"\S+(?: \S+)*", header))  # names are split by 2+ spaces
    cells = list(re.finditer(r"\S+", row))
    names = [column.group() for column in columns]
    assert len(names) == len(set(names)) == len(cells) == 14  # one distinct header per figure
    for column, cell in zip(columns[1:], cells[1:], strict=True):
        assert column.end() == cell.end()  # each figure right-aligned under its own header
    legend = "\n".join(lines[3:])
    for name in names[2:]:
        assert f"{name}: " in legend  # every measure is explained under the table


def test_structure_checks_catch_lists_ellipses_and_dangling_ends() -> None:
    assert is_comma_list("Unit sphere, time plays, particles")
    assert not is_comma_list("HarmBench: a framework, standardized")
    assert ends_in_ellipsis("A benchmark for…")
    assert dangles("... which resolves this by")
    assert not dangles("Linguistic calibration of long-form generations")
    # a list scores nothing even when it holds every title word
    assert title_f1("Fast graph matching", "Fast, graph, matching") == 0.0
    assert title_f1("Fast graph matching", "Fast graph matching") == 1.0


def test_the_reader_sheet_hides_which_label_is_which_and_the_key_tells(tmp_path: Path) -> None:
    papers = [
        ParsedPaper(
            abstract=f"We propose FooNet{n}, a network for graphs.", external_id=f"d{n}", line=0
        )
        for n in range(6)
    ]
    other = {f"d{n}": f"old label {n}" for n in range(6)}
    sheet, key = reader_sheet(papers, other, 4, seed=3)
    assert sheet.count("## Paper ") == 4
    rows = [line.split("\t") for line in key.splitlines()[1:]]
    assert len(rows) == 4
    assert all(sorted(row[2:]) == ["new", "other"] for row in rows)
    # the same seed gives the same sheet; titles are never in it
    assert reader_sheet(papers, other, 4, seed=3) == (sheet, key)
    (tmp_path / "old.tsv").write_text("d1\told label 1\n", encoding="utf-8")
    assert read_label_tsv(tmp_path / "old.tsv") == {"d1": "old label 1"}


@pytest.mark.parametrize(
    "label",
    [
        "Knowledge distillation aims",  # a finite verb last
        "EgoDistill: a distillation-based approach that learns",  # an open relative clause
        "Approach to protein generative modeling that enables us",
        "Photoswap: Ability to manipulate",  # "to" and a verb
        "Teacher-student paradigm is often employed as a metaphor for real-life tuition",
        "VCR-Graphormer: Graph transformer has been proven",  # a subject-verb sentence
        "Physics simulators can serve",
        "HiDe-: Hierarchical Decomposition",  # a name cut at a hyphen
    ],
)
def test_ends_open_catches_labels_that_read_as_clauses(label: str) -> None:
    assert ends_open(label)


@pytest.mark.parametrize(
    "label",
    [
        "STAR: Structure Aware Routing",
        "Forward pass of a Transformer as an interacting particle system",
        "EControl: a mechanism that can regulate error compensation",  # a closed relative
        "Pre- and post-training of language models",
        "How far can transformers reason?",
        "Sharpness predicts transfer across tasks",  # ends on a noun, no auxiliary
    ],
)
def test_ends_open_spares_titles(label: str) -> None:
    assert not ends_open(label)
