"""Domain errors: each carries a message written for the person who caused it."""

from __future__ import annotations

from pathlib import Path


class PaperbotError(Exception):
    """Base class: `str(error)` is one line a user can act on."""


class ListFormatError(PaperbotError):
    """A paper-list or JSONL file cannot be read; names the file and the line."""

    def __init__(self, path: Path | str, line: int | None, problem: str) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")


def id_format(example: str) -> str:
    """What a paper id looks like, for someone who typed something else."""
    return f"Ids look like `{example}`: a collection's short name, a dash, a number."


class PaperNotFound(PaperbotError):
    """No paper has the id the user gave."""

    def __init__(
        self,
        paper_id: str,
        suggestion: str | None = None,
        closest: tuple[str, ...] = (),
        example: str | None = None,
        ids_range: str | None = None,
    ) -> None:
        self.paper_id = paper_id
        self.suggestion = suggestion
        self.closest = closest or ((suggestion,) if suggestion else ())
        self.example = example
        # "ICML 2026 has ids icml2026-1 to icml2026-38.": for a number past a collection's end,
        # where the closest id is only the last one.
        self.ids_range = ids_range
        if ids_range:
            hint = f" {ids_range}"
        elif suggestion:
            hint = f" Did you mean `{suggestion}`?"
        elif example:
            # Nothing plausibly meant: say what an id looks like instead.
            hint = f" {id_format(example)}"
        else:
            hint = ""
        super().__init__(f"No paper has the id `{paper_id}`.{hint}")


class CollectionNotFound(PaperbotError):
    """A collection filter names a collection that does not exist."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        listed = ", ".join(known) if known else "none loaded yet"
        super().__init__(f"No collection is called `{name}`. Known collections: {listed}.")


class NothingLoaded(PaperbotError):
    """The store holds no papers yet."""

    def __init__(self) -> None:
        super().__init__("No papers are loaded yet. Ingest a paper list first.")


class QueryError(PaperbotError):
    """A question cannot be answered as written (too long, nothing to search for)."""


class StoreError(PaperbotError):
    """The database cannot be opened or written (read-only, full, newer schema)."""


class StoreUnavailable(StoreError):
    """The database server cannot be reached right now (down, restarting, too slow to answer).

    Transient: the store reconnects by itself, so the user is told to retry, nothing more.
    """

    MESSAGE = "The database is unavailable; try again in a moment."

    def __init__(self) -> None:
        super().__init__(self.MESSAGE)


class EvaluationError(PaperbotError):
    """Evaluation data (a BEIR folder, a known-item list) is missing or malformed."""
