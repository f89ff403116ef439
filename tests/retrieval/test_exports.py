"""Exports: every BibTeX file parses with a real parser (bibtexparser) and keeps the paper's
text; CSV reads back with the csv module; Markdown and text carry ids, links and notes."""

from __future__ import annotations

import csv
import io
import json
import re

import bibtexparser
import pytest
from bibtexparser.bparser import BibTexParser
from hypothesis import given
from hypothesis import strategies as st

from retrieval.exports.formats import (
    DERIVED_TITLE_NOTE,
    ExportEntry,
    bibtex_entry,
    bibtex_text,
    collection_year,
    export_papers,
    keeps_latex,
    line,
)
from retrieval.models import Paper


def paper(
    number: int = 13,
    abstract: str = "We attack RAG retrievers.",
    *,
    title: str | None = None,
    collection: str = "ICML 2026",
    urls: tuple[str, ...] = (),
    authors: tuple[str, ...] = (),
) -> Paper:
    return Paper(
        id=f"icml2026-{number}",
        collection=collection,
        position=number,
        external_id=f"003.txt:{number}",
        abstract=abstract,
        label=f"Eyes-on-Me: label {number}",
        title=title,
        urls=urls,
        authors=authors,
    )


def parse_bibtex(data: bytes) -> list[dict[str, str]]:
    parser = BibTexParser(common_strings=False)
    parser.ignore_nonstandard_types = False
    database = bibtexparser.loads(data.decode("utf-8"), parser=parser)
    return list(database.entries)


# The parser keeps escapes as written; undoing ours must give back the text exactly.
_UNESCAPE = {
    r"\textbackslash{}": "\\",
    r"\textbraceleft{}": "{",
    r"\textbraceright{}": "}",
    r"\%": "%",
    r"\&": "&",
    r"\#": "#",
    r"\_": "_",
    r"\$": "$",
    r"\^{}": "^",
    r"\~{}": "~",
}
_ESCAPED = re.compile("|".join(re.escape(key) for key in _UNESCAPE))


def unescape(value: str) -> str:
    return " ".join(_ESCAPED.sub(lambda m: _UNESCAPE[m.group(0)], value).split())


def test_bibtex_entry_has_key_fields_and_derived_title_note() -> None:
    name, data = export_papers(
        [paper(urls=("https://github.com/x/eyes_on_me",))], "bibtex", title="Reading list"
    )
    assert name == "reading-list.bib"
    [entry] = parse_bibtex(data)
    assert entry["ID"] == "paperbot:icml2026-13"
    assert entry["ENTRYTYPE"] == "misc"
    assert entry["title"] == "Eyes-on-Me: label 13"
    assert entry["howpublished"] == "ICML 2026"
    assert entry["year"] == "2026"
    assert entry["url"] == "https://github.com/x/eyes_on_me"
    assert entry["note"] == DERIVED_TITLE_NOTE
    assert entry["abstract"] == "We attack RAG retrievers."


def test_real_title_has_no_derived_note_and_no_year_without_one() -> None:
    [entry] = parse_bibtex(
        export_papers([paper(title="A Real Title", collection="BEIR SciFact")], "bibtex")[1]
    )
    assert entry["title"] == "A Real Title"
    assert "note" not in entry and "year" not in entry


def test_two_years_in_a_collection_name_give_no_year() -> None:
    assert collection_year("NeurIPS 2025") == "2025"
    assert collection_year("ICML 2025 vs 2026") is None
    assert collection_year("run 120263") is None


def test_url_with_percent_is_left_out_of_the_verbatim_field() -> None:
    [entry] = parse_bibtex(export_papers([paper(urls=("https://x.org/a%20b",))], "bibtex")[1])
    assert "url" not in entry


_HOSTILE = st.text(
    alphabet=st.sampled_from(list("{}%&#_$^~\\@,=\"'\n\t ")) | st.characters(), max_size=300
)


@given(abstract=_HOSTILE, label=_HOSTILE, note=st.one_of(st.none(), _HOSTILE))
def test_hostile_text_always_parses_and_round_trips(
    abstract: str, label: str, note: str | None
) -> None:
    base = paper(abstract=abstract or "x")
    hostile = Paper(**{**{f: getattr(base, f) for f in base.__slots__}, "label": label or "y"})
    data = export_papers([ExportEntry(hostile, note=note), paper(14)], "bibtex")[1]
    entries = parse_bibtex(data)
    assert [e["ID"] for e in entries] == ["paperbot:icml2026-13", "paperbot:icml2026-14"]
    first = entries[0]
    written = line(abstract or "x")
    if keeps_latex(written):
        # The text's own LaTeX is kept: the parser reads back exactly what was written.
        assert " ".join(first["abstract"].split()) == " ".join(bibtex_text(written).split())
    else:
        assert unescape(first.get("abstract", "")) == written
    if not keeps_latex(label or "y"):
        assert unescape(first["title"]) == (line(label or "y") or "icml2026-13")


def test_latex_the_abstract_writes_stays_latex() -> None:
    text = r"Gains of 6.9\% on $\textit{K}$-shot tasks, 50% fewer steps & less memory."
    [parsed] = parse_bibtex(bibtex_entry(paper(abstract=text)).encode())
    assert parsed["abstract"] == (
        r"Gains of 6.9\% on $\textit{K}$-shot tasks, 50\% fewer steps \& less memory."
    )
    unbalanced = r"A stray } brace and \textbf{bold"
    [escaped] = parse_bibtex(bibtex_entry(paper(abstract=unbalanced)).encode())
    assert unescape(escaped["abstract"]) == unbalanced  # not LaTeX that can be kept: escaped


def test_braces_in_the_abstract_cannot_close_the_entry() -> None:
    text = "} , title = {pwned}, @misc{evil, x = {"
    entry = bibtex_entry(paper(abstract=text))
    [parsed] = parse_bibtex(entry.encode())
    assert parsed["title"] == "Eyes-on-Me: label 13"
    assert unescape(parsed["abstract"]) == text


def test_csv_reads_back_and_neutralises_formulas() -> None:
    papers = [paper(abstract="=HYPERLINK(1)"), paper(14, 'quote " and, comma\nnewline')]
    name, data = export_papers(papers, "csv")
    assert name == "reading-list.csv"
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert [row["id"] for row in rows] == ["icml2026-13", "icml2026-14"]
    assert rows[0]["abstract"] == "'=HYPERLINK(1)"
    assert rows[1]["abstract"] == 'quote " and, comma newline'
    assert rows[0]["year"] == "2026" and "added_by" not in rows[0]


def test_every_format_carries_the_authors() -> None:
    with_authors = paper(authors=("Smith, J.", "Ana Lee"))
    data = export_papers([with_authors, paper(14)], "csv")[1].decode()
    assert data.splitlines()[0] == "id,title,authors,label,collection,year,urls,abstract"
    rows = list(csv.DictReader(io.StringIO(data)))
    assert [row["authors"] for row in rows] == ["Smith, J.; Ana Lee", ""]
    assert "Smith, J., Ana Lee" in export_papers([with_authors], "md")[1].decode()
    assert "authors: Smith, J., Ana Lee" in export_papers([with_authors], "txt")[1].decode()
    [record] = [json.loads(r) for r in export_papers([with_authors], "jsonl")[1].splitlines()]
    assert record["authors"] == ["Smith, J.", "Ana Lee"]


def test_csv_of_a_shared_list_has_who_when_and_note() -> None:
    entry = ExportEntry(paper(), added_by="ada", added_at="2026-12-01", note="read first")
    rows = list(csv.DictReader(io.StringIO(export_papers([entry], "csv")[1].decode())))
    assert (rows[0]["added_by"], rows[0]["added_at"], rows[0]["note"]) == (
        "ada",
        "2026-12-01",
        "read first",
    )


def test_markdown_and_text_carry_ids_links_and_provenance() -> None:
    entry = ExportEntry(
        paper(urls=("https://github.com/x/y",)), added_by="ada", added_at="2026-12-01"
    )
    name, md = export_papers([entry], "md", title="Server reading list")
    assert name == "server-reading-list.md"
    text = md.decode()
    assert text.startswith("# Server reading list\n")
    assert "## Eyes-on-Me: label 13" in text and "`icml2026-13` · ICML 2026" in text
    assert "added by ada on 2026-12-01" in text and "<https://github.com/x/y>" in text
    plain = export_papers([entry], "txt")[1].decode()
    assert "id: icml2026-13" in plain and "link: https://github.com/x/y" in plain


def test_jsonl_round_trips_text() -> None:
    data = export_papers([paper(abstract="ü {x}")], "jsonl")[1]
    [record] = [json.loads(row) for row in data.decode().splitlines()]
    assert record["id"] == "icml2026-13" and record["abstract"] == "ü {x}"


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown export format 'pdf'"):
        export_papers([paper()], "pdf")
