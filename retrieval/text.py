"""The one analyzer for documents and queries, and acronym definitions found in text.

Pipeline: strip LaTeX/markdown markup (keeping the words), find words, then per word: NFKC,
lowercase, split compounds, drop stopwords, stem (snowball English via PyStemmer).

Rules that decide which terms exist (bump `ANALYZER_VERSION` when any of them changes):

- A word is a run of letters/digits; apostrophes inside a word are dropped ("model's" -> models),
  and a dot between digits stays ("3.5", "gpt3.5", "v1.2").
- Hyphenated compounds yield the joined form first, then each part: "pre-training" -> pretrain,
  pre, train. Only 2- and 3-part compounds are joined ("k-means" -> kmean, "GPT-4" -> gpt4,
  "state-of-the-art" -> stateoftheart); longer chains ("Llama-3.1-8B-Instruct") only yield parts.
  Joined forms come first so a phrase across the compound's right edge stays adjacent.
- Slashes separate words without joining ("encoder/decoder" -> encod, decod).
- Single characters are dropped (stray "K", "n", enumeration "(1)"); numbers of two or more
  characters are kept ("2024", "100", "3.5"); a lone Greek letter becomes its name ("ε" -> epsilon).
- Vowel-less all-letter words lose a plural "s" before stemming ("LLMs" -> llm), which snowball
  would otherwise keep.
- Invisible characters (Unicode's default-ignorable code points: soft hyphens, zero-width
  spaces and joiners, bidi overrides, variation selectors, tag characters) are removed first, so
  "retrie(soft hyphen)val" from a PDF or "mo(zero-width space)del" typed to dodge a filter reads
  as one word.
"""

from __future__ import annotations

import html
import re
import threading
import unicodedata
from collections.abc import Iterator
from operator import itemgetter
from typing import Final

import Stemmer

from retrieval.stopwords import STOPWORDS

ANALYZER_VERSION: Final = 2

# --- markup ------------------------------------------------------------------------------

_GREEK: Final[dict[str, str]] = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "θ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "varrho": "ρ",
    "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ",
    "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ",
    "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}  # fmt: skip
# Names by lowercase letter, so "ε" and "\epsilon" index as the word a user would type.
_GREEK_NAMES: Final[dict[str, str]] = {
    char.lower(): name.lower().removeprefix("var") for name, char in _GREEK.items()
}
_SYMBOLS: Final[dict[str, str]] = {
    "times": "×", "cdot": "·", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠",
    "ne": "≠", "approx": "≈", "sim": "~", "in": "∈", "notin": "∉", "infty": "∞", "to": "→",
    "rightarrow": "→", "longrightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒",
    "mapsto": "↦", "pm": "±", "ldots": "…", "dots": "…", "cdots": "…", "partial": "∂",
    "nabla": "∇", "sum": "Σ", "prod": "∏", "int": "∫", "sqrt": "√", "star": "*", "ast": "*",
    "circ": "∘", "top": "⊤", "subset": "⊂", "subseteq": "⊆", "cup": "∪", "cap": "∩",
    "forall": "∀", "exists": "∃", "propto": "∝", "ll": "≪", "gg": "≫", "mid": "|",
    "ell": "ℓ", "emptyset": "∅", "quad": " ", "qquad": " ", "percent": "%",
}  # fmt: skip
# Operator names that read as words, kept as words.
_WORD_COMMANDS: Final = frozenset(
    {"log", "ln", "exp", "min", "max", "sup", "inf", "lim", "det", "arg", "argmin", "argmax"}
    | {"sin", "cos", "tan", "tanh", "poly", "polylog"}
)
# Commands whose argument is a reference, not prose: dropped with the argument.
_DROP_WITH_ARGUMENT = re.compile(
    r"\\(?:cite[tp]?|citealp|citeauthor|citeyear|ref|eqref|label|footnote)\*?"
    r"(?:\[[^\]\n]{0,100}\])?\{[^{}\n]{0,300}\}"
)
_HREF = re.compile(r"\\href\{([^{}\n]{0,500})\}\{([^{}\n]{0,500})\}")
_FRAC = re.compile(r"\\[dt]?frac\{([^{}\n]{0,200})\}\{([^{}\n]{0,200})\}")
_COMMAND = re.compile(r"\\(?:([A-Za-z]+)\*?|(.))", re.DOTALL)
_TIE = re.compile(r"(?<=[A-Za-z.])~(?=[\w\\])")
_MD_LINK = re.compile(r"\[([^\[\]\n]{1,300})\]\((https?://[^()\s]{1,500})\)")
# Emphasis needs a non-word character outside and non-space inside, so "x_i" and "a*b" survive.
_MD_EMPHASIS = re.compile(r"(?<![\w\\])([*_])(?=[^\s*_])([^*_]{1,200}?)(?<=\S)\1(?!\w)")
_SPACES = re.compile(r"\s+")
# Unicode's Default_Ignorable_Code_Point set (DerivedCoreProperties.txt): never visible, so never
# part of what a reader sees as a word.
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]+"
)


def _command(match: re.Match[str]) -> str:
    name, char = match.group(1), match.group(2)
    if name is None:
        # \\ and spacing commands are spaces; \% \& \_ \$ \# are the characters; accents
        # (\'e, \"o) and \( \) \[ \] math delimiters vanish.
        if char in "%&_#$":
            return char
        return " " if char in "\\ ,;:!\n" else ""
    if name in _GREEK:
        return _GREEK[name]
    if name in _SYMBOLS:
        return _SYMBOLS[name]
    if name in _WORD_COMMANDS:
        return f" {name} "
    # \textbf, \emph, \mathcal ... and anything unknown: the name goes, the braced content stays.
    return ""


def _strip_markup(text: str) -> str:
    """Markup removed, words kept; each step is skipped when its trigger character is absent."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", _IGNORABLE.sub("", text))
    if "&" in text:
        text = html.unescape(text)
        if not text.isascii():  # "&shy;", "&#8203;"
            text = _IGNORABLE.sub("", text)
    if "~" in text:
        text = _TIE.sub(" ", text)
    if "\\" in text:
        text = _DROP_WITH_ARGUMENT.sub("", text)
        text = _HREF.sub(r"\2 (\1)", text)
        text = _FRAC.sub(r"\1/\2", text)
        text = _COMMAND.sub(_command, text)
    if "](" in text:
        text = _MD_LINK.sub(r"\1 (\2)", text)
    if "`" in text:
        text = text.replace("``", "“").replace("''", "”").replace("`", "")
    if "$" in text:
        text = text.replace("$", "")
    if "{" in text or "}" in text:
        text = text.replace("{", "").replace("}", "")
    if "**" in text or "__" in text:
        text = text.replace("**", "").replace("__", "")
    if "*" in text or "_" in text:
        text = _MD_EMPHASIS.sub(r"\2", text)
    if "--" in text:
        text = text.replace("---", "—").replace("--", "–")
    return text


_ENTITY_START = re.compile(r"&(?=#?[0-9A-Za-z])")


def clean_for_display(text: str) -> str:
    """Human-readable text: LaTeX/markdown markup removed, words kept, whitespace collapsed.

    `analyze(clean_for_display(t)) == analyze(t)`, so words found in the cleaned text carry the
    same terms as the index.
    """
    cleaned = _SPACES.sub(" ", _strip_markup(text)).strip()
    # Unescaping can leave a new entity ("&amp#00" -> "&#00"), which analyzing the cleaned text
    # would unescape a second time; a space after its "&" keeps it literal text.
    return _ENTITY_START.sub(_literal_entity, cleaned) if "&" in cleaned else cleaned


def _literal_entity(match: re.Match[str]) -> str:
    ahead = match.string[match.start() : match.start() + 34]
    return "& " if html.unescape(ahead)[:1] != "&" else "&"


# --- words ---------------------------------------------------------------------------------

# A part: letters/digits, apostrophes between letters, dots between digits. Each repetition starts
# with a distinct character class, so matching is linear.
_PART = r"[^\W_]+(?:['’][^\W_]+)*(?:(?<=\d)\.\d+)*"
_HYPHENS = "-‐‑－"
_WORD = re.compile(rf"{_PART}(?:[{_HYPHENS}]{_PART})*")
# In raw text, LaTeX command names are markup, except Greek letters and operator words.
_RAW_WORD = re.compile(rf"\\[A-Za-z]+|{_WORD.pattern}")
_SUBPART = re.compile(r"[^\W_]+(?:'[^\W_]+)*(?:(?<=\d)\.\d+)*")
_VOWELS = frozenset("aeiouy")
_MAX_JOINED_PARTS: Final = 3
_CACHE_LIMIT: Final = 200_000  # per cache; entries are ~150 bytes

_local = threading.local()  # PyStemmer objects are not thread-safe; the engine ranks in threads.
_cache: dict[str, tuple[str, ...]] = {}  # word -> terms
_chunk_cache: dict[str, tuple[str, ...]] = {}  # whitespace-separated chunk -> terms


def _stem(word: str) -> str:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = Stemmer.Stemmer("english")
    result: str = stemmer.stemWord(word)
    return result


def _part_term(part: str) -> str | None:
    """Term of one normalized (lowercase, apostrophe-free) part; None if it is not indexed."""
    if len(part) == 1:
        return _GREEK_NAMES.get(part)
    if part in STOPWORDS:
        return None
    if part[0].isdigit() and part.replace(".", "").isdigit():
        return part
    plural = part.endswith("s") and part.isalpha() and part.isascii() and len(part) > 2
    if plural and not _VOWELS.intersection(part):
        part = part[:-1]  # acronym plurals: llms -> llm, gnns -> gnn
    return _stem(part)


def _word_terms(word: str) -> tuple[str, ...]:
    """All terms of one word as matched by `_WORD` (a compound gives joined form + parts)."""
    terms = _cache.get(word)
    if terms is not None:
        return terms
    norm = word if word.isascii() else unicodedata.normalize("NFKC", word).replace("’", "'")
    norm = norm.lower()
    parts = [p.replace("'", "") for p in _SUBPART.findall(norm)]
    parts = [_GREEK_NAMES.get(p, p) for p in parts]
    found: list[str] = []
    if 2 <= len(parts) <= _MAX_JOINED_PARTS:
        joined = _part_term("".join(parts))
        if joined is not None:
            found.append(joined)
    for part in parts:
        term = _part_term(part)
        if term is not None and term not in found:
            found.append(term)
    terms = tuple(found)
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()  # bounded memory; the working vocabulary refills it quickly
    _cache[word] = terms
    return terms


def _chunk_terms(chunk: str) -> tuple[str, ...]:
    terms: list[str] = []
    for word in _WORD.findall(chunk):
        terms.extend(_word_terms(word))
    result = tuple(terms)
    if len(_chunk_cache) >= _CACHE_LIMIT:
        _chunk_cache.clear()
    _chunk_cache[chunk] = result
    return result


def analyze(text: str) -> list[str]:
    """Index terms of `text`, in text order. Never raises; linear in the length of `text`."""
    terms: list[str] = []
    extend = terms.extend
    cache_get = _chunk_cache.get
    # Words never contain whitespace, so whitespace-separated chunks ("(LLMs)," "models.") are
    # cached whole: most chunks repeat, which skips the word regex for them.
    for chunk in _strip_markup(text).split():
        cached = cache_get(chunk)
        extend(cached if cached is not None else _chunk_terms(chunk))
    return terms


def analyze_word(word: str) -> str | None:
    """Index term of one plain word; None for stopwords and punctuation.

    For a compound this is its joined form ("pre-training" -> pretrain), so
    `analyze(w) == [analyze_word(w)]` holds for every word that yields a single term.
    """
    match = _WORD.search(_strip_markup(word))
    if match is None:
        return None
    terms = _word_terms(match.group())
    return terms[0] if terms else None


def word_terms(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """(start, end, all terms) per word of `text` as given; compounds are one word.

    Highlighting uses this to mark "Retrieval-Augmented" when the query has "augment".
    Stopwords and punctuation-only words have an empty tuple.
    """
    found: list[tuple[int, int, tuple[str, ...]]] = []
    for match in _RAW_WORD.finditer(text):
        word = _found_word(match)
        if word is not None:
            found.append(word)
    return found


def word_at(text: str, start: int) -> tuple[int, int, tuple[str, ...]] | None:
    """The word of `word_terms(text)` that starts at `start`, found without scanning the rest.

    Exact for a text without backslashes: then every word starts where its match does.
    """
    match = _RAW_WORD.match(text, start)
    return None if match is None else _found_word(match)


def _found_word(match: re.Match[str]) -> tuple[int, int, tuple[str, ...]] | None:
    word = match.group()
    if word[0] == "\\":
        name = word[1:]
        if name not in _GREEK and name not in _WORD_COMMANDS:
            return None  # markup such as \textbf is not a word
        return (match.start() + 1, match.end(), _word_terms(name))
    return (match.start(), match.end(), _word_terms(word))


def word_spans(text: str) -> list[tuple[int, int, str | None]]:
    """(start, end, term or None) per word of `text` as given, for highlighting.

    The term is `analyze_word` of the word: for compounds, the joined form. Use `word_terms`
    when a compound's part terms matter too.
    """
    return [(start, end, terms[0] if terms else None) for start, end, terms in word_terms(text)]


# --- acronyms ------------------------------------------------------------------------------

# "(MoE)", "(LLMs)": 2-10 letters/digits, checked for two capitals in `_acronym`.
_PAREN_ACRONYM = re.compile(r"\(\s*([A-Za-z0-9]{2,11})\s*\)")
# "MoE (Mixture of Experts)": the acronym directly before a parenthesis of words.
_ACRONYM_FIRST = re.compile(r"(?<![\w-])([A-Za-z0-9]{2,11})\s+\(([^()\n]{3,120})\)")
# Long forms end at clause punctuation; the window is the text after the last such mark.
_CLAUSE_END = re.compile(r".*[.,;:!?()\[\]\"“”]", re.DOTALL)
_LONG_FORM_WORD = re.compile(r"\S+")
# Short words a long form may skip: "reinforcement learning from human feedback" (RLHF).
_GLUE = frozenset({"of", "from", "for", "and", "the", "in", "on", "to", "with", "by", "a", "an"})


def _acronym_first_matches(text: str) -> Iterator[re.Match[str]]:
    """`_ACRONYM_FIRST.finditer(text)` for a text whose whitespace runs are single spaces, tried
    only where a match can start instead of at every character (a third of the acronym search).

    A match is a run of 2-11 ASCII letters and digits, a space, then "(": it starts at most 11
    characters before the first " (" at or after the position the search has reached (its own
    run holds no space). So each " (" needs at most ten anchored attempts, in order.
    """
    pos = 0
    while (paren := text.find(" (", pos)) >= 0:
        for start in range(max(pos, paren - 11), paren - 1):
            match = _ACRONYM_FIRST.match(text, start)
            if match is not None:
                yield match
                pos = match.end()
                break
        else:
            pos = paren + 1


def _acronym(candidate: str) -> str | None:
    """The acronym a parenthesized token defines, plural s removed; None if not acronym-like."""
    if candidate.endswith("s") and sum(c.isupper() for c in candidate[:-1]) >= 2:
        candidate = candidate[:-1]
    if not 2 <= len(candidate) <= 10 or not candidate[0].isalnum():
        return None
    if sum(c.isupper() for c in candidate) < 2:
        return None
    return candidate


def _is_word_start(text: str, i: int) -> bool:
    if i == 0 or not text[i - 1].isalnum():
        return True
    before, char = text[i - 1], text[i]
    return (before.isdigit() and char.isalpha()) or (before.islower() and char.isupper())


def _match_from(acronym: str, window: str, start: int) -> list[int] | None:
    """Positions of the acronym's characters in `window`, the first at `start`, or None.

    Capitals go to the next word start holding that letter; other characters stay in the word
    of the character before them when they can ("LoRA": low-rank adaptation, "DeRa": decoding-
    time realignment), else go to the next word start.
    """
    positions = [start]
    pos = start
    for char in acronym[1:]:
        target = char.lower()
        found = -1
        if not char.isupper():
            scan = pos + 1
            while scan < len(window) and window[scan].isalnum():
                if window[scan].lower() == target:
                    found = scan
                    break
                scan += 1
        if found < 0:
            scan = pos + 1
            while scan < len(window):
                if window[scan].lower() == target and _is_word_start(window, scan):
                    found = scan
                    break
                scan += 1
        if found < 0:
            return None
        positions.append(found)
        pos = found
    return positions


def _inner_place(window: str, start: int, target: str) -> int | None:
    """Where `target` starts the second part of a closed compound that is the window's last
    word ("autoencoders", "finetuning"): a lowercase word, at least three letters before the
    place and four after it; the rightmost such place, or None."""
    word = window[start:]
    if start == 0 or not word.isalpha() or not word[1:].islower():
        return None
    place = word.rfind(target, 3, len(word) - 4)
    return None if place < 0 else start + place


def _match_backward(acronym: str, window: str, *, inner: bool = False) -> list[int] | None:
    """Schwartz–Hearst's backward greedy match: each character at its rightmost possible place.

    Finds "incremental first-order oracle" (IFO) where the forward match takes "order" for O.
    With `inner`, the acronym's last capital may sit inside the window's last word when an
    earlier word starts the long form: "variational autoencoders" (VAE), "sparse autoencoders"
    (SAE); a lone word never does ("Transformer (TF)").
    """
    pos = len(window)
    positions: list[int] = []
    last_word = window.rfind(" ") + 1
    for index in range(len(acronym) - 1, -1, -1):
        char = acronym[index]
        need_start = index == 0 or char.isupper()
        target = char.lower()
        pos -= 1
        if inner and not positions and index > 0 and char.isupper():
            inside = _inner_place(window, last_word, target)
            if inside is None:
                return None
            positions.append(pos := inside)
            continue
        while pos >= 0 and not (
            window[pos].lower() == target and (not need_start or _is_word_start(window, pos))
        ):
            pos -= 1
        if pos < 0:
            return None
        positions.append(pos)
    positions.reverse()
    if inner and positions[0] >= last_word:
        return None
    for index in range(1, len(acronym)):
        here, before = positions[index], positions[index - 1]
        # A lowercase letter or digit inside a word must share the word of the one before it.
        in_word = window[before:here].isalnum()
        if not acronym[index].isupper() and not _is_word_start(window, here) and not in_word:
            return None
    return positions


def _long_form(acronym: str, window: str, *, whole: bool) -> str | None:
    """Schwartz–Hearst style long form of `acronym` ending at the end of `window`, or None.

    Stricter than Schwartz–Hearst for precision: every whitespace-separated word of the long form
    must hold a matched character or be glue ("of", "from"); the shortest long form wins.
    With `whole`, the long form must be all of `window` ("MoE (Mixture of Experts)").
    """
    first = acronym[0].lower()
    lead = len(window) - len(window.lstrip())
    if whole:
        starts = [lead]
    else:
        starts = [
            i
            for i in range(len(window) - 1, -1, -1)
            if window[i].lower() == first and _is_word_start(window, i)
        ]
    candidates = [_match_backward(acronym, window)]
    candidates += [_match_from(acronym, window, i) for i in starts if i < len(window)]
    candidates.append(_match_backward(acronym, window, inner=True))
    max_words = min(len(acronym) + 5, 2 * len(acronym))
    for positions in candidates:
        if positions is None or window[positions[0]].lower() != first:
            continue
        # Start at the whitespace-delimited word holding the first match, so "multi-modal
        # large language models (MLLMs)" keeps "multi-".
        word_start = window.rfind(" ", 0, positions[0]) + 1
        if whole and word_start > lead:
            continue
        words = list(_LONG_FORM_WORD.finditer(window, word_start))
        if len(words) > max_words:
            continue
        if all(
            any(word.start() <= p < word.end() for p in positions) or word.group().lower() in _GLUE
            for word in words
        ):
            return _tidy_long_form(acronym, window[word_start:])
    return None


def _tidy_long_form(acronym: str, long_form: str) -> str | None:
    long_form = long_form.strip().strip("-–—‐'\"’”")
    if len(long_form) <= len(acronym) + 2 and " " not in long_form:
        return None
    if any(mark in long_form for mark in ("/", "@", "=")):
        return None  # URLs, emails and formulas are not long forms
    if long_form.lower().replace("-", "").replace(" ", "") == acronym.lower():
        return None
    return long_form


def find_acronyms(text: str) -> list[tuple[str, str]]:
    """Acronym definitions as (acronym, long form) surface strings, in text order, deduplicated.

    Finds "Mixture of Experts (MoE)" and "MoE (Mixture of Experts)". Built for precision: the
    engine derives a corpus-wide expansion table from these.
    """
    try:
        return _find_acronyms(text)
    except Exception:  # a heuristic must never break ingest
        return []


def _find_acronyms(text: str) -> list[tuple[str, str]]:
    # Whitespace runs as single spaces (and none at the ends: no pattern needs them); join and
    # split cost a quarter of a regex substitution over every space.
    text = " ".join(_strip_markup(text).split())
    found: dict[tuple[str, str], int] = {}
    for match in _PAREN_ACRONYM.finditer(text):
        acronym = _acronym(match.group(1))
        if acronym is None:
            continue
        before = text[max(0, match.start() - 200) : match.start()]
        clause = _CLAUSE_END.match(before)
        window = before[clause.end() :] if clause else before
        words = window.split()
        window = " ".join(words[-min(len(acronym) + 5, 2 * len(acronym)) :])
        long_form = _long_form(acronym, window, whole=False)
        if long_form is not None:
            found.setdefault((acronym, long_form), match.start())
    for match in _acronym_first_matches(text):
        acronym = _acronym(match.group(1))
        if acronym is None:
            continue
        long_form = _long_form(acronym, match.group(2).strip(), whole=True)
        if long_form is not None:
            found.setdefault((acronym, long_form), match.start())
    return [pair for pair, _ in sorted(found.items(), key=itemgetter(1))]
