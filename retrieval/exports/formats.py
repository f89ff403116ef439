"""Paper lists as files for reference managers and spreadsheets (pure): Markdown, plain text,
BibTeX, CSV and JSON Lines.

`export_papers(entries, fmt, title=...)` returns (file name, bytes). An entry is a paper plus
the optional "who added it, when, with what note" of a shared list. BibTeX entries are `@misc`
with a stable key (`paperbot:icml2026-13`); every LaTeX special in a value is escaped, so any
abstract yields an entry a BibTeX parser reads back unchanged in meaning.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from retrieval.models import Paper

FORMATS = ("md", "txt", "bibtex", "csv", "jsonl")
SUFFIXES = {"md": "md", "txt": "txt", "bibtex": "bib", "csv": "csv", "jsonl": "jsonl"}

# Control and invisible characters and lone surrogates (not ordinary whitespace) are dropped.
_CONTROL = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\ufeff\ud800-\udfff]"
)
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
# LaTeX specials, escaped in one pass so an escape is never escaped again.
_LATEX = {
    "\\": r"\textbackslash{}",
    # BibTeX counts `\{` as a brace too, so braces become commands with balanced braces.
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "^": r"\^{}",
    "~": r"\~{}",
}
_LATEX_SPECIAL = re.compile("|".join(re.escape(char) for char in _LATEX))
# Spreadsheets run a cell starting with these as a formula; a leading quote keeps it text.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
DERIVED_TITLE_NOTE = "Title derived by paperbot from the abstract; the source list has no title."


@dataclass(frozen=True, slots=True)
class ExportEntry:
    """One paper in an export; `added_by`/`added_at`/`note` are filled for shared lists."""

    paper: Paper
    added_by: str | None = None
    added_at: str | None = None
    note: str | None = None


def export_papers(
    entries: Sequence[ExportEntry | Paper], fmt: str, *, title: str = "Reading list"
) -> tuple[str, bytes]:
    """The list as a file: (name, UTF-8 bytes). `fmt` is one of FORMATS."""
    items = [e if isinstance(e, ExportEntry) else ExportEntry(e) for e in entries]
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    render = {
        "md": _markdown,
        "txt": _text,
        "bibtex": _bibtex,
        "csv": _csv,
        "jsonl": _jsonl,
    }[fmt]
    name = f"{_file_stem(title)}.{SUFFIXES[fmt]}"
    return name, render(items, title).encode("utf-8", "replace")


def bibtex_key(paper: Paper) -> str:
    """Stable across exports and re-ingestion: the paperbot id never changes."""
    return f"paperbot:{paper.id}"


def collection_year(collection: str) -> str | None:
    """The year a collection's name gives ("ICML 2026" -> "2026"), if exactly one."""
    years = set(_YEAR.findall(collection))
    return years.pop() if len(years) == 1 else None


def latex_escape(text: str) -> str:
    return _LATEX_SPECIAL.sub(lambda match: _LATEX[match.group(0)], line(text))


# An abstract written in LaTeX ("6.9\%", "$\textit{K}$", 414 of ICML 2024's) stays LaTeX:
# escaping it again would print the markup. Only text whose braces balance (BibTeX counts
# "\{" too) and that does not end in a backslash is kept; its bare %, & and # are escaped.
_LATEX_MARKUP = re.compile(r"\\(?:[A-Za-z]+|[%&#_$])|\$[^$]+\$")
_BARE_SPECIAL = re.compile(r"(?<!\\)[%&#]")


def keeps_latex(text: str) -> bool:
    """Whether `bibtex_text` keeps `text`'s own LaTeX rather than escaping every special."""
    plain = line(text)
    if not _LATEX_MARKUP.search(plain) or plain.endswith("\\"):
        return False
    depth = 0
    for char in plain:
        depth += 1 if char == "{" else -1 if char == "}" else 0
        if depth < 0:
            return False
    return depth == 0


def bibtex_text(text: str) -> str:
    """A BibTeX field's value: the text's own LaTeX where it has some (`keeps_latex`), else
    every LaTeX special escaped."""
    if keeps_latex(text):
        return _BARE_SPECIAL.sub(lambda match: "\\" + match.group(0), line(text))
    return latex_escape(text)


def line(text: str) -> str:
    """NFC text on one line, without control or invisible characters."""
    text = _CONTROL.sub("", unicodedata.normalize("NFC", text))
    return " ".join(text.split())


# -- formats ------------------------------------------------------------------------------------


def _markdown(items: Sequence[ExportEntry], title: str) -> str:
    parts = [f"# {line(title)}", ""]
    for item in items:
        paper = item.paper
        parts.append(f"## {line(paper.display_title)}")
        if paper.authors:
            parts.append(line(", ".join(paper.authors)))
        parts.append(f"`{paper.id}` · {line(paper.collection)}")
        provenance = _provenance(item)
        if provenance:
            parts.append(provenance)
        parts += [f"<{url}>" for url in paper.urls if _plain_url(url)]
        parts += ["", "> " + line(paper.abstract), ""]
    return "\n".join(parts)


def _text(items: Sequence[ExportEntry], title: str) -> str:
    parts = [line(title), ""]
    for item in items:
        paper = item.paper
        lines = [
            line(paper.display_title),
            *([f"authors: {line(', '.join(paper.authors))}"] if paper.authors else []),
            f"id: {paper.id}",
            f"collection: {line(paper.collection)}",
        ]
        provenance = _provenance(item)
        if provenance:
            lines.append(provenance)
        lines += [f"link: {url}" for url in paper.urls if _plain_url(url)]
        parts.append("\n".join(lines) + "\n\n" + line(paper.abstract) + "\n")
    return "\n".join(parts)


def _bibtex(items: Sequence[ExportEntry], title: str) -> str:
    return "".join(bibtex_entry(item) + "\n" for item in items)


def bibtex_entry(item: ExportEntry | Paper) -> str:
    """One `@misc` entry, values in braces: LaTeX the text writes is kept, every other
    special escaped (`bibtex_text`)."""
    entry = item if isinstance(item, ExportEntry) else ExportEntry(item)
    paper = entry.paper
    notes = [] if paper.title else [DERIVED_TITLE_NOTE]
    if entry.note:
        notes.append(entry.note)
    # url fields are read verbatim by biblatex: only URLs needing no escape go there.
    urls = [url for url in paper.urls if _plain_url(url) and not set(url) & set("%#")]
    fields: list[tuple[str, str]] = [
        ("title", line(paper.title or "") or line(paper.label) or paper.id),
        ("howpublished", paper.collection),
    ]
    if paper.authors:
        fields.append(("author", " and ".join(paper.authors)))
    year = collection_year(paper.collection)
    if year:
        fields.append(("year", year))
    if urls:
        fields.append(("url", urls[0]))
    if notes:
        fields.append(("note", " ".join(notes)))
    fields.append(("abstract", paper.abstract))
    body = ",\n".join(
        f"  {name} = {{{value if name == 'url' else bibtex_text(value)}}}"
        for name, value in fields
        if line(value)
    )
    return f"@misc{{{bibtex_key(paper)},\n{body}\n}}\n"


_CSV_COLUMNS = ("id", "title", "authors", "label", "collection", "year", "urls", "abstract")
# Names can hold commas ("Smith, J."); a semicolon keeps them apart in one cell.
_AUTHOR_SEPARATOR = "; "
_CSV_SHARED = ("added_by", "added_at", "note")


def _csv(items: Sequence[ExportEntry], title: str) -> str:
    shared = any(item.added_by or item.added_at or item.note for item in items)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(_CSV_COLUMNS + (_CSV_SHARED if shared else ()))
    for item in items:
        paper = item.paper
        row = [
            paper.id,
            paper.title or "",
            _AUTHOR_SEPARATOR.join(paper.authors),
            paper.label,
            paper.collection,
            collection_year(paper.collection) or "",
            " ".join(url for url in paper.urls if _plain_url(url)),
            paper.abstract,
        ]
        if shared:
            row += [item.added_by or "", item.added_at or "", item.note or ""]
        writer.writerow([_cell(value) for value in row])
    return out.getvalue()


def _jsonl(items: Sequence[ExportEntry], title: str) -> str:
    """The shape `paperbot ingest` reads back (`id`, `title`, `abstract`, `url`, ...)."""
    rows = []
    for item in items:
        paper = item.paper
        record: dict[str, object] = {
            "id": paper.id,
            "external_id": paper.external_id,
            "collection": paper.collection,
            "label": paper.label,
            "title": paper.title,
            "authors": list(paper.authors),
            "abstract": paper.abstract,
            "urls": list(paper.urls),
        }
        rows.append(json.dumps(record, ensure_ascii=False))
    return "".join(row + "\n" for row in rows)


# -- helpers ------------------------------------------------------------------------------------


def _provenance(item: ExportEntry) -> str:
    parts = []
    if item.added_by:
        parts.append(f"added by {line(item.added_by)}")
    if item.added_at:
        parts.append(f"on {line(item.added_at)}")
    text = " ".join(parts)
    if item.note:
        text = f"{text}: {line(item.note)}" if text else f"note: {line(item.note)}"
    return text


def _cell(value: str) -> str:
    value = line(value)
    return "'" + value if value.startswith(_FORMULA_START) else value


def _plain_url(url: str) -> bool:
    return url.startswith(("http://", "https://")) and not any(
        char.isspace() or char in "{}<>\\" for char in url
    )


def _file_stem(title: str) -> str:
    stem = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return stem[:60] or "papers"
