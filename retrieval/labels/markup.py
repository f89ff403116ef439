"""Clean an abstract or title for labelling: NFKC, no control characters, markup reduced to words.

LaTeX (`\\emph{...}`, `\\alpha`, `--`, `~`) and markdown (`[text](url)`, `_emphasis_`) become
the plain text a reader would see. Most abstracts are plain, so one character-class scan decides
whether any of the (bounded) substitutions run at all.
"""

from __future__ import annotations

import operator
import re
import unicodedata

# Names and topics sit in the first couple of thousand characters. The cut comes before NFKC,
# which can grow a string up to 18-fold, so it also bounds the work on pathological input.
MAX_SCAN = 6000

# Control characters, zero-width and bidi marks, lone surrogates: invisible, never wanted.
_JUNK_CHARS = (
    r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff"
    r"\ud800-\udfff"
)
_JUNK = re.compile(f"[{_JUNK_CHARS}]")
# The same in ASCII: control characters but tab, line feed and carriage return.
_ASCII_JUNK = bytes([*range(9), 11, 12, *range(14, 32), 127])
# Any character that needs work: markup, line breaks, control characters.
_MARKUP_HINT = re.compile(rf"[\\\[^`~$*{{}}_\n\t\r\u2028\u2029{_JUNK_CHARS}]")
# The same for ASCII text (a flag Python keeps, no scan): the marks and the control characters
# (exactly the unprintable ASCII ones), found by one `bytes.translate` that deletes them, three
# times faster than a character-class scan or `str.isprintable` (a Unicode table look-up per
# character).
_ASCII_CONTROLS = bytes([*range(32), 127])
_ASCII_HINTS = _ASCII_CONTROLS + b"\\[^`~$*{}_"
_MD_LINK = re.compile(r"\[([^\[\]]{0,300})\]\([^()\s]{0,500}\)")
_HREF = re.compile(r"\\href\s*\{[^{}]{0,500}\}\s*\{([^{}]{0,300})\}")
_LATEX_ARG = re.compile(r"\\[A-Za-z]{1,20}\*?\s*\{([^{}]{0,300})\}")
_LATEX_ESCAPE = re.compile(r"\\([%&_#$])")
_LATEX_SPACE = re.compile(r"\\[,;:! ]")
_LATEX_WORD = re.compile(r"\\([A-Za-z]{1,20})")
_TEX_QUOTES = re.compile(r"``([^`']{0,300})''")
_SUPERSCRIPT_DIGIT = re.compile(r"\^\{?([0-9])\}?")
# Patterns start with their literal so the scan is fast; the callbacks look at the neighbours.
_TILDE = re.compile("~")
_UNDERSCORES = re.compile("_{1,2}")
_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ",
    "Lambda": "Λ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "times": "×", "cdot": "·", "ell": "ℓ", "infty": "∞", "leq": "≤", "le": "≤", "geq": "≥",
    "ge": "≥", "approx": "≈", "sim": "~", "to": "→", "rightarrow": "→", "pm": "±",
}  # fmt: skip
# The replacement r"\1" as a C callable: a template string costs a Python-level parse per call.
_FIRST_GROUP = operator.methodcaller("group", 1)
_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def clean(text: str) -> str:
    """NFKC, no control characters, LaTeX and markdown markup reduced to its words."""
    text = unicodedata.normalize("NFKC", text[:MAX_SCAN])
    # Most abstracts are plain text: one character-class scan decides whether to look closer.
    if _marked(text) or "  " in text or "--" in text:
        return _strip_markup(text)
    return text.strip()


def _marked(text: str) -> bool:
    """Whether `text` holds a character `_MARKUP_HINT` finds: markup, line breaks, controls."""
    if not text.isascii():
        return _MARKUP_HINT.search(text) is not None
    return _holds_any(text, _ASCII_HINTS)


def without_junk(text: str) -> str:
    """The text without invisible characters; ASCII text is scanned at C speed first."""
    if text.isascii() and not _holds_any(text, _ASCII_JUNK):
        return text
    return _JUNK.sub("", text)


def _holds_any(ascii_text: str, characters: bytes) -> bool:
    return len(ascii_text.encode("ascii").translate(None, characters)) != len(ascii_text)


def _printable(text: str) -> bool:
    """`str.isprintable`, at C speed for ASCII text: no line break, tab or control character."""
    return not _holds_any(text, _ASCII_CONTROLS) if text.isascii() else text.isprintable()


def _strip_markup(text: str) -> str:
    irregular = not _printable(text)  # line breaks, tabs, control characters
    if irregular:
        text = without_junk(text)
    if "](" in text:
        text = _MD_LINK.sub(_FIRST_GROUP, text)
    if "\\" in text:
        text = _HREF.sub(_FIRST_GROUP, text)
        for _ in range(4):  # nested commands unwrap one level per pass
            text, count = _LATEX_ARG.subn(_FIRST_GROUP, text)
            if not count or "{" not in text:  # no brace left: another pass would find none
                break
        text = _LATEX_ESCAPE.sub(_FIRST_GROUP, text)
        text = _LATEX_SPACE.sub(" ", text)
        text = _LATEX_WORD.sub(lambda match: _SYMBOLS.get(match.group(1), ""), text)
    if "^" in text:
        text = _SUPERSCRIPT_DIGIT.sub(lambda match: match.group(1).translate(_SUPERSCRIPTS), text)
    if "``" in text:
        text = _TEX_QUOTES.sub(r'"\1"', text)
    if "--" in text:
        text = text.replace("---", "—").replace("--", "–")
    if "~" in text:
        text = _TILDE.sub(lambda match: _tie(match, text), text)
    if "_" in text:
        text = _UNDERSCORES.sub(lambda match: _emphasis(match, text), text)
    for mark in "$`{}*\\":
        if mark in text:
            text = text.replace(mark, "")
    if irregular or "  " in text:
        text = " ".join(text.split())
    return text.strip()


def _tie(match: re.Match[str], text: str) -> str:
    """LaTeX 'Fig.~1' is a space; '~10x' (about ten) keeps its tilde."""
    before = text[match.start() - 1 : match.start()]
    return " " if before and not before.isspace() else "~"


def _emphasis(match: re.Match[str], text: str) -> str:
    """Markdown '_word_' and '__word__' lose their underscores; 'ρ_t' keeps its subscript."""
    before = text[match.start() - 1 : match.start()]
    after = text[match.end() : match.end() + 1]
    return match.group() if before.isalnum() and after.isalnum() else ""


# Words set apart in the source: "**Split-Ensemble**", "\\textsc{Nemesis}". Each pattern starts
# with its literal, so the scan runs at C speed, and only when that literal is in the text.
_BOLD = re.compile(r"\*\*?([^*\s][^*]{0,40}?)\*")
_EMPHASIS_MACRO = re.compile(
    r"\\(?:textbf|textsc|texttt|textit|textsf|emph|mathtt|mathbf|mathsf)\s*\{([^{}]{1,40})\}"
)


def emphasized(abstract: str) -> list[str]:
    """The one-word phrases the abstract sets in bold, italics or small capitals, cleaned."""
    found: list[str] = []
    for pattern, mark in ((_BOLD, "*"), (_EMPHASIS_MACRO, "\\")):
        if mark in abstract:
            found.extend(match.group(1) for match in pattern.finditer(abstract, 0, MAX_SCAN))
    # Cleaning costs more than the scan: phrases of several words are never a name.
    words = [clean(phrase).strip(" .,;:") for phrase in found if " " not in phrase.strip()]
    return [word for word in words if word and " " not in word]
