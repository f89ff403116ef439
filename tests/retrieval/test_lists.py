"""Paper-list and JSONL parsing: formats, ids, line numbers, error messages, folders, fuzzing."""

from __future__ import annotations

import hashlib
import json
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval.errors import ListFormatError
from retrieval.lists import (
    ParsedList,
    find_paper_files,
    read_paper_bytes,
    read_paper_file,
)
from tests.unprivileged import reachable_folder, run_python, unprivileged_output

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
HEADER = "ICML 2026 论文列表"
FIRST = "We study sparse mixture-of-experts routing. It works well."
SECOND = "Diffusion models generate images. We make them faster."


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    data = content.encode() if isinstance(content, str) else content
    path.write_bytes(data)
    return path


def raises_at(path: Path | str, line: int | None, **kwargs: object) -> ListFormatError:
    """Read the file, expect a ListFormatError at `line`, and return it."""
    with pytest.raises(ListFormatError) as caught:
        read_paper_file(Path(path), **kwargs)  # type: ignore[arg-type]
    error = caught.value
    assert str(path) in str(error)
    assert error.line == line
    if line is not None:
        assert f"{path}:{line}:" in str(error)
    return error


def abstracts(parsed: ParsedList) -> list[str]:
    return [paper.abstract for paper in parsed.papers]


# --- paper lists (.txt) -------------------------------------------------------------------


def test_header_names_collection_and_papers_get_ids_and_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "icml.txt", f"{HEADER}\n\n{FIRST}\n\n{SECOND}\n")
    parsed = read_paper_file(path)
    assert parsed.path == path
    assert parsed.collection == "ICML 2026"
    assert parsed.collection_from_header
    assert abstracts(parsed) == [FIRST, SECOND]
    assert [p.external_id for p in parsed.papers] == ["icml.txt:1", "icml.txt:2"]
    assert [p.line for p in parsed.papers] == [3, 5]
    assert parsed.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert parsed.notes == ()
    assert parsed.skipped_lines == 0
    assert all(p.title is None and p.url is None and p.authors == () for p in parsed.papers)


def test_bom_and_crlf_read_like_plain_lf(tmp_path: Path) -> None:
    text = f"{HEADER}\n\n{FIRST}\n\n{SECOND}\n"
    plain = read_paper_file(write(tmp_path, "a.txt", text))
    data = b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode()
    windows = read_paper_file(write(tmp_path, "b.txt", data))
    assert windows.collection == "ICML 2026"
    assert abstracts(windows) == abstracts(plain)
    assert [p.line for p in windows.papers] == [p.line for p in plain.papers]
    assert windows.sha256 == hashlib.sha256(data).hexdigest()


def test_old_mac_cr_line_breaks(tmp_path: Path) -> None:
    path = write(tmp_path, "mac.txt", f"{HEADER}\r\r{FIRST}\r\r{SECOND}\r")
    parsed = read_paper_file(path)
    assert abstracts(parsed) == [FIRST, SECOND]
    assert [p.line for p in parsed.papers] == [3, 5]


def test_runs_of_blank_and_whitespace_only_lines(tmp_path: Path) -> None:
    text = f"\n{HEADER}\n \n\t\n\n{FIRST}\n   \n\u3000\n\u200b\n{SECOND}\n\n\n"
    parsed = read_paper_file(write(tmp_path, "x.txt", text))
    assert parsed.collection == "ICML 2026"
    assert abstracts(parsed) == [FIRST, SECOND]
    assert [p.line for p in parsed.papers] == [6, 10]


def test_wrapped_paragraph_is_joined_with_single_spaces(tmp_path: Path) -> None:
    text = f"{HEADER}\n\nWe study sparse\n   mixture-of-experts routing.  \nIt works.\n\n{SECOND}\n"
    parsed = read_paper_file(write(tmp_path, "x.txt", text))
    assert abstracts(parsed) == ["We study sparse mixture-of-experts routing. It works.", SECOND]
    assert [p.line for p in parsed.papers] == [3, 7]


def test_abstract_text_is_kept_as_written(tmp_path: Path) -> None:
    # Full-width letters and ligatures stay: NFKC is the analyzer's job.
    odd = "ＡＢＣ ﬁne-tuning of LLMs\t(tab kept) is studied here."
    parsed = read_paper_file(write(tmp_path, "x.txt", f"{HEADER}\n\n{odd}\n"))
    assert abstracts(parsed) == [odd]


def test_headerless_file_is_named_after_the_file_with_a_note(tmp_path: Path) -> None:
    path = write(tmp_path, "neurips-2023_list.txt", f"{FIRST}\n\n{SECOND}\n")
    parsed = read_paper_file(path)
    assert parsed.collection == "NeurIPS 2023"
    assert not parsed.collection_from_header
    assert abstracts(parsed) == [FIRST, SECOND]
    assert [p.external_id for p in parsed.papers] == [
        "neurips-2023_list.txt:1",
        "neurips-2023_list.txt:2",
    ]
    assert [p.line for p in parsed.papers] == [1, 3]
    assert len(parsed.notes) == 1
    assert str(path) in parsed.notes[0]
    assert "no header" in parsed.notes[0]
    assert "'NeurIPS 2023'" in parsed.notes[0]


@pytest.mark.parametrize(
    "first",
    [
        "Short sentence ending in a period.",
        "this first line is far too many words to be the name of a collection of papers",
        "x" * 121,
    ],
)
def test_first_line_that_reads_like_an_abstract_is_not_a_header(tmp_path: Path, first: str) -> None:
    parsed = read_paper_file(write(tmp_path, "papers.txt", f"{first}\n\n{SECOND}\n"))
    assert not parsed.collection_from_header
    assert abstracts(parsed) == [first, SECOND]


def test_multi_line_first_paragraph_is_not_a_header(tmp_path: Path) -> None:
    parsed = read_paper_file(write(tmp_path, "p.txt", f"Wrapped start\nof an abstract\n\n{SECOND}"))
    assert abstracts(parsed) == ["Wrapped start of an abstract", SECOND]


@pytest.mark.parametrize(
    ("header", "collection"),
    [
        ("NeurIPS 2023 Accepted Papers", "NeurIPS 2023"),
        ("# ICLR 2024", "ICLR 2024"),
        ("My reading", "My reading"),
    ],
)
def test_short_first_line_is_a_header(tmp_path: Path, header: str, collection: str) -> None:
    parsed = read_paper_file(write(tmp_path, "p.txt", f"{header}\n\n{FIRST}\n"))
    assert parsed.collection_from_header
    assert parsed.collection == collection
    assert abstracts(parsed) == [FIRST]
    assert parsed.papers[0].line == 3


def test_header_glued_to_first_abstract_is_still_a_header(tmp_path: Path) -> None:
    parsed = read_paper_file(write(tmp_path, "p.txt", f"{HEADER}\n{FIRST}\n\n{SECOND}\n"))
    assert parsed.collection == "ICML 2026"
    assert abstracts(parsed) == [FIRST, SECOND]
    assert [p.line for p in parsed.papers] == [2, 4]


def test_collection_override(tmp_path: Path) -> None:
    with_header = read_paper_file(
        write(tmp_path, "a.txt", f"{HEADER}\n\n{FIRST}\n"), collection="Mine"
    )
    assert (with_header.collection, with_header.collection_from_header) == ("Mine", False)
    assert abstracts(with_header) == [FIRST]
    headerless = read_paper_file(write(tmp_path, "b.txt", f"{FIRST}\n"), collection="Mine")
    assert headerless.collection == "Mine"
    assert headerless.notes == ()


# --- errors ---------------------------------------------------------------------------------


def test_not_utf8_names_line_and_byte_offset(tmp_path: Path) -> None:
    path = write(tmp_path, "latin.txt", b"Header\n\nabc \xe9 def\n")
    error = raises_at(path, 3)
    assert "UTF-8" in str(error)
    assert "byte offset 12" in str(error)


def test_utf8_error_offset_counts_the_bom(tmp_path: Path) -> None:
    error = raises_at(write(tmp_path, "bom.txt", b"\xef\xbb\xbfH\n\n\xff\n"), 3)
    assert "byte offset 6" in str(error)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_says_save_as_utf8(tmp_path: Path, encoding: str) -> None:
    path = write(tmp_path, "wide.txt", f"{HEADER}\n\n{FIRST}\n".encode(encoding))
    error = raises_at(path, 1)
    assert "UTF-16" in str(error)
    assert "save it as UTF-8" in str(error)


def test_an_executable_is_not_text_and_not_utf16(tmp_path: Path) -> None:
    # The start of an ELF executable: NULs on both byte parities, unlike UTF-16 text.
    elf = (
        b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\x00\x00\x00"
        b"\x10k\x00\x00\x00\x00\x00\x00@\x00\x00\x00\x00\x00\x00\x00\xa8\x23\x02\x00\n"
    )
    error = raises_at(write(tmp_path, "bin.txt", elf + bytes(range(256)) * 4), 1)
    assert "is not a text file" in str(error)
    assert "UTF-16" not in str(error)


def test_nul_bytes_are_binary(tmp_path: Path) -> None:
    error = raises_at(write(tmp_path, "bin.txt", f"{HEADER}\n\nab\x00cd\n"), 3)
    assert "binary" in str(error)


def test_pdf_is_named(tmp_path: Path) -> None:
    error = raises_at(write(tmp_path, "paper.txt", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"), 1)
    assert "PDF" in str(error)


@pytest.mark.parametrize("content", ["", "\n\n  \n", "\ufeff"])
def test_empty_file(tmp_path: Path, content: str) -> None:
    error = raises_at(write(tmp_path, "empty.txt", content), None)
    assert "empty" in str(error)


def test_header_only(tmp_path: Path) -> None:
    error = raises_at(write(tmp_path, "h.txt", f"{HEADER}\n\n\n"), 1)
    assert "no abstracts" in str(error)


def test_abstract_over_the_limit_names_its_first_line(tmp_path: Path) -> None:
    text = f"{HEADER}\n\n{FIRST}\n\nshort start\n{'y' * 40}\n{'z' * 40}\n"
    error = raises_at(write(tmp_path, "long.txt", text), 5, max_abstract_chars=60)
    assert "longer than 60 characters" in str(error)
    assert read_paper_file(tmp_path / "long.txt", max_abstract_chars=100).papers


def test_huge_single_line_is_rejected_without_reading_it_all(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as out:
        out.write(f"{HEADER}\n\n".encode())
        for _ in range(20):
            out.write(b"a" * 1024 * 1024)
    tracemalloc.start()
    try:
        error = raises_at(path, 3, max_abstract_chars=1000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "longer than" in str(error)
    assert peak < 1024 * 1024


def test_many_tiny_paragraphs(tmp_path: Path) -> None:
    path = write(tmp_path, "many.txt", HEADER + "\n\n" + "\n\n".join(["ab"] * 50_000) + "\n")
    parsed = read_paper_file(path)
    assert len(parsed.papers) == 50_000
    assert parsed.papers[-1].external_id == "many.txt:50000"
    assert parsed.papers[-1].line == 3 + 2 * 49_999


def test_file_over_the_size_limit(tmp_path: Path) -> None:
    error = raises_at(write(tmp_path, "big.txt", f"{HEADER}\n\n{FIRST}\n"), None, max_file_bytes=10)
    assert "limit" in str(error)


def test_bytes_over_the_size_limit() -> None:
    with pytest.raises(ListFormatError, match=r"^up\.txt: .*limit"):
        read_paper_bytes("up.txt", b"x" * 11, max_file_bytes=10)


def test_missing_file(tmp_path: Path) -> None:
    assert "no such file" in str(raises_at(tmp_path / "nope.txt", None))


def test_folder_passed_as_file(tmp_path: Path) -> None:
    (tmp_path / "dir.txt").mkdir()
    assert "folder" in str(raises_at(tmp_path / "dir.txt", None))


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "locked.txt", f"{HEADER}\n\n{FIRST}\n")

    def denied(self: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "open", denied)
    assert "permission denied" in str(raises_at(path, None))


def test_unreadable_file_for_real() -> None:
    # In a child process as a non-root user (nobody when the suite runs as root, as in CI).
    read = (
        "import sys; from pathlib import Path\n"
        "from retrieval.errors import ListFormatError\n"
        "from retrieval.lists import read_paper_file\n"
        "try:\n    read_paper_file(Path(sys.argv[1]))\n"
        "except ListFormatError as error:\n    print(error)\n"
    )
    with reachable_folder() as folder:
        path = write(folder, "locked.txt", f"{HEADER}\n\n{FIRST}\n")
        path.chmod(0)
        output = unprivileged_output(run_python(read, str(path), cwd=folder))
    assert output.startswith(str(path)) and "permission denied" in output, output
    assert output.count("\n") == 1, output


# --- JSONL ----------------------------------------------------------------------------------


def jsonl(*records: object) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def test_jsonl_fields_and_aliases(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "icml2024.jsonl",
        jsonl(
            {
                "doc_id": "icml2024-00000",
                "title": " On Prompts ",
                "abstract": "  Abstract one.  ",
                "authors": ["Ann Lee", " ", "Bo Chen"],
                "url": "https://openreview.net/forum?id=x",
                "extra": {"ignored": True},
            },
            {"id": 7, "text": "Abstract two.", "authors": "Ann Lee; Bo Chen", "url": None},
            {"_id": "4983", "title": "", "text": "Abstract three.", "authors": None},
            {"abstract": "Abstract four.", "authors": [{"name": "Cy Dee"}], "id": ""},
            {"abstract": None, "text": "Abstract five.", "authors": "Ann Lee, Bo Chen"},
        ),
    )
    parsed = read_paper_file(path)
    assert parsed.collection == "ICML 2024"  # the file "icml2024.jsonl", made readable
    assert not parsed.collection_from_header
    # as for a .txt without a header, a note says where the collection's name came from
    assert parsed.notes == (
        f"{path}: no collection given; collection named 'ICML 2024' after the file",
    )
    assert read_paper_file(path, collection="ICML 2024").notes == ()  # named: nothing to say
    first, second, third, fourth, fifth = parsed.papers
    assert first.abstract == "Abstract one."
    assert first.title == "On Prompts"
    assert first.external_id == "icml2024-00000"
    assert first.authors == ("Ann Lee", "Bo Chen")
    assert first.url == "https://openreview.net/forum?id=x"
    assert (second.external_id, second.abstract, second.url) == ("7", "Abstract two.", None)
    assert second.authors == ("Ann Lee", "Bo Chen")
    assert (third.external_id, third.title, third.authors) == ("4983", None, ())
    assert fourth.external_id == "icml2024.jsonl:4"
    assert fourth.authors == ("Cy Dee",)
    assert fifth.authors == ("Ann Lee", "Bo Chen")
    assert [p.line for p in parsed.papers] == [1, 2, 3, 4, 5]


def test_beir_corpus_loads_as_is(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "corpus.jsonl",
        jsonl({"_id": "4983", "title": "Microstructure.", "text": "Alterations of white matter."}),
    )
    parsed = read_paper_file(path)
    assert parsed.collection == "corpus"
    (paper,) = parsed.papers
    assert (paper.external_id, paper.title, paper.abstract) == (
        "4983",
        "Microstructure.",
        "Alterations of white matter.",
    )


def test_jsonl_blank_lines_crlf_bom_and_override(tmp_path: Path) -> None:
    body = "\ufeff" + jsonl({"abstract": "A."}, "", "   ", {"abstract": "B."})
    path = write(tmp_path, "x.jsonl", body.replace("\n", "\r\n"))
    parsed = read_paper_file(path, collection="Reading group")
    assert parsed.collection == "Reading group"
    assert [(p.abstract, p.line, p.external_id) for p in parsed.papers] == [
        ("A.", 1, "x.jsonl:1"),
        ("B.", 4, "x.jsonl:4"),
    ]
    assert parsed.skipped_lines == 0


def test_jsonl_bad_lines_are_skipped_and_reported(tmp_path: Path) -> None:
    good = [{"abstract": f"Paper {i}."} for i in range(8)]
    bad = [
        "{not json",
        "[1, 2]",
        '"a string"',
        {"title": "no abstract"},
        {"abstract": "   "},
        {"abstract": 5},
        {"abstract": "x", "title": ["list"]},
    ]
    path = write(tmp_path, "mixed.jsonl", jsonl(*good, *bad))
    parsed = read_paper_file(path)
    assert abstracts(parsed) == [f"Paper {i}." for i in range(8)]
    assert parsed.skipped_lines == 7
    note, named = parsed.notes
    assert "collection named 'mixed' after the file" in named
    assert str(path) in note
    assert "skipped 7 of 15 lines" in note
    assert "lines 9, 10, 11, 12, 13, ..." in note
    assert "not valid JSON" in note


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"abstract": "x", "authors": 3}, "authors"),
        ({"abstract": "x", "authors": ["a", 1]}, "authors"),
        ({"abstract": "x", "id": 1.5}, '"id"'),
        ({"abstract": "x", "doc_id": True}, '"doc_id"'),
        ({"abstract": "x", "url": ["u"]}, '"url"'),
        ('{"abstract": "lone \\ud800 surrogate"}', "surrogate"),
        ('{"abstract": "nul \\u0000 inside"}', "NUL"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
    ],
)
def test_jsonl_wrong_types_are_bad_lines(tmp_path: Path, record: object, reason: str) -> None:
    path = write(tmp_path, "t.jsonl", jsonl({"abstract": "fine"}, record))
    parsed = read_paper_file(path)
    assert abstracts(parsed) == ["fine"]
    assert parsed.skipped_lines == 1
    assert reason in parsed.notes[0]


def test_jsonl_exactly_half_bad_is_accepted(tmp_path: Path) -> None:
    parsed = read_paper_file(write(tmp_path, "h.jsonl", jsonl({"abstract": "a"}, "oops")))
    assert parsed.skipped_lines == 1


def test_jsonl_more_than_half_bad_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "m.jsonl", jsonl({"abstract": "a"}, "", "oops", {"x": 1}))
    error = raises_at(path, 3)
    assert "2 of 3 lines" in str(error)


def test_jsonl_with_no_record_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "n.jsonl", jsonl("", {"title": "t"}))
    error = raises_at(path, 2)
    assert "abstract" in str(error)


def test_jsonl_pretty_printed_array_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "arr.jsonl", json.dumps([{"abstract": "a"}], indent=2))
    raises_at(path, 1)


def test_jsonl_empty(tmp_path: Path) -> None:
    assert "empty" in str(raises_at(write(tmp_path, "e.jsonl", "\n \n"), None))


def test_jsonl_abstract_over_the_limit_rejects_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "l.jsonl", jsonl({"abstract": "ok"}, {"abstract": "y" * 61}))
    error = raises_at(path, 2, max_abstract_chars=60)
    assert "longer than 60 characters" in str(error)


def test_unknown_extension_is_sniffed(tmp_path: Path) -> None:
    as_jsonl = read_paper_file(write(tmp_path, "upload", jsonl({"abstract": "A."})))
    assert abstracts(as_jsonl) == ["A."]
    as_list = read_paper_file(write(tmp_path, "upload.md", f"{HEADER}\n\n{FIRST}\n"))
    assert as_list.collection == "ICML 2026"
    error = raises_at(write(tmp_path, "array.json", '\n[{"abstract": "A."}]'), 2)
    assert "JSON array" in str(error)


# --- uploads (bytes) ------------------------------------------------------------------------


def test_read_paper_bytes_matches_read_paper_file(tmp_path: Path) -> None:
    data = f"{HEADER}\r\n\r\n{FIRST}\r\n\r\n{SECOND}".encode()
    from_file = read_paper_file(write(tmp_path, "up.txt", data))
    uploaded = read_paper_bytes("up.txt", data)
    assert uploaded.path == Path("up.txt")
    assert uploaded.papers == from_file.papers
    assert uploaded.sha256 == from_file.sha256 == hashlib.sha256(data).hexdigest()
    assert uploaded.collection == "ICML 2026"


def test_read_paper_bytes_uses_name_for_format_and_messages() -> None:
    parsed = read_paper_bytes("refs.jsonl", jsonl({"abstract": "A."}).encode(), collection="R")
    assert (parsed.collection, parsed.papers[0].external_id) == ("R", "refs.jsonl:1")
    with pytest.raises(ListFormatError, match=r"^refs\.txt:1: .*UTF-16"):
        read_paper_bytes("refs.txt", "hello".encode("utf-16"))


# --- finding files --------------------------------------------------------------------------


def test_find_paper_files_expands_folders_sorted_and_recursive(tmp_path: Path) -> None:
    for name in ["b.txt", "a.jsonl", "sub/c.TXT", "sub/deeper/d.txt", "notes.md", ".hidden.txt"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "e.txt").write_text("x")
    skipped: list[Path] = []
    found = find_paper_files([tmp_path], skipped)
    assert skipped == [tmp_path / "notes.md"]  # hidden entries are not even mentioned
    assert found == [
        tmp_path / "a.jsonl",
        tmp_path / "b.txt",
        tmp_path / "sub" / "c.TXT",
        tmp_path / "sub" / "deeper" / "d.txt",
    ]
    # Named files keep the caller's order; a file reached twice is listed once.
    assert find_paper_files([tmp_path / "b.txt", tmp_path / "a.jsonl", tmp_path]) == [
        tmp_path / "b.txt",
        tmp_path / "a.jsonl",
        tmp_path / "sub" / "c.TXT",
        tmp_path / "sub" / "deeper" / "d.txt",
    ]


def test_find_paper_files_survives_a_symlink_loop(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.txt").write_text("x")
    (root / "sub" / "loop").symlink_to(root)
    (root / "sub" / "self").symlink_to(root / "sub")
    assert find_paper_files([root]) == [root / "sub" / "a.txt"]


def test_find_paper_files_rejects_other_extensions_and_missing_paths(tmp_path: Path) -> None:
    other = write(tmp_path, "paper.pdf", b"%PDF")
    with pytest.raises(ListFormatError, match=r"paper\.pdf: .*\.txt"):
        find_paper_files([other])
    with pytest.raises(ListFormatError, match=r"gone: no such file"):
        find_paper_files([tmp_path / "gone"])
    assert find_paper_files([]) == []


# --- shipped seeds --------------------------------------------------------------------------


def test_shipped_seeds_parse() -> None:
    files = find_paper_files([SEEDS])
    assert len(files) == 2
    parsed = [read_paper_file(path) for path in files]
    assert {p.collection for p in parsed} == {"ICML 2026"}
    assert all(p.collection_from_header and p.notes == () for p in parsed)
    assert sum(len(p.papers) for p in parsed) == 38


# --- properties -----------------------------------------------------------------------------

FUZZ = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
NAMES = st.sampled_from(["fuzz.txt", "fuzz.jsonl", "fuzz.bin"])


def assert_returns_or_names_file(path: Path, max_chars: int) -> None:
    try:
        parsed = read_paper_file(path, max_abstract_chars=max_chars)
    except ListFormatError as error:
        assert str(error).startswith(str(path))
    else:
        assert parsed.papers
        assert all(paper.abstract and len(paper.abstract) <= max_chars for paper in parsed.papers)


@FUZZ
@given(data=st.binary(max_size=600), name=NAMES, max_chars=st.integers(1, 200))
def test_arbitrary_bytes_never_crash(
    tmp_path: Path, data: bytes, name: str, max_chars: int
) -> None:
    path = write(tmp_path, name, data)
    assert_returns_or_names_file(path, max_chars)
    try:
        read_paper_bytes(name, data, max_abstract_chars=max_chars)
    except ListFormatError as error:
        assert str(error).startswith(name)


TEXTY = st.text(
    alphabet=st.sampled_from(list('\n\r \t{}[]":,\\abc.1é论\ufeff\u200b\x00'))
    | st.characters(exclude_categories=["Cs"]),
    max_size=400,
)


@FUZZ
@given(text=TEXTY, name=NAMES, max_chars=st.integers(1, 200))
def test_arbitrary_text_never_crashes(tmp_path: Path, text: str, name: str, max_chars: int) -> None:
    assert_returns_or_names_file(write(tmp_path, name, text), max_chars)


INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060"
ABSTRACT = st.text(
    alphabet=st.characters(exclude_categories=("Cs", "Cc")),
    min_size=1,
    max_size=80,
).filter(
    lambda s: not (s[0].isspace() or s[-1].isspace() or s[0] in INVISIBLE or s[-1] in INVISIBLE)
)


@FUZZ
@given(
    papers=st.lists(st.tuples(ABSTRACT, st.integers(1, 3)), min_size=1, max_size=8),
    newline=st.sampled_from(["\n", "\r\n"]),
    bom=st.booleans(),
)
def test_round_trip(tmp_path: Path, papers: list[tuple[str, int]], newline: str, bom: bool) -> None:
    lines = [HEADER]
    expected_lines = []
    for text, blanks in papers:
        lines.extend([" "] * (blanks - 1) + [""])
        expected_lines.append(len(lines) + 1)
        lines.append(text)
    data = ("\ufeff" if bom else "") + newline.join(lines) + newline
    parsed = read_paper_file(write(tmp_path, "round.txt", data))
    assert parsed.collection == "ICML 2026"
    assert abstracts(parsed) == [text for text, _ in papers]
    assert [p.line for p in parsed.papers] == expected_lines
    assert [p.external_id for p in parsed.papers] == [
        f"round.txt:{n}" for n in range(1, len(papers) + 1)
    ]


@FUZZ
@given(papers=st.lists(ABSTRACT, min_size=1, max_size=8), ascii_only=st.booleans())
def test_jsonl_round_trip(tmp_path: Path, papers: list[str], ascii_only: bool) -> None:
    data = "".join(
        json.dumps({"id": i, "abstract": text}, ensure_ascii=ascii_only) + "\n"
        for i, text in enumerate(papers)
    )
    parsed = read_paper_file(write(tmp_path, "round.jsonl", data))
    assert abstracts(parsed) == papers
    assert [p.external_id for p in parsed.papers] == [str(i) for i in range(len(papers))]
