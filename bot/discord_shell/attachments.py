"""Paper lists as Discord file attachments, within the upload limit (exports themselves are in
`retrieval.exports.formats`)."""

from __future__ import annotations

from collections.abc import Sequence

from discord import app_commands

from retrieval.exports.formats import ExportEntry, export_papers
from retrieval.models import Paper

# Discord's smallest upload limit for a bot's message (servers without boosts): 8 MiB, which a
# whole reading list of abstracts (~1.5 KB each) stays far below.
UPLOAD_LIMIT_BYTES = 8 * 1024 * 1024

EXPORT_CHOICES = [
    app_commands.Choice(name="Markdown (.md)", value="md"),
    app_commands.Choice(name="Plain text (.txt)", value="txt"),
    app_commands.Choice(name="BibTeX (.bib)", value="bibtex"),
    app_commands.Choice(name="CSV (.csv)", value="csv"),
]


def export_attachment(
    entries: Sequence[ExportEntry | Paper], fmt: str, *, title: str
) -> tuple[str, bytes] | None:
    """(file name, bytes) for the list, or None if it would not fit in one Discord upload."""
    name, data = export_papers(entries, fmt, title=title)
    return (name, data) if len(data) <= UPLOAD_LIMIT_BYTES else None


TOO_BIG = (
    "That list is too large for one Discord upload (8 MiB); "
    "export it with `paperbot export` on the command line."
)
