"""Issue 5 §4: hostile questions through `Engine.ask` (and ids through `paper`/`similar`).

Each is answered, or refused with one clear line. How long they take is measured by
`benchmarks/linear_time.py --questions` on the same questions: under 2 s each, and 4x the input
at most ~8x the time (nothing quadratic in the length of the question).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from retrieval.engine import Engine
from retrieval.errors import PaperbotError
from retrieval.models import Answer
from tests.reliability.conftest import s_word
from tests.reliability.helpers import (
    make_settings,
    rare_words,
    record,
)

# One event loop for the module, so the engines below are opened once, not per test.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def engine(questions_db: Path) -> AsyncIterator[Engine]:
    opened = await Engine.open(make_settings(questions_db), ingest_seeds=False)
    try:
        yield opened
    finally:
        await opened.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def wide_engine(questions_db: Path) -> AsyncIterator[Engine]:
    """The largest question the settings allow: 100k characters, 1024 terms."""
    opened = await Engine.open(
        make_settings(questions_db, max_query_chars=100_000, max_query_terms=1024),
        ingest_seeds=False,
    )
    try:
        yield opened
    finally:
        await opened.close()


RARE = rare_words(2000, seed=1)
_rng = random.Random(12)
BASE = "mixture experts routing"


def _gibberish(count: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    return " ".join(
        "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(rng.randint(6, 10)))
        for _ in range(count)
    )


QUESTIONS: dict[str, str] = {
    "100k characters": "mixture of experts routing " * 3800,
    "100k characters, no spaces": "x" * 100_000,
    "100k characters, one hyphenated word": "moe-" * 25_000,
    "10k known terms": " ".join(_rng.choice(RARE) for _ in range(10_000)),
    "10k unknown terms": _gibberish(10_000),
    "64 unknown s-words (biggest did-you-mean pool)": " ".join(
        s_word(_rng) + "q" for _ in range(64)
    ),
    "sql injection": "'; DROP TABLE papers; -- \" OR 1=1 UNION SELECT * FROM reading_list",
    "sql wildcards": "%mixture% _experts_ \\ ' \" ; --",
    "fts operators": 'mixture NEAR(experts routing) AND "x" OR NOT * ^title: col:foo',
    "fts stars and carets": "mix* ^experts rout*",
    "regex metacharacters": r"(a+)+$ .* [^] \d{99999} (?=x) mixture |experts| \\",
    "unbalanced quote": '"mixture experts',
    "empty quotes": '"" "" mixture',
    "quote soup": '"' * 5000,
    "only operators": "-mixture in:synthetic2026",
    "unknown collection": "mixture in:nosuchcollection",
    "many collection filters": "mixture " + " ".join(f"in:c{n}" for n in range(500)),
    "many exclusions": "mixture " + " ".join(f"-{word}" for word in RARE[:400]),
    "many phrases": '"mixture experts" ' * 110,
    "many phrases in different case": " ".join(
        '"' + "".join(c.upper() if n >> i & 1 else c for i, c in enumerate("mixture experts")) + '"'
        for n in range(110)
    ),
    # Distinct strings, the same words: each would be checked in every paper holding them.
    "many phrases with punctuation variants": " ".join(
        f'"mixture{"." * k} experts"' for k in range(1, 60)
    ),
    "many distinct phrases": " ".join(f'"{a} {b}"' for a, b in itertools.pairwise(RARE))[:2000],
    "long phrase": '"' + "mixture experts routing " * 12 + '"',
    "cyrillic confusables": "mіхturе ехреrts",
    "fullwidth letters": "ｍｉｘｔｕｒｅ ｅｘｐｅｒｔｓ",
    "math bold letters": "𝐦𝐢𝐱𝐭𝐮𝐫𝐞 𝐞𝐱𝐩𝐞𝐫𝐭𝐬",
    "rtl override": "\u202emixture\u202c \u2067experts\u2069 \u200frouting",
    "rtl override inside words": "mix\u202eture exp\u202eerts",
    "zero-width inside words": "mix\u200bture ex\u200dperts rou\u2060ting\ufeff",
    "zalgo": "m" + "\u0300\u0301\u0302" * 600 + "ixture",
    "combining marks only": "\u0301" * 5000,
    "emoji and zwj sequences": "👨\u200d👩\u200d👧 🔥" * 300 + " mixture",
    "control characters": "\x00mixture\x07\x1b[31mexperts\x1b[0m\r\n\t\x7f",
    "lone surrogate": "mixture \udcff experts \ud800",
    "discord mentions": "<@123456789012345678> @everyone @here <#1234> <@&5678> mixture",
    "custom emoji": "<:pepe:123456789012345678> <a:dance:1> experts",
    "markdown": "**mixture** __experts__ `routing` ~~x~~ ||spoiler|| > quote\n# head",
    "code block": "```sql\nDROP TABLE papers;\n```\nmixture",
    "markdown link": "[mixture](https://evil.example/@everyone) experts",
    "latex soup": "\\frac{" * 500 + "$" * 300 + "\\cite{" * 200,
    "html entities": "&amp;" * 400 + "&#x200b;mixture&shy;experts",
    "huge number": "9" * 5000,
    "dots and dashes": ".-" * 5000,
    "only stopwords": "the of and what which how is are",
    "whitespace": " \t\n\u3000\u2028" * 1000,
    "empty": "",
}


def _check_answer(answer: Answer, limit: int) -> None:
    assert len(answer.hits) <= limit
    assert answer.total >= len(answer.hits)
    for hit in answer.hits:
        assert len(hit.excerpt.plain) <= 400
        assert hit.paper.id


async def ask_outcome(engine: Engine, question: str, **kwargs: Any) -> str:
    """'refused' (one clear line) or 'answered (N papers)' (a well-formed answer)."""
    try:
        answer = await engine.ask(question, **kwargs)
    except PaperbotError as error:
        message = str(error)
        assert message and "\n" not in message and len(message) <= 2000, message
        assert "Traceback" not in message
        outcome = "refused"
    else:
        _check_answer(answer, kwargs.get("limit") or engine.settings.answer_results)
        outcome = f"answered ({answer.total} papers)"
    return outcome


@pytest.mark.parametrize("name", sorted(QUESTIONS))
async def test_hostile_question(engine: Engine, wide_engine: Engine, name: str) -> None:
    for which in (engine, wide_engine):
        outcome = await ask_outcome(which, QUESTIONS[name])
    record("hostile questions", f"{name}: {outcome}", cases=2)


async def test_invisible_characters_do_not_change_the_answer(engine: Engine) -> None:
    plain = await engine.ask(BASE)
    for disguised in (
        "mix\u200bture ex\u200dperts rou\u2060ting",
        "\u202emixture\u202c experts\u00ad routing",
        "ｍｉｘｔｕｒｅ ｅｘｐｅｒｔｓ ｒｏｕｔｉｎｇ",
    ):
        answer = await engine.ask(disguised)
        assert answer.total == plain.total
        assert [hit.paper.id for hit in answer.hits] == [hit.paper.id for hit in plain.hits]
    record("hostile questions", "zero-width, bidi and fullwidth disguises answer as plain", cases=3)


async def test_a_long_question_is_shortened_with_a_notice(engine: Engine) -> None:
    answer = await engine.ask("mixture of experts routing " * 3800)
    assert answer.notice is not None and "shortened" in answer.notice
    assert answer.hits


HOSTILE_IDS = [
    "a-" + "9" * 5000,
    "synthetic2026-" + "0" * 40 + "7",
    "x" * 100_000,
    "'; DROP TABLE papers; --",
    "synthetic2026-1 OR 1=1",
    "\u202esynthetic2026-1",
    "<@123> synthetic2026-1",
    "",
    "\x00",
]


@pytest.mark.parametrize("paper_id", HOSTILE_IDS, ids=range(len(HOSTILE_IDS)))
async def test_hostile_paper_ids(engine: Engine, paper_id: str) -> None:
    for call in (engine.paper, engine.similar):
        try:
            await call(paper_id)
        except PaperbotError as error:
            assert len(str(error)) < 300 and "\n" not in str(error)
    await engine.suggest_papers(paper_id)
    assert await engine.unsave_paper(1, paper_id) is False
    record("hostile questions", f"hostile paper id #{HOSTILE_IDS.index(paper_id)}", cases=4)


# -- scaling -----------------------------------------------------------------------------------

PATTERNS: dict[str, Callable[[int], str]] = {
    "repeated words": lambda n: ("mixture experts routing " * n)[:n],
    "distinct rare words": lambda n: " ".join(RARE * 20)[:n],
    "unknown words": lambda n: _gibberish(n // 8 + 1)[:n],
    "phrases": lambda n: " ".join(
        f'"mixture{"." * (k % 50)} experts{"!" * (k // 50)}"' for k in range(n)
    )[:n],
    "exclusions": lambda n: ("mixture " + " ".join(f"-{w}" for w in RARE * 20))[:n],
    "no spaces": lambda n: "x" * n,
    "hyphen chain": lambda n: ("moe-" * n)[:n],
    "markup": lambda n: ("**mixture** `x` \\frac{a}{b} $y$ [l](http://a.b) " * n)[:n],
    "zero-width": lambda n: ("mix\u200bture \u202eexperts " * n)[:n],
    "quotes": lambda n: '"' * n,
    "dots": lambda n: "mixture." * (n // 8),
}


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
async def test_long_questions_of_each_pattern_are_answered_or_refused(
    wide_engine: Engine, pattern: str
) -> None:
    for size in (20_000, 80_000):
        outcome = await ask_outcome(wide_engine, PATTERNS[pattern](size))
    record("hostile questions", f"{pattern}, 20k and 80k chars: {outcome}", cases=2)
