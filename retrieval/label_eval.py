"""Label quality against real titles: `paperbot eval labels FILE.jsonl...`.

Pure: given (abstract, real title) pairs, derive each label from the abstract alone and measure

- named-method rate: of the papers whose real title starts with a method name ("NAME: ...") that
  the abstract also uses, the share whose label starts with that name;
- structure: comma lists, "…", dangling function words, and clause-like ends (`ends_open`);
- title content-word recall: the share of the real title's content words (index terms of the one
  analyzer, so stemmed and without stopwords) found in the label, averaged over the papers that
  are not in the named set (their label has to say what the paper does).

Both are also given for the baseline label "first 90 characters of the abstract".
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from retrieval.labels import MAX_LABEL_CHARS, derive_label, opens_with_punctuation
from retrieval.labels.markup import clean
from retrieval.labels.words import (
    AUXILIARIES,
    OBJECTS,
    QUESTION_WORDS,
    RELATIVES,
    SUBORDINATORS,
    is_verb_form,
)
from retrieval.models import ParsedPaper
from retrieval.text import analyze

# A label ending on one of these leaves a phrase open: "... which resolves this by".
DANGLING_WORDS = frozenset(
    [
        "a", "an", "the", "this", "these", "those", "it", "its", "that", "which", "who", "by",
        "of", "for", "to", "in", "on", "with", "from", "and", "or", "but", "as", "at", "via",
        "into", "than", "their", "our", "we", "is", "are", "be", "can", "while", "whereas",
        "using", "such", "both", "between", "over", "under", "when", "where", "if", "not",
    ]
)  # fmt: skip


def is_comma_list(label: str) -> bool:
    """Three or more comma-separated fragments: a keyword list, not a title."""
    return label.count(", ") >= 2


def ends_in_ellipsis(label: str) -> bool:
    return label.rstrip().endswith(("…", "..."))


def dangles(label: str) -> bool:
    """Whether the label ends on a function word or demonstrative."""
    last = label.rstrip(" .,;:!?").rsplit(" ", 1)[-1].lower()
    return last in DANGLING_WORDS


def ends_open(label: str) -> bool:
    """Whether the label reads as a clause cut off, not a title, by form alone: it ends on a
    finite verb, auxiliary or modal ("... aims", "... can serve"), on a verb or pronoun right
    after a relative pronoun ("... that learns", "... that enables us"), or on "to" and a verb
    ("Ability to manipulate"); it holds a finite auxiliary after its first word, a subject-verb
    sentence ("Graph transformer has been proven", "X is often employed as ..."), unless it is
    a question; or a name is cut at a hyphen ("HiDe-: ...")."""
    _, colon, rest = label.partition(": ")
    phrase = rest if colon and rest else label
    words = [word.strip(".,;:!?\"'“”()").lower() for word in phrase.split()]
    words = [word for word in words if word]
    if not words:
        return False
    for index, word in enumerate(label.split()):
        following = label.split()[index + 1 : index + 2]
        if word.rstrip(".,;:").endswith("-") and following[:1] not in (["and"], ["or"], ["to"]):
            return True
    last = words[-1]
    before = words[-2] if len(words) > 1 else ""
    if last in OBJECTS or is_verb_form(last) or before in RELATIVES:
        return True
    if before == "to" and last.endswith(("ate", "ize", "ise", "ify")):
        return True
    if words[0] in QUESTION_WORDS or label.rstrip().endswith("?"):
        return False
    for word in words[1:]:
        if word in RELATIVES or word in SUBORDINATORS:
            return False  # "a mechanism that can regulate X": the clause is the noun's
        if word in AUXILIARIES:
            return True
    return False


def title_f1(title: str, label: str) -> float:
    """Word-overlap F1 of label and title (stemmed index terms), 0 for a structurally invalid
    label (comma list, ellipsis, dangling end): a keyword list cannot score by holding words."""
    if is_comma_list(label) or ends_in_ellipsis(label) or dangles(label):
        return 0.0
    wanted, mine = set(analyze(title)), set(analyze(label))
    both = len(wanted & mine)
    return 2 * both / (len(wanted) + len(mine)) if both else 0.0


# "NAME: rest of the title": a name is at most three words and 40 characters.
_TITLE_NAME = re.compile(r"(?P<name>[^\s:][^:]{0,39}?):\s")
_MAX_EXAMPLES = 10


@dataclass(frozen=True, slots=True)
class LabelCase:
    """One paper's label next to its real title."""

    title: str
    label: str
    name: str | None  # the method name the title starts with, when the abstract uses it
    recall: float


@dataclass(frozen=True, slots=True)
class LabelReport:
    """Both measures for one list, for the labeler and for the baseline."""

    name: str
    papers: int
    named: int
    named_hits: int
    baseline_named_hits: int
    recall: float  # over papers outside the named set
    baseline_recall: float
    recall_all: float  # over every paper
    starts_with_punctuation: int
    comma_lists: int = 0
    ellipses: int = 0
    dangling: int = 0
    open_ends: int = 0
    f1: float = 0.0  # title_f1 averaged over every paper
    named_misses: list[LabelCase] = field(default_factory=list)
    recall_misses: list[LabelCase] = field(default_factory=list)

    @property
    def named_rate(self) -> float:
        return self.named_hits / self.named if self.named else 0.0

    @property
    def baseline_named_rate(self) -> float:
        return self.baseline_named_hits / self.named if self.named else 0.0


def title_name(title: str, abstract: str) -> str | None:
    """'Pruner-Zero' for 'Pruner-Zero: Evolving ...' when the abstract uses the name, else None."""
    # Both as a reader sees them: "RoboMP$^2$" is "RoboMP²".
    match = _TITLE_NAME.match(clean(title))
    if match is None:
        return None
    name = match.group("name").strip()
    if name.count(" ") > 2 or not any(char.isupper() or char.isdigit() for char in name):
        return None
    if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", clean(abstract)) is None:
        return None
    return name


def starts_with_name(label: str, name: str) -> bool:
    """Whether the label opens with the name as a whole word (case-insensitively)."""
    head = label[: len(name)]
    following = label[len(name) : len(name) + 1]
    return head.casefold() == name.casefold() and not (following.isalnum() or following == "-")


def content_recall(title: str, label: str) -> float:
    """Share of the title's index terms that the label holds (1.0 for a title without any)."""
    wanted = set(analyze(title))
    if not wanted:
        return 1.0
    return len(wanted & set(analyze(label))) / len(wanted)


def baseline_label(abstract: str) -> str:
    """The label to beat: the abstract's first 90 characters."""
    return abstract[:MAX_LABEL_CHARS]


def evaluate_labels(
    name: str,
    records: Iterable[tuple[str, str]],
    labeler: Callable[[str], str] = derive_label,
) -> LabelReport:
    """Measure `labeler` on (abstract, title) pairs; the title is never shown to it."""
    papers = named = hits = baseline_hits = punctuation = 0
    recalls: list[float] = []
    f1s: list[float] = []
    lists = ellipses = dangling = open_ends = 0
    baseline_recalls: list[float] = []
    all_recalls: list[float] = []
    named_misses: list[LabelCase] = []
    recall_misses: list[LabelCase] = []
    for abstract, title in records:
        papers += 1
        label = labeler(abstract)
        baseline = baseline_label(abstract)
        if opens_with_punctuation(label):
            punctuation += 1
        recall = content_recall(title, label)
        lists += is_comma_list(label)
        ellipses += ends_in_ellipsis(label)
        dangling += dangles(label)
        open_ends += ends_open(label)
        f1s.append(title_f1(title, label))
        all_recalls.append(recall)
        method = title_name(title, abstract)
        case = LabelCase(title, label, method, recall)
        if method is not None:
            named += 1
            if starts_with_name(label, method):
                hits += 1
            elif len(named_misses) < _MAX_EXAMPLES:
                named_misses.append(case)
            baseline_hits += starts_with_name(baseline, method)
        else:
            recalls.append(recall)
            baseline_recalls.append(content_recall(title, baseline))
            if recall == 0.0 and len(recall_misses) < _MAX_EXAMPLES:
                recall_misses.append(case)
    return LabelReport(
        name=name,
        papers=papers,
        named=named,
        named_hits=hits,
        baseline_named_hits=baseline_hits,
        recall=_mean(recalls),
        baseline_recall=_mean(baseline_recalls),
        recall_all=_mean(all_recalls),
        starts_with_punctuation=punctuation,
        comma_lists=lists,
        ellipses=ellipses,
        dangling=dangling,
        open_ends=open_ends,
        f1=_mean(f1s),
        named_misses=named_misses,
        recall_misses=recall_misses,
    )


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


# `eval labels` columns: (header, what it measures). Each header is distinct and says itself;
# the legend under the table gives the longer meaning.
LABEL_COLUMNS = (
    ("list", "the file"),
    ("papers", "papers with a title"),
    ("NAME papers", "papers whose title starts 'NAME:' and whose abstract uses NAME"),
    ("named rate", "of those, labels that start with NAME"),
    ("first-90 named", "the same for a plain label: the abstract's first 90 characters"),
    ("title words", "title content words held by the label, papers without NAME"),
    ("first-90 words", "the same for the first-90-characters label"),
    ("title words, all", "title content words held by the label, every paper"),
    ("starts punct", "labels starting with punctuation"),
    ("lists %", "labels of 3+ comma-separated fragments"),
    ("… %", "labels ending in an ellipsis"),
    ("dangling", "labels ending on a function word (this, which, by, of ...)"),
    (
        "open %",
        "labels ending as a clause: on a verb, in an open relative clause, a subject-verb"
        " sentence, or a name cut at a hyphen",
    ),
    ("title F1", "word-overlap F1 with the title, 0 for a list, ellipsis or dangling end"),
)


def format_label_reports(reports: Sequence[LabelReport], *, examples: bool = True) -> str:
    """A table of both measures per list (two spaces between columns), a legend, then examples
    of misses."""
    rows = [
        [
            report.name,
            f"{report.papers}",
            f"{report.named}",
            f"{report.named_rate:.3f}",
            f"{report.baseline_named_rate:.3f}",
            f"{report.recall:.3f}",
            f"{report.baseline_recall:.3f}",
            f"{report.recall_all:.3f}",
            f"{report.starts_with_punctuation}",
            f"{100 * report.comma_lists / max(report.papers, 1):.1f}",
            f"{100 * report.ellipses / max(report.papers, 1):.1f}",
            f"{report.dangling}",
            f"{100 * report.open_ends / max(report.papers, 1):.1f}",
            f"{report.f1:.3f}",
        ]
        for report in reports
    ]
    headers = [header for header, _ in LABEL_COLUMNS]
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        first = f"{cells[0]:<{widths[0]}}"
        rest = (f"{cell:>{width}}" for cell, width in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest])

    lines = [line(headers), *(line(row) for row in rows)]
    lines.extend(f"  {header}: {meaning}" for header, meaning in LABEL_COLUMNS[2:])
    if examples:
        for report in reports:
            lines.append(f"\n{report.name}: named misses (title | label)")
            lines.extend(f"  {case.title}\n    -> {case.label}" for case in report.named_misses)
            lines.append(f"{report.name}: labels with no title word (title | label)")
            lines.extend(f"  {case.title}\n    -> {case.label}" for case in report.recall_misses)
    return "\n".join(lines)


def read_label_tsv(path: Path) -> dict[str, str]:
    """doc_id<TAB>label lines, as `benchmarks/label_speed.py --dump` writes them."""
    labels: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            doc_id, tab, label = line.partition("\t")
            if not tab:
                raise ValueError(f"line {number} has no tab")
            labels[doc_id] = label
    return labels


def _sample(
    papers: Sequence[ParsedPaper], other: dict[str, str], size: int, seed: int
) -> list[ParsedPaper]:
    known = [paper for paper in papers if paper.external_id in other]
    return random.Random(seed).sample(known, min(size, len(known)))


def reader_sheet(
    papers: Sequence[ParsedPaper], other: dict[str, str], size: int, seed: int
) -> tuple[str, str]:
    """A blind rating sheet (markdown) of `size` random papers, each with labels A and B in a
    random order (this labeler's and `other`'s), and the key (TSV) saying which is which.
    Titles are never shown."""
    chosen = _sample(papers, other, size, seed)
    order = random.Random(seed + 1)
    sheet = [
        "# Label reading panel",
        "",
        "Rate each label 1-5: would it do as this paper's title in a list? (5 = as good as a"
        " real title, 1 = useless or wrong).",
    ]
    key = ["paper\tdoc_id\tA\tB"]
    for number, paper in enumerate(chosen, start=1):
        labels = [("new", derive_label(paper.abstract)), ("other", other[paper.external_id])]
        order.shuffle(labels)
        abstract = " ".join(clean(paper.abstract).split())
        sheet += [
            "",
            f"## Paper {number}",
            "",
            abstract,
            "",
            f"- A: {labels[0][1]}  — rating: __",
            f"- B: {labels[1][1]}  — rating: __",
        ]
        key.append(f"{number}\t{paper.external_id}\t{labels[0][0]}\t{labels[1][0]}")
    return "\n".join(sheet), "\n".join(key) + "\n"


def format_pairs(papers: Sequence[ParsedPaper], other: dict[str, str], size: int, seed: int) -> str:
    """`size` random papers (not picked): the other label, then this labeler's."""
    lines = [f"\n{size} random papers (seed {seed}): before | after"]
    for paper in _sample(papers, other, size, seed):
        lines.append(f"- {other[paper.external_id]}\n  → {derive_label(paper.abstract)}")
    return "\n".join(lines)
