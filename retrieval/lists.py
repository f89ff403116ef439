"""Read paper-list (.txt) and JSONL files into ParsedPaper records, streaming, with line numbers.

Paper list (.txt): line 1 names the collection ("ICML 2026 论文列表" -> "ICML 2026"), then one
abstract per paragraph, blank lines between paragraphs. CRLF, a UTF-8 BOM, runs of blank or
whitespace-only lines and paragraphs wrapped over several lines (joined with single spaces) are
accepted. Without a header the collection is named after the file and a note says so: the first
paragraph counts as a header only if it is one short line that does not read like a sentence.
External ids are `<file name>:<n>`, n counting abstracts from 1.

JSONL: one JSON object per line with "abstract" (or "text"); optional "title", an id from "id",
"doc_id" or "_id", "url" and "authors". The collection is named after the file unless one is
given, and a note says so. BEIR corpus files load as they are. Blank lines are
ignored. Bad lines (not JSON, not an object, no abstract, wrong field types) are skipped and
counted in `notes` with their first line numbers, but the whole file is rejected when no line is
a paper or more than half of the lines are bad: then it is probably not a paper file at all.

Format follows the extension: .txt is a list, .jsonl (or .ndjson) is JSONL; a file with another
extension is JSONL if its first non-blank line starts with "{", otherwise a list.

Anything else a person could hand us (not UTF-8, binary, empty, header only, an abstract over the
length limit, a file over the size limit or with more than `max_papers` abstracts, unreadable)
raises ListFormatError naming the file and, where there is one, the line. Files are read line by
line in binary with a per-line size limit, so one line never costs more than the longest
acceptable abstract, and the paper limit bounds what a file of a million one-word paragraphs can
make us hold (each parsed paper costs far more memory than its few bytes of input). Abstract
text is kept as written (no NFKC): the analyzer normalizes, and excerpts show the author's text.

`stream_paper_file` yields papers as it parses them (a big file is never held whole; its
end-of-file checks raise after the last paper); `read_paper_file` and `read_paper_bytes` collect
them into one `ParsedList`.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import re
import stat
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import BinaryIO

from retrieval.errors import ListFormatError
from retrieval.ids import collection_name_from_header
from retrieval.models import ParsedPaper

DEFAULT_MAX_ABSTRACT_CHARS = 20_000
DEFAULT_MAX_FILE_BYTES = 512 * 1024 * 1024
# Above the largest BEIR scientific corpus (TREC-COVID, 171k); Settings can raise it.
DEFAULT_MAX_PAPERS = 200_000
PAPER_FILE_SUFFIXES = (".txt", ".jsonl")

_HEADER_MAX_CHARS = 120
_HEADER_MAX_WORDS = 12
_SENTENCE_ENDS = (".", "!", "?", "。", "！", "？")
# Markers that make line 1 a header even when no blank line follows it.
_HEADER_MARKERS = ("论文列表", "论文")
# Indentation, CRLF and a BOM on top of the longest acceptable abstract (4 bytes per character).
_TEXT_LINE_SLACK = 1024
# JSON escapes a non-ASCII character as up to 6 bytes, and a record carries title, authors, etc.
_JSON_BYTES_PER_CHAR = 6
_JSON_LINE_SLACK = 256 * 1024
_BAD_LINES_LISTED = 5
_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# Zero-width characters that editors show as nothing: a line of only these is blank.
_INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060"
_SURROGATE = re.compile("[\\ud800-\\udfff]")
_FILE_NAME_SEPARATORS = re.compile(r"[\s_.\-]+")
_ID_KEYS = ("id", "doc_id", "_id")
_NOT_REGULAR = "is not a regular file (a pipe, socket or device); save the papers to a file"


@dataclass(frozen=True, slots=True)
class ParsedList:
    """Everything read from one paper file, ready to ingest."""

    path: Path
    collection: str
    collection_from_header: bool
    papers: tuple[ParsedPaper, ...]
    sha256: str
    notes: tuple[str, ...]
    skipped_lines: int = 0


@dataclass(frozen=True, slots=True)
class ListSummary:
    """What is known of a paper file only once its last paper has been read."""

    collection: str
    collection_from_header: bool
    sha256: str
    notes: tuple[str, ...]
    skipped_lines: int = 0

    def with_papers(self, path: Path, papers: Sequence[ParsedPaper]) -> ParsedList:
        return ParsedList(
            path=path,
            collection=self.collection,
            collection_from_header=self.collection_from_header,
            papers=tuple(papers),
            sha256=self.sha256,
            notes=self.notes,
            skipped_lines=self.skipped_lines,
        )


class PaperStream:
    """A paper file's papers, parsed as they are iterated (once); `summary` after the last.

    The end-of-file checks (empty, no paper, too many bad lines) raise ListFormatError from the
    iteration, after the last paper: a caller that keeps papers must wait for the end to know
    the file is good. `close()` releases the file when the caller stops early.
    """

    def __init__(
        self,
        path: Path,
        papers: Generator[ParsedPaper, None, ListSummary],
        position: _Position,
    ) -> None:
        self.path = path
        self._papers = papers
        self._position = position
        self._summary: ListSummary | None = None

    @property
    def bytes_read(self) -> int:
        """How far into the file parsing has got (for progress estimates)."""
        return self._position.bytes_read

    def __iter__(self) -> Iterator[ParsedPaper]:
        self._summary = yield from self._papers

    @property
    def summary(self) -> ListSummary:
        if self._summary is None:
            raise RuntimeError(f"{self.path}: the summary is known after the last paper")
        return self._summary

    def close(self) -> None:
        self._papers.close()

    def collect(self) -> ParsedList:
        """Every paper in memory, with the summary: the whole file as one value."""
        papers = tuple(self)
        return self.summary.with_papers(self.path, papers)


def read_paper_file(
    path: Path,
    *,
    collection: str | None = None,
    max_abstract_chars: int = DEFAULT_MAX_ABSTRACT_CHARS,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_papers: int = DEFAULT_MAX_PAPERS,
) -> ParsedList:
    """Parse a .txt paper list or .jsonl file; `collection` overrides the collection name."""
    return stream_paper_file(
        path,
        collection=collection,
        max_abstract_chars=max_abstract_chars,
        max_file_bytes=max_file_bytes,
        max_papers=max_papers,
    ).collect()


def stream_paper_file(
    path: Path,
    *,
    collection: str | None = None,
    max_abstract_chars: int = DEFAULT_MAX_ABSTRACT_CHARS,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_papers: int = DEFAULT_MAX_PAPERS,
) -> PaperStream:
    """A .txt paper list or .jsonl file, parsed as it is iterated; nothing is read before."""
    limits = _Limits(max_abstract_chars, max_file_bytes, max_papers)
    position = _Position()
    return PaperStream(path, _file_papers(path, collection, limits, position), position)


def _file_papers(
    path: Path, collection: str | None, limits: _Limits, position: _Position
) -> Generator[ParsedPaper, None, ListSummary]:
    try:
        _check_regular_file(path)
        with path.open("rb") as stream:
            _check_size(str(path), os.fstat(stream.fileno()).st_size, limits.max_file_bytes)
            return (yield from _read_stream(str(path), stream, collection, limits, position))
    except FileNotFoundError:
        raise ListFormatError(path, None, "no such file; check the path") from None
    except PermissionError:
        raise ListFormatError(
            path, None, "cannot be read (permission denied); check the file's permissions"
        ) from None
    except IsADirectoryError:
        raise ListFormatError(path, None, "is a folder, not a file") from None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ListFormatError(path, None, f"cannot be read ({reason})") from None


def _check_regular_file(path: Path) -> None:
    """Refuse folders, pipes and devices before opening: opening a FIFO would wait forever."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ListFormatError(path, None, "is a symlink loop; fix or remove it") from None
        raise
    if stat.S_ISDIR(mode):
        raise ListFormatError(
            path, None, "is a folder, not a file; ingest the folder to read the files in it"
        )
    if not stat.S_ISREG(mode):
        raise ListFormatError(path, None, _NOT_REGULAR)


def read_paper_bytes(
    name: str,
    data: bytes,
    *,
    collection: str | None = None,
    max_abstract_chars: int = DEFAULT_MAX_ABSTRACT_CHARS,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_papers: int = DEFAULT_MAX_PAPERS,
) -> ParsedList:
    """Parse an uploaded file's bytes; `name` picks the format and appears in messages."""
    _check_size(name, len(data), max_file_bytes)
    limits = _Limits(max_abstract_chars, max_file_bytes, max_papers)
    position = _Position()
    papers = _read_stream(name, io.BytesIO(data), collection, limits, position)
    return PaperStream(Path(name), papers, position).collect()


def find_paper_files(paths: Sequence[Path], skipped: list[Path] | None = None) -> list[Path]:
    """The .txt/.jsonl files named or found under folders (sorted, recursive), each once.

    Folders are searched recursively; their other files are left out (and added to `skipped`,
    so ingest can say so), hidden entries (".git", macOS "._x.txt") ignored, and a folder
    reached twice through symlinks is read once. A path that does not exist, or a named file
    of another type, raises ListFormatError.
    """
    found: list[Path] = []
    seen_files: set[Path] = set()
    seen_dirs: set[Path] = set()
    for path in paths:
        if path.is_dir():
            candidates = _files_under(path, seen_dirs, skipped)
        elif path.is_file():
            if path.suffix.lower() not in PAPER_FILE_SUFFIXES:
                raise ListFormatError(
                    path, None, "is not a .txt paper list or a .jsonl file; rename or convert it"
                )
            candidates = [path]
        else:
            raise ListFormatError(path, None, _missing(path))
        for candidate in candidates:
            resolved = candidate.resolve()
            if resolved not in seen_files:
                seen_files.add(resolved)
                found.append(candidate)
    return found


def _missing(path: Path) -> str:
    """Why a named path is neither a file nor a folder we can read."""
    if path.is_symlink():
        return "is a broken symlink or a symlink loop; fix or remove it"
    if path.exists():
        return _NOT_REGULAR
    return "no such file or folder; check the path"


def _files_under(folder: Path, seen_dirs: set[Path], skipped: list[Path] | None) -> list[Path]:
    files: list[Path] = []
    pending = [folder]
    while pending:
        current = pending.pop()
        resolved = current.resolve()
        # A symlink back up the tree would otherwise walk the same folders forever.
        if resolved in seen_dirs:
            continue
        seen_dirs.add(resolved)
        try:
            entries = list(os.scandir(current))
        except PermissionError:
            raise ListFormatError(
                current, None, "folder cannot be read (permission denied)"
            ) from None
        except OSError as error:
            reason = error.strerror or type(error).__name__
            raise ListFormatError(current, None, f"folder cannot be read ({reason})") from None
        for entry in entries:
            if entry.name.startswith("."):
                continue
            child = current / entry.name
            if child.is_dir():
                pending.append(child)
            elif child.is_file() and child.suffix.lower() in PAPER_FILE_SUFFIXES:
                files.append(child)
            elif child.is_file() and skipped is not None:
                skipped.append(child)
    if skipped is not None:
        skipped.sort()
    return sorted(files)


def _check_size(name: str, size: int, max_file_bytes: int) -> None:
    if size > max_file_bytes:
        raise ListFormatError(
            name,
            None,
            f"file is {size:,} bytes, over the {max_file_bytes:,}-byte limit; split it, or "
            "raise PAPERBOT_MAX_LIST_FILE_BYTES",
        )


@dataclass(slots=True)
class _Position:
    bytes_read: int = 0


@dataclass(frozen=True, slots=True)
class _Limits:
    max_abstract_chars: int
    max_file_bytes: int
    max_papers: int


def _check_count(name: str, line: int, count: int, max_papers: int) -> None:
    if count > max_papers:
        raise ListFormatError(
            name,
            line,
            f"more than {max_papers:,} abstracts in one file (this is number {count:,}); "
            "split it, or raise PAPERBOT_MAX_LIST_PAPERS",
        )


def _read_stream(
    name: str, stream: BinaryIO, collection: str | None, limits: _Limits, position: _Position
) -> Generator[ParsedPaper, None, ListSummary]:
    override = collection.strip() if collection else ""
    file_name = PurePath(name).name or name
    suffix = PurePath(name).suffix.lower()
    is_jsonl = suffix in (".jsonl", ".ndjson")
    per_char = _JSON_BYTES_PER_CHAR if is_jsonl else 4
    slack = _JSON_LINE_SLACK if is_jsonl else _TEXT_LINE_SLACK
    max_abstract_chars = limits.max_abstract_chars
    reader = _LineReader(
        name,
        stream,
        max_line_bytes=max_abstract_chars * per_char + slack,
        max_abstract_chars=max_abstract_chars,
        max_file_bytes=limits.max_file_bytes,
        position=position,
    )
    lines = iter(reader)
    if suffix not in (".txt", ".jsonl", ".ndjson"):
        is_jsonl, lines = _sniff_jsonl(name, lines)
    notes: list[str] = []
    skipped = 0
    if is_jsonl:
        skipped, bad_note = yield from _parse_jsonl(name, file_name, lines, limits)
        notes.extend(bad_note)
        name_from_header = False
        chosen = override or _name_from_file(file_name)
        if not override:  # as for a .txt without a header: say where the name came from
            notes.append(f"{name}: no collection given; collection named '{chosen}' after the file")
    else:
        header = yield from _parse_list(name, file_name, lines, limits)
        name_from_header = header is not None and not override
        if override:
            chosen = override
        elif header is not None:
            chosen = collection_name_from_header(header)
        else:
            chosen = _name_from_file(file_name)
            notes.append(f"{name}: no header line; collection named '{chosen}' after the file")
    return ListSummary(
        collection=chosen,
        collection_from_header=name_from_header,
        sha256=reader.sha256.hexdigest(),
        notes=tuple(notes),
        skipped_lines=skipped,
    )


class _LineReader:
    """Numbered, decoded lines of a binary stream; hashes every byte it reads.

    Each line is decoded on its own, so an encoding error names its line, and read with a size
    limit, so one enormous line is rejected before it is held in memory.
    """

    def __init__(
        self,
        name: str,
        stream: BinaryIO,
        *,
        max_line_bytes: int,
        max_abstract_chars: int,
        max_file_bytes: int,
        position: _Position,
    ) -> None:
        self._name = name
        self._position = position
        self._stream = stream
        self._max_line_bytes = max_line_bytes
        self._max_abstract_chars = max_abstract_chars
        self._max_file_bytes = max_file_bytes
        self.sha256 = hashlib.sha256()

    def __iter__(self) -> Iterator[tuple[int, str]]:
        number = 0
        offset = 0
        while raw := self._stream.readline(self._max_line_bytes):
            self.sha256.update(raw)
            start = offset
            offset += len(raw)
            self._position.bytes_read = offset
            number += 1
            # The size was checked up front, but a file can grow while we read it.
            if offset > self._max_file_bytes:
                _check_size(self._name, offset, self._max_file_bytes)
            if len(raw) >= self._max_line_bytes and not raw.endswith(b"\n"):
                self._too_long(number, raw)
            if number == 1:
                self._check_first_line(raw)
                if raw.startswith(_BOM):
                    raw = raw[len(_BOM) :]
                    start += len(_BOM)
            if b"\x00" in raw:
                raise ListFormatError(
                    self._name,
                    number,
                    "contains NUL bytes, so it is binary data, not text; "
                    "save the papers as a UTF-8 .txt or .jsonl file",
                )
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ListFormatError(
                    self._name,
                    number,
                    f"not valid UTF-8 (byte offset {start + error.start:,} in the file); "
                    "save the file as UTF-8",
                ) from None
            text = text.removesuffix("\n").removesuffix("\r")
            # A lone CR is an old Mac line break: count it as one, as editors do.
            pieces = text.split("\r")
            for index, piece in enumerate(pieces):
                yield number + index, piece
            number += len(pieces) - 1

    def _check_first_line(self, raw: bytes) -> None:
        problem = None
        if raw.startswith(_UTF16_BOMS) or _utf16_without_bom(raw):
            problem = "file is UTF-16; save it as UTF-8"
        elif b"\x00" in raw:
            problem = (
                "is not a text file (binary data); save the papers as a UTF-8 .txt or .jsonl file"
            )
        elif raw.startswith(b"%PDF"):
            problem = "is a PDF, not text; paste the abstracts into a UTF-8 .txt file"
        elif raw.startswith(b"PK\x03\x04"):
            problem = "is a ZIP (or Word/Excel) file, not text; save it as a UTF-8 .txt file"
        if problem is not None:
            raise ListFormatError(self._name, 1, problem)

    def _too_long(self, number: int, raw: bytes) -> None:
        hint = f"an abstract may have at most {self._max_abstract_chars:,} characters"
        if b"\r" in raw:
            hint = "the file seems to use old Mac (CR) line breaks; save it with LF or CRLF"
        raise ListFormatError(
            self._name, number, f"line is longer than {self._max_line_bytes:,} bytes; {hint}"
        )


def _utf16_without_bom(raw: bytes) -> bool:
    """UTF-16 text without a BOM: its ASCII characters put a NUL in every other byte, on one
    side only (odd bytes little-endian, even bytes big-endian), while the other side, holding
    the characters, has next to none. Binary data (an executable, an image) has NULs anywhere."""
    if len(raw) < 4:
        return False
    even, odd = raw[0::2], raw[1::2]
    for nuls, chars in ((odd, even), (even, odd)):
        if nuls.count(0) * 2 >= len(nuls) and chars.count(0) * 10 <= len(chars):
            return True
    return False


def _sniff_jsonl(
    name: str, lines: Iterator[tuple[int, str]]
) -> tuple[bool, Iterator[tuple[int, str]]]:
    """For a file with no known extension: JSONL if the first non-blank line is an object."""
    for number, text in lines:
        stripped = _strip(text)
        if not stripped:
            continue
        if stripped.startswith("["):
            raise ListFormatError(
                name, number, "is a JSON array; write one JSON object per line in a .jsonl file"
            )
        return stripped.startswith("{"), _prepend((number, text), lines)
    return False, iter(())


def _prepend(first: tuple[int, str], rest: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    yield first
    yield from rest


def _strip(text: str) -> str:
    return text.strip().strip(_INVISIBLE).strip()


def _name_from_file(file_name: str) -> str:
    """'neurips-2023_list.txt' -> 'NeurIPS 2023', 'icml2024.jsonl' -> 'ICML 2024': the file
    stem, made readable; a short first word before a year is a venue's acronym."""
    stem = _YEAR_AFTER_LETTERS.sub(r"\1 \2", PurePath(file_name).stem)
    readable = " ".join(_FILE_NAME_SEPARATORS.split(stem)).strip()
    if not readable:
        return "papers"
    words = readable.split()
    first = words[0]
    venue = first.isalpha() and first.islower() and len(first) <= 7
    if venue and len(words) > 1 and _YEAR.fullmatch(words[1]):  # "icml 2024 ...": venue, year
        words[0] = _VENUE_SPELLING.get(first, first.upper())
    return collection_name_from_header(" ".join(words))


_YEAR_AFTER_LETTERS = re.compile(r"(?<![A-Za-z])([A-Za-z]{2,7})((?:19|20)\d\d)(?!\d)")
_YEAR = re.compile(r"(?:19|20)\d\d")
# Venues not written in capitals; any other short word before a year is ("icml" -> "ICML").
_VENUE_SPELLING = {"neurips": "NeurIPS", "nips": "NIPS", "interspeech": "Interspeech"}


# --- paper lists (.txt) -------------------------------------------------------------------


@dataclass(slots=True)
class _Paragraph:
    start: int
    lines: list[str]

    @property
    def text(self) -> str:
        return " ".join(self.lines)


def _parse_list(
    name: str, file_name: str, lines: Iterator[tuple[int, str]], limits: _Limits
) -> Generator[ParsedPaper, None, str | None]:
    """Yields the abstracts, one per paragraph; returns the header (None if there is none)."""
    header: str | None = None
    count = 0
    first = True
    saw_text = False
    for paragraph in _paragraphs(name, lines, limits.max_abstract_chars):
        saw_text = True
        if first:
            first = False
            header, rest = _split_header(paragraph)
            if rest is None:
                continue
            paragraph = rest
        count += 1
        _check_count(name, paragraph.start, count, limits.max_papers)
        yield ParsedPaper(
            abstract=paragraph.text, external_id=f"{file_name}:{count}", line=paragraph.start
        )
    if not saw_text:
        raise ListFormatError(
            name,
            None,
            "file is empty; expected a header line such as 'ICML 2026 论文列表', "
            "then abstracts separated by blank lines",
        )
    if not count:
        raise ListFormatError(
            name, 1, "has a header line but no abstracts; add abstracts separated by blank lines"
        )
    return header


def _paragraphs(
    name: str, lines: Iterator[tuple[int, str]], max_chars: int
) -> Iterator[_Paragraph]:
    current: _Paragraph | None = None
    chars = 0
    for number, text in lines:
        stripped = _strip(text)
        if not stripped:
            if current is not None:
                yield current
                current = None
            continue
        if current is None:
            current = _Paragraph(number, [])
            chars = len(stripped)
        else:
            chars += 1 + len(stripped)
        # Checked as lines arrive, so a file missing its blank lines fails before it fills memory.
        if chars > max_chars:
            raise ListFormatError(
                name,
                current.start,
                f"the abstract starting here is longer than {max_chars:,} characters; "
                "shorten it, or add the missing blank line between two abstracts",
            )
        current.lines.append(stripped)
    if current is not None:
        yield current


def _split_header(paragraph: _Paragraph) -> tuple[str | None, _Paragraph | None]:
    """Split off the header line, if the first paragraph starts with one."""
    first = paragraph.lines[0]
    if len(paragraph.lines) == 1:
        return (first, None) if _looks_like_header(first) else (None, paragraph)
    # A header glued to the first abstract: only trust unambiguous header markers.
    if _looks_like_header(first) and _is_marked_header(first):
        return first, _Paragraph(paragraph.start + 1, paragraph.lines[1:])
    return None, paragraph


def _looks_like_header(line: str) -> bool:
    return (
        len(line) <= _HEADER_MAX_CHARS
        and len(line.split()) <= _HEADER_MAX_WORDS
        and not line.endswith(_SENTENCE_ENDS)
    )


def _is_marked_header(line: str) -> bool:
    return line.startswith("# ") or line.endswith(_HEADER_MARKERS)


# --- JSONL ----------------------------------------------------------------------------------


class _BadLine(Exception):
    """A JSONL line that is not a paper record; skipped and counted."""


def _parse_jsonl(
    name: str, file_name: str, lines: Iterator[tuple[int, str]], limits: _Limits
) -> Generator[ParsedPaper, None, tuple[int, list[str]]]:
    """Yields the papers; returns the number of bad lines skipped and a note about them."""
    count = 0
    bad: list[tuple[int, str]] = []
    bad_count = 0
    total = 0
    for number, text in lines:
        stripped = text.strip()
        if not stripped:
            continue
        total += 1
        try:
            paper = _record(name, file_name, number, stripped, limits.max_abstract_chars)
        except _BadLine as error:
            bad_count += 1
            if len(bad) < _BAD_LINES_LISTED:
                bad.append((number, str(error)))
            continue
        count += 1
        _check_count(name, number, count, limits.max_papers)
        yield paper
    if total == 0:
        raise ListFormatError(
            name, None, 'file is empty; expected one JSON object with an "abstract" per line'
        )
    if not count:
        first_line, reason = bad[0]
        raise ListFormatError(
            name,
            first_line,
            f"no line is a paper record ({reason}); each line must be a JSON object with an "
            '"abstract" (or "text") string',
        )
    if bad_count * 2 > total:
        first_line, reason = bad[0]
        raise ListFormatError(
            name,
            first_line,
            f"{bad_count:,} of {total:,} lines are not paper records (this one: {reason}); "
            "fix them, or check this is a JSONL paper file",
        )
    notes: list[str] = []
    if bad_count:
        listed = ", ".join(str(number) for number, _ in bad)
        more = ", ..." if bad_count > len(bad) else ""
        notes.append(
            f"{name}: skipped {bad_count:,} of {total:,} lines that are not paper records "
            f"(lines {listed}{more}; line {bad[0][0]}: {bad[0][1]})"
        )
    return bad_count, notes


def _record(name: str, file_name: str, number: int, line: str, max_chars: int) -> ParsedPaper:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        raise _BadLine("not valid JSON") from None
    if isinstance(record, list):
        raise _BadLine("a JSON array, not an object")
    if not isinstance(record, dict):
        raise _BadLine("not a JSON object")
    key = "abstract" if record.get("abstract") is not None else "text"
    if record.get(key) is None:
        raise _BadLine('no "abstract" (or "text")')
    abstract = _optional_text(record, key)
    if abstract is None:
        raise _BadLine(f'"{key}" is empty')
    if len(abstract) > max_chars:
        # Over the limit is not a typo to skip: the person should know their data was refused.
        raise ListFormatError(
            name, number, f"the abstract is longer than {max_chars:,} characters; shorten it"
        )
    return ParsedPaper(
        abstract=abstract,
        external_id=_record_id(record) or f"{file_name}:{number}",
        line=number,
        title=_optional_text(record, "title"),
        url=_optional_text(record, "url"),
        authors=_authors(record.get("authors")),
    )


def _optional_text(record: dict[str, object], key: str) -> str | None:
    """A string field, stripped; None if missing, null or blank."""
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _BadLine(f'"{key}" is not a string')
    _check_text(key, value)
    return _strip(value) or None


def _check_text(key: str, value: str) -> None:
    # JSON escapes can smuggle in what UTF-8 text cannot hold; the store would choke on them.
    if _SURROGATE.search(value):
        raise _BadLine(f'"{key}" contains an invalid \\u escape (a lone surrogate)')
    if "\x00" in value:
        raise _BadLine(f'"{key}" contains a NUL character')


def _record_id(record: dict[str, object]) -> str | None:
    for key in _ID_KEYS:
        value = record.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise _BadLine(f'"{key}" is not a string or an integer')
        text = str(value).strip()
        _check_text(key, text)
        if text:
            return text
    return None


def _authors(value: object) -> tuple[str, ...]:
    """A list of names (strings or {"name": ...}), or one string split at ';' (else ',')."""
    if value is None:
        return ()
    if isinstance(value, str):
        separator = ";" if ";" in value else ","
        names: list[object] = list(value.split(separator))
    elif isinstance(value, list):
        names = [item.get("name") if isinstance(item, dict) else item for item in value]
    else:
        raise _BadLine('"authors" is not a list of names')
    result: list[str] = []
    for item in names:
        if not isinstance(item, str):
            raise _BadLine('"authors" is not a list of names')
        _check_text("authors", item)
        if item.strip():
            result.append(item.strip())
    return tuple(result)
