"""The analyzer's output on fixed sentences, pinned to `ANALYZER_VERSION`.

Stored indexes are rebuilt only when `retrieval.text.ANALYZER_VERSION` changes, so any change to
the terms `analyze()` produces must come with a bump. `tests/retrieval/test_text.py` compares the
analyzer with `analyzer_golden.json`; after bumping the version, rewrite that file with

    .venv/bin/python -m tests.retrieval.analyzer_golden

which refuses to write while the version still equals the recorded one.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from retrieval.stopwords import STOPWORDS
from retrieval.text import ANALYZER_VERSION, analyze

GOLDEN = Path(__file__).with_name("analyzer_golden.json")

# One sentence per rule in retrieval/text.py's docstring, plus real abstract prose.
SENTENCES = (
    r"$\textit{\textbf{Elastic Attention}}$ with **LIFT** and \emph{sparse} `code` _routing_",
    r"$8\times$A800 GPUs, $\mathcal{O}(n)$ time, 2$\times$ faster, $a \cdot b$",
    r"$\epsilon$-greedy, ε-greedy and $\alpha$ vs \beta; **A**daptive **R**etrieval",
    "ＧＰＴ－４ and ﬁne-tuning of model\u00ado\u200bnly re\u200dtrieval",
    "pre-training, k-means, Search-R2, state-of-the-art, retrieval-augmented generation",
    "Llama-3.1-8B-Instruct, GPT-3.5, encoder/decoder, o3 gpt4 r2 2026 3.5% 100 (1) x v1.2",
    "LLMs GNNs; the model's output; don’t; isn't; few-shot off-policy self-attention",
    "which papers attack RAG retrievers? Is there any work on sparse attention?",
    "In this paper, we propose a novel method; anything on diffusion? show me papers about it",
    "Sparse Mixture of Experts (MoE) models scale more efficiently than dense models by routing "
    "tokens to modular expert networks that are only active when relevant to the task.",
    "Existing data poisoning attacks on retrieval-augmented generation (RAG) systems scale poorly "
    "because they require costly optimization of poisoned documents for each target phrase.",
)


def stopwords_digest() -> str:
    """A digest of the stopword lists: a word added or removed changes index terms."""
    return hashlib.sha256("\n".join(sorted(STOPWORDS)).encode()).hexdigest()


def current() -> dict[str, Any]:
    return {
        "analyzer_version": ANALYZER_VERSION,
        "stopwords_sha256": stopwords_digest(),
        "analyses": [{"text": text, "terms": analyze(text)} for text in SENTENCES],
    }


def _dump(golden: dict[str, Any]) -> str:
    """JSON with one analysis per line, so a diff shows which sentence changed."""
    rows = ",\n  ".join(json.dumps(row, ensure_ascii=False) for row in golden["analyses"])
    head = {key: value for key, value in golden.items() if key != "analyses"}
    return json.dumps(head, ensure_ascii=False)[:-1] + f', "analyses": [\n  {rows}\n]}}\n'


def main() -> int:
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8")) if GOLDEN.exists() else None
    fresh = current()
    if recorded == fresh:
        print(f"{GOLDEN.name} is up to date (analyzer version {ANALYZER_VERSION}).")
        return 0
    if recorded is not None and recorded["analyzer_version"] == ANALYZER_VERSION:
        print(
            f"analysis changed but ANALYZER_VERSION is still {ANALYZER_VERSION}: bump it in "
            "retrieval/text.py first, then run this again.",
            file=sys.stderr,
        )
        return 1
    GOLDEN.write_text(_dump(fresh), encoding="utf-8")
    print(f"wrote {GOLDEN} for analyzer version {ANALYZER_VERSION}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
