"""Lines of the ranking and data layer against issue 25's budget of 2,000.

    python benchmarks/layer_lines.py

The layer is the snapshot package (everything under retrieval/snapshot/) plus retrieval/corpus.py
(the snapshot's face the rest of the engine imports). Lines are physical lines, docstrings and
comments included (what `wc -l` counts). Prints each module, the total and the verdict.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET = 2_000


def layer() -> list[Path]:
    package = sorted((ROOT / "retrieval" / "snapshot").glob("*.py"))
    return [*package, ROOT / "retrieval" / "corpus.py"]


def main() -> int:
    total = 0
    for path in layer():
        lines = path.read_text(encoding="utf-8").count("\n")
        total += lines
        print(f"{lines:6,}  {path.relative_to(ROOT)}")
    verdict = "MET" if total <= BUDGET else f"NOT MET ({total - BUDGET:,} over)"
    print(f"{total:6,}  total; budget {BUDGET:,}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
