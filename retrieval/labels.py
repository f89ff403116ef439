"""Readable labels (<= 90 characters) and code/project URLs for abstracts that have no title.

A label is the name a paper introduces, with its expansion or a short description
("DRIFT: Decoupled Rollouts and Importance-Weighted Fine-Tuning"), or else a compact topic phrase
from the sentence that states the contribution. This runs on every ingested abstract, so it must
stay in the tens of microseconds and never raise, whatever a list file holds: triggers are found
with `str.find`, regexes only run anchored at those spots, and every quantifier is bounded.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass

MAX_LABEL_CHARS = 90

# Names and topics sit in the first couple of thousand characters. The cut comes before NFKC,
# which can grow a string up to 18-fold, so it also bounds the work on pathological input.
_MAX_SCAN = 6000
_FALLBACK_LABEL = "Untitled abstract"

# --- Markup and junk -------------------------------------------------------------------------

_JUNK_CHARS = (
    r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff"
    r"\ud800-\udfff"
)
_JUNK = re.compile(f"[{_JUNK_CHARS}]")
# Any character that needs work: markup, line breaks, control characters.
_MARKUP_HINT = re.compile(rf"[\\\[^`~$*{{}}_\n\t\r\u2028\u2029{_JUNK_CHARS}]")
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
_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")

# --- URLs ------------------------------------------------------------------------------------

# Bare hosts are accepted only for the code-hosting sites people cite without a scheme.
_URL = re.compile(
    r"(?:https?://|(?<![\w.@/])(?:www\.|(?:github|gitlab|huggingface|bitbucket)\.(?:com|co|org)/))"
    r"[^\s<>\"'`{}\[\]|\\^]{1,500}",
    re.IGNORECASE,
)
# The regex only runs anchored where one of these starts: an unanchored scan of every
# abstract for a rare URL would cost more than the rest of the labelling.
_URL_STARTS = ("http", "www.", "github.", "gitlab.", "huggingface.", "bitbucket.")
_URL_TRAIL = ".,;:!?)]}*'\"’”>"

# --- Names -----------------------------------------------------------------------------------

# One word of a name carries a capital or a digit: "DRIFT", "Eyes-on-Me", "ctfIDu+", "o3".
_TOKEN = r"(?=[\w+\-.]{0,40}?[A-Z0-9])[^\W_](?:[\w+\-.]{0,40}[\w+])?"
_TOKEN_WORD = re.compile(_TOKEN)
_NAME = rf"{_TOKEN}(?: {_TOKEN}){{0,5}}"
_TYPES = (
    r"(?:framework|method(?:ology)?|approach|algorithm|model|architecture|benchmark|data ?set"
    r"|corpus|suite|library|tool(?:kit|box)?|system|technique|strategy|paradigm|pipeline"
    r"|optimi[sz]er|attack|defen[cs]e|metric|measure|loss|objective|estimator|procedure"
    r"|protocol|agent|environment|platform|network|module|mechanism|scheme|family|game"
    r"|language|package|simulator|solver|policy|layer|regularizer|kernel|score|criterion"
    r"|recipe|plug-?in|variant|formulation|test ?bed|evaluation|arena|leaderboard|generator"
    r"|planner|compiler|engine|encoder|decoder|transformer|embedding|sampler|adapter"
    r"|detector|classifier|retriever|watermark(?:ing)?|prompting|heuristic|extension"
    r"|collection|resource|challenge|task|interface|database|index|solution|process|operator"
    r"|block|unit|verifier|scheduler|tokenizer|controller|curriculum)s?"
)
# Where the authors speak ("we", "this paper") or name something, found with `str.find` on the
# lowercased text: a handful of C-speed scans instead of one slow alternation over every position.
_PAPER_WORDS = ("paper ", "work ", "study ", "article ", "note ")
_CALL_STEMS = ("called ", "name", "dubbed ", "termed ", "coined ", "referred to as ")
_CALL_WORDS = ("called ", "named ", "namely ", "dubbed ", "termed ", "coined ", "referred to as ")
_VERB = re.compile(
    r"(?P<adverbs>(?:(?:[a-z]{2,14}ly|also|further|then|thus|hence|first|here|now|therefore"
    r"|instead|accordingly|finally|additionally|next|to this end),? ){0,2})"
    r"(?:(?P<intro>propos|introduc|present|develop|design|devis|buil[dt]|construct|releas"
    r"|creat|contribut|offer|unveil|curat|formulat)[a-z]{0,3}"
    r"|(?:call|term|name|dub|coin)[a-z]{0,3}(?: (?:it|this|them|these|our|the|such)"
    rf"(?: (?:new |proposed |resulting |overall |novel )?{_TYPES})?)?"
    r"|refer(?:s|red)? to (?:it|this|them|these|our|the)(?: [\w\-]{1,30}){0,3}? as) "
)
_ALSO = re.compile(r"also|further|additionally|finally|next")
_FILLER = re.compile(
    r"(?:(?:the|a|an|our|this|two|three|new|novel|simple|first|yet|effective|general|unified"
    r"|principled|lightweight|efficient|so-called|here|thus|also|further|then|and)\s){0,5}"
)
_ACRONYM_DEF = re.compile(
    r"(?P<exp>(?:[^\s(),.;:]{1,40} ){0,9}?[^\s(),.;:]{1,40}) ?\( ?(?P<acr>[^()\s,;]{1,20}) ?\)"
)
_DIRECT_NAME = re.compile(
    rf"(?P<name>{_NAME})(?P<after> ?[,(:]| (?:which|that|is|for|to|as|in|with|on|by|—|–)\b"
    r"| ?\.(?: |$)|$)"
)
# Singular only: "we propose CD algorithms for ..." is a family of methods, not a name.
_NAME_THEN_TYPE = re.compile(
    rf"(?P<name>{_TOKEN}(?: {_TOKEN}){{0,2}}) (?:[a-z][\w\-]{{0,20}} )?{_TYPES}(?<!s)\b"
)
_TYPE_THEN_NAME = re.compile(
    rf"(?:[\w\-]{{1,30}},? ){{0,4}}?(?P<type>{_TYPES}),? (?P<name>{_NAME})"
    r"(?= ?[,(:]| ?\.(?: |$)| (?:which|that|for|to|as|in|with|on|by)\b|$)"
)
_OUR_NAME = re.compile(rf"(?:[\w\-]{{1,30}} ){{0,3}}?{_TYPES}, (?P<name>{_NAME}),")
_TAIL_WORDS = frozenset(("for", "as", "via", "with"))
# A plain capitalised phrase counts as a name only when an appositive follows ("Decrypto, a
# game-based benchmark"); "Relational Graph Recognition, where ..." defines a task, not a method.
_WEAK_FOLLOW = re.compile(r" ?(?:a|an|the|our|which|that|called|named|dubbed)\b")
_APPOSITIVE_TYPE = re.compile(rf"(?:a|an) (?:[\w\-]{{1,30}},? ){{0,5}}?{_TYPES}\b")
_MODIFIER_AFTER = re.compile(
    r"-| (?!(?:which|that|to|for|with|in|on|as|by|and|or|is|are|was|can|has|of|from|via"
    r"|using|based|through|at|we|where|whose|while)\b)[a-z]"
)
_PAREN_AFTER = re.compile(r" ?\((?P<paren>[^()]{1,120})\)")
_CONTINUATION = re.compile(r"(?: (?:[A-Z][\w\-]{0,30})){1,3}(?=[ ,.;:]|$)")
_DESCRIPTION_HEAD = re.compile(
    r"(?:, |: | - | — | – )(?P<appositive>(?=(?:a|an|the|our) ))|,? (?=(?:which|that) )"
)
_TAIL_HEAD = re.compile(r",? (?=(?:for|to|that|which|with|in|on|of|based on|using|via) )")
_PHRASE_BEFORE_CALL = re.compile(r"(?:a|an|the|our) [^.;:()]{1,80}")
_TITLE_RUN = re.compile(r"(?:a|an|the) (?P<words>(?:[A-Z][\w\-]{0,30} ){0,7}[A-Z][\w\-]{0,30})\b")
_TYPED_DESCRIPTION = re.compile(rf": (?:a|an|the|our) (?:[\w\-]{{1,30}},? ){{0,5}}?{_TYPES}\b")
_NOT_ARTIFACT = re.compile(
    r"\b(?:hypothes[ie]s|problem|phenomen(?:on|a)|effect|dilemma|paradox|tax|law|conjecture"
    r"|principle|theorem|lemma|assumption|property|condition|regime|bias|gap|fallacy|trap"
    r"|curse|collapse|illusion|puzzle)(?: (?:of|for|in) [\w\- ]{1,60})?$",
    re.IGNORECASE,
)
# "IO-aware algorithms", "LLM-based agents": a compound adjective, not a name.
_ADJECTIVAL = re.compile(
    r"-(?:aware|based|like|style|free|level|specific|driven|guided|agnostic|conditioned|centric"
    r"|oriented|wise|scale|type|efficient|friendly|invariant|equivariant|dependent|independent"
    r"|only|robust|powered|enhanced|generated|augmented|assisted|informed|induced|related)$",
    re.IGNORECASE,
)
# An appositive that describes someone else's artefact: "MMLU, a popular benchmark".
_KNOWN = re.compile(
    r"popular|widely|well-known|standard|existing|common|classic|prominent|state-of-the-art"
    r"|recent|representative|leading|famous|de facto|established|canonical|prevalent"
)
# Capitalised words that start sentences or clauses rather than names.
_LEADING_NOISE = frozenset(
    [
        "The", "A", "An", "Our", "We", "This", "These", "That", "In", "On", "To", "With", "Using",
        "Via", "For", "Of", "And", "By", "From", "Moreover", "Furthermore", "Additionally",
        "Finally", "Then", "Thus", "Hence", "Also", "Specifically", "Here", "Instead", "Notably",
        "First", "Second", "Third", "Further", "Next", "Building", "Based", "Unlike", "Like",
        "However", "Therefore", "Overall", "Empirically", "Theoretically", "Experimentally",
        "Extensive", "Experiments", "Results",
    ]
)  # fmt: skip
# Field-wide acronyms: defined in many abstracts, never the paper's own contribution.
_GENERIC = frozenset(
    [
        "AI", "ML", "NLP", "CV", "RL", "LLM", "LLMs", "VLM", "VLMs", "MLLM", "MLLMs", "LM", "LMs",
        "GNN", "GNNs", "CNN", "CNNs", "RNN", "RNNs", "MoE", "RAG", "SGD", "GAN", "GANs", "VAE",
        "VAEs", "ViT", "ViTs", "MLP", "MLPs", "SFT", "PPO", "DNN", "DNNs", "SOTA", "OOD", "KL",
        "ICL", "CoT", "QA", "API", "GPU", "GPUs", "TPU", "LoRA", "PEFT", "RLHF", "DPO", "NTK",
        "PDE", "PDEs", "ODE", "ODEs", "SDE", "SDEs", "MDP", "MDPs", "POMDP", "IID", "NN", "NNs",
        "GP", "GPs", "BO", "MCMC", "PAC", "PAC-Bayes", "SVM", "PCA", "LDA", "KNN", "TD", "DQN",
        "GPT", "BERT", "FL", "IL", "LP", "MIP", "ILP", "QP", "SDP", "ERM",
    ]
)  # fmt: skip

# --- Topic phrases ---------------------------------------------------------------------------

_ABBREVIATIONS = tuple(
    prefix + word
    for word in ("e.g", "i.e", "et al", "etc", "vs", "cf", "Fig", "Figs", "Eq", "Eqs", "Sec",
                 "resp", "approx", "w.r.t", "a.k.a", "No", "Dr", "Prof")
    for prefix in (" ", "(")
)  # fmt: skip
_LEAD_IN = re.compile(
    r"(?:(?:(?:in|within) (?:this|the present|our) (?:paper|work|study|article|note|submission)"
    r"|here|to (?:this end|that end|address (?:this|these|such)[^,]{0,40})|accordingly|therefore"
    r"|thus|hence|specifically|concretely|instead|in contrast|motivated by [^,]{0,60}"
    r"|inspired by [^,]{0,60}|towards? [^,]{0,60}"
    r"|recent (?:advances|progress|work|works|studies|research|results)[^,]{0,60}? "
    r"(?:suggest|show|demonstrate|indicate|reveal)s? that),? )+",
    re.IGNORECASE,
)
_CONTRIBUTION = re.compile(
    r"(?:we|this (?:paper|work|study|article|note)|our (?:paper|work|study)) (?:(?:first"
    r"|also|further|then|here|now|formally|novelly|systematically|theoretically|empirically"
    r"|rigorously|comprehensively|carefully|thoroughly) )?(?:propos|introduc|present|stud"
    r"|investigat|consider|develop|examin|explor|analy[sz]|address|tackl|design|revisit|show"
    r"|prove|demonstrat|characteri[sz]|establish|provid|deriv|describ|report|formulat|focus"
    r"|identif|offer|initiat|put forward|extend|give|leverag|ask|aim|seek|explain|uncover"
    r"|reveal)[a-z]{0,4}(?: (?:on|that|how(?: to)?|whether|to|at))? ",
    re.IGNORECASE,
)
# A clause that points back ("this capability", "in this setting") makes no sense on its own.
_ANAPHORA = re.compile(
    r"^(?:that|those|it|they|its|their|them|both|one)\b|\b(?:this|these|such|above)\b",
    re.IGNORECASE,
)
# "we aim to address X": the subject goes first, then the second verb.
_SECOND_VERB = re.compile(
    r"(?:address|answer|bridge|close|fill|understand|tackle|solve|study|investigate|explore"
    r"|provide|develop|build|design|improve|characteri[sz]e|identify|learn|mitigate|overcome)"
    r"[a-z]{0,3} ",
    re.IGNORECASE,
)
_LEADING_DETERMINERS = re.compile(
    r"(?:(?:a|an|the|our|its|their|some|several|two|three|new|novel|first|simple|general"
    r"|unified|yet|effective|and) )+",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r": |; | — | – | - |, (?:which|where|whereas|while|and|but|so|thus|with|[a-z]{3,20}ing)\b"
)
_CONNECTORS = frozenset(
    [
        "and", "of", "for", "with", "in", "on", "the", "to", "via", "a", "an", "by", "from",
    ]
)  # fmt: skip
_DANGLING = frozenset(
    [
        "a", "an", "the", "of", "and", "or", "for", "to", "in", "on", "with", "by", "via", "from",
        "that", "which", "as", "at", "its", "their", "our", "this", "these", "is", "are", "we",
        "while", "whereas", "but", "into", "over", "under", "between", "among", "than", "using",
    ]
)  # fmt: skip
_DANGLING_END = " ,;:([-–—/&+"


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A name the abstract may introduce; the highest score wins, then the earliest."""

    name: str
    expansion: str
    description: str  # with its joiner: ": a framework ...", ", which ...", " algorithm for ..."
    score: int
    start: int


def derive_label(abstract: str, title: str | None = None) -> str:
    """<= 90 chars, never empty. A given title (JSONL lists) wins, trimmed on a word boundary."""
    cleaned_title = _clean(title) if title else ""
    label = _fit(cleaned_title) if cleaned_title else _label_from_abstract(abstract)
    # Rare Unicode spaces survive NFKC; a label must read as one clean line.
    return " ".join(label.split()) or _FALLBACK_LABEL


def _label_from_abstract(abstract: str) -> str:
    text = _clean(abstract)
    urls = _url_matches(text)
    if urls:
        kept: list[str] = []
        start = 0
        for url in urls:
            kept.append(text[start : url.start()])
            start = url.end()
        kept.append(text[start:])
        text = " ".join(" ".join(kept).split())
    if not text:
        return ""
    candidate = _best_name(text)
    label = _compose(candidate, text) if candidate else _topic(text)
    return label or _fit(text)


def extract_urls(abstract: str) -> tuple[str, ...]:
    """Code and project URLs in the abstract, in order, deduplicated, minus trailing punctuation."""
    text = unicodedata.normalize("NFKC", _JUNK.sub("", abstract[: _MAX_SCAN * 2]))
    found: dict[str, str] = {}
    for match in _url_matches(text):
        url = _trim_url(match.group())
        if "." not in url.split("//", 1)[-1]:
            continue
        if not url.lower().startswith(("http://", "https://")):
            url = "https://" + url
        # The same link is often written twice ("[url](url)", with and without a final slash).
        found.setdefault(url.rstrip("/").lower(), url)
    return tuple(found.values())


def _url_matches(text: str) -> list[re.Match[str]]:
    if "/" not in text:
        return []
    lower = text.lower()
    if len(lower) != len(text):  # offsets must line up with the original
        lower = text
    starts = sorted({position for hint in _URL_STARTS for position in _occurrences(lower, hint)})
    matches: list[re.Match[str]] = []
    for position in starts:
        if matches and position < matches[-1].end():
            continue
        match = _URL.match(text, position)
        if match:
            matches.append(match)
    return matches


def _trim_url(url: str) -> str:
    while url and url[-1] in _URL_TRAIL:
        # Keep a parenthesis that closes one opened inside the URL (Wikipedia style).
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url


def _clean(text: str) -> str:
    """NFKC, no control characters, LaTeX and markdown markup reduced to its words."""
    text = unicodedata.normalize("NFKC", text[:_MAX_SCAN])
    # Most abstracts are plain text: one character-class scan decides whether to look closer.
    if _MARKUP_HINT.search(text) or "  " in text or "--" in text:
        return _strip_markup(text)
    return text.strip()


def _strip_markup(text: str) -> str:
    irregular = not text.isprintable()  # line breaks, tabs, control characters
    if irregular:
        text = _JUNK.sub("", text)
    if "](" in text:
        text = _MD_LINK.sub(r"\1", text)
    if "\\" in text:
        text = _HREF.sub(r"\1", text)
        for _ in range(4):  # nested commands unwrap one level per pass
            text, count = _LATEX_ARG.subn(r"\1", text)
            if not count:
                break
        text = _LATEX_ESCAPE.sub(r"\1", text)
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


# --- Named contributions ---------------------------------------------------------------------


def _best_name(text: str) -> _Candidate | None:
    """The name the authors introduce: every plausible candidate is scored, the best one wins."""
    lower = text.lower()
    if len(lower) != len(text):  # a few characters lowercase to two; offsets must line up
        lower = text
    candidates: list[_Candidate | None] = []
    ours: list[int] = []  # where the authors speak of their own work
    for position in _occurrences(lower, "we "):
        if not lower[position - 1 : position].isalnum():
            ours.append(position)
            candidates.append(_after_subject(text, position, position + 3))
    for position in _occurrences(lower, "this "):
        if (
            lower.startswith(_PAPER_WORDS, position + 5)
            and not lower[position - 1 : position].isalnum()
        ):
            ours.append(position)
            end = lower.find(" ", position + 5) + 1
            candidates.append(_after_subject(text, position, end))
    for position in _occurrences(lower, "our "):
        if not lower[position - 1 : position].isalnum():
            ours.append(position)
            our_name = _OUR_NAME.match(text, position + 4)
            if our_name:
                name = our_name.group("name")
                end = our_name.end()
                candidates.append(_scored(text, name, "", our_name.start("name"), end, base=4))
    if ours:
        candidates.extend(_named_inside(text, lower, ours))
    found = [candidate for candidate in candidates if candidate is not None]
    if not found:
        return None
    return max(found, key=lambda candidate: (candidate.score, -candidate.start))


def _named_inside(text: str, lower: str, ours: list[int]) -> list[_Candidate | None]:
    """'called X', 'X, a framework ...' inside the authors' own sentences."""
    candidates: list[_Candidate | None] = []
    for stem in _CALL_STEMS:
        for position in _occurrences(lower, stem):
            word = next((word for word in _CALL_WORDS if lower.startswith(word, position)), "")
            if (
                word
                and not lower[position - 1 : position].isalnum()
                and _is_ours(lower, ours, position)
            ):
                after = position + len(word)
                candidates.append(_name_at(text, after, base=5, verb_start=position, named=True))
    for position in _occurrences(lower, ", a"):
        if (
            lower.startswith((" ", "n "), position + 3)
            and _is_ours(lower, ours, position)
            and _APPOSITIVE_TYPE.match(text, position + 2)
        ):
            candidates.append(_appositive(text, position))
    return candidates


def _is_ours(lower: str, ours: list[int], position: int) -> bool:
    """Whether the sentence around `position` holds one of the authors' 'we', 'our' ..."""
    start, end = _sentence_around(lower, position)
    return any(start <= subject < end for subject in ours)


def _after_subject(text: str, subject: int, end: int) -> _Candidate | None:
    """The name after 'we propose', 'this paper introduces', 'we call this method' ..."""
    verb = _VERB.match(text, end)
    if verb is None:
        return None
    base = 4 if _ALSO.search(verb.group("adverbs")) else 5  # "we also propose" is secondary
    named = verb.group("intro") is None
    return _name_at(text, verb.end(), base=base, verb_start=subject, named=named)


def _occurrences(text: str, needle: str) -> list[int]:
    """Where `needle` starts; the cap bounds the work that "we we we ..." could cause."""
    positions: list[int] = []
    position = text.find(needle)
    while position >= 0 and len(positions) < 50:
        positions.append(position)
        position = text.find(needle, position + 1)
    return positions


def _sentence_around(lower: str, position: int) -> tuple[int, int]:
    start = lower.rfind(". ", max(position - 300, 0), position)
    start = start + 2 if start >= 0 else max(position - 300, 0)
    end = lower.find(". ", position, position + 300)
    return start, end if end >= 0 else min(position + 300, len(lower))


def _name_at(
    text: str, position: int, *, base: int, verb_start: int, named: bool = False
) -> _Candidate | None:
    """The name right after an introducing verb or a 'called'."""
    if position >= len(text):
        return None
    filler = _FILLER.match(text, position)
    phrase_start = position
    position = filler.end() if filler else position
    has_parenthesis = text.find("(", position, position + 420) >= 0
    definition = _ACRONYM_DEF.match(text, position) if has_parenthesis else None
    if definition:
        found = _from_definition(text, definition, base=base)
        if found:
            return found
    found = _direct_name(text, position, base=base, verb_start=verb_start, named=named)
    if found:
        return found
    after_type = _TYPE_THEN_NAME.match(text, position)
    if after_type and _is_strong(after_type.group("name")):
        # "an expansive benchmark suite SciBench for LLMs", "a graph neural network, Graph2Tac,"
        end = after_type.end("name")
        noun = text[phrase_start : after_type.end("type")].rstrip(",")
        described = ": " + noun + _tail(text, end, " ")
        name = after_type.group("name")
        return _scored(
            text,
            name,
            "",
            after_type.start("name"),
            end,
            base=base,
            typed=True,
            description=described,
        )
    typed = _NAME_THEN_TYPE.match(text, position)
    if typed and _is_strong(typed.group("name")):
        # "the ctfIDu+ algorithm for identifying ...": the label reads on from the name. Without
        # a tail ("the DIL method.") the topic says more than the type word.
        tail = _tail(text, typed.end(), " ")
        described = " " + text[typed.end("name") + 1 : typed.end()] + tail if tail else ""
        name = typed.group("name")
        return _scored(
            text,
            name,
            "",
            typed.start(),
            typed.end(),
            base=base - 1,
            typed=True,
            description=described,
        )
    return None


def _direct_name(
    text: str, position: int, *, base: int, verb_start: int, named: bool
) -> _Candidate | None:
    """'DRIFT (Decoupled ...)', 'PIPER: Primitive-Informed ...', 'Decrypto, a benchmark ...'."""
    direct = _DIRECT_NAME.match(text, position)
    if direct is None:
        return None
    name = direct.group("name")
    after = direct.group("after").strip()
    end = direct.end("name")
    expansion = ""
    if after == "(":
        paren = _PAREN_AFTER.match(text, end)
        if paren and _acronym_start(name, paren.group("paren")) == 0:
            expansion = paren.group("paren")
            end = paren.end()
    elif after in {":", ","}:
        # "ERP, Entropy-Reinforced Planning for Transformer Decoding, which ..." and
        # "LASER: LineAr CompreSsion in WirEless DistRibuted Optimization."
        stop = _segment_end(text, direct.end())
        if after == ":" and len(name) < 3:
            return None  # "Dr. Strategy" broken at its period
        segment = text[direct.end() : stop].strip()
        spelled = after == ":" or _acronym_start(name, segment) == 0
        if segment and spelled and segment.count(" ") < 12 and _all_capitalised(segment):
            expansion = segment
            end = stop
    weak_ok = named or after in {"(", ":"}
    weak_ok = weak_ok or (after == "," and _WEAK_FOLLOW.match(text, direct.end()) is not None)
    described = _called_description(text, verb_start, end) if named else ""
    if not described and after in _TAIL_WORDS:
        # "Mol-AE for molecular representation learning", "DiffDA as a denoising diffusion model"
        tail = text[direct.end("name") : _clause_end(text, direct.end())]
        described = "" if _ANAPHORA.search(tail) else tail
    return _scored(
        text,
        name,
        expansion,
        direct.start("name"),
        end,
        base=base,
        weak_ok=weak_ok,
        description=described,
    )


def _segment_end(text: str, start: int) -> int:
    ends = [text.find(stop, start, start + 150) for stop in (", ", ". ", "; ", " (")]
    found = [end for end in ends if end >= 0]
    return min(found) if found else min(len(text), start + 150)


def _called_description(text: str, call_start: int, name_end: int) -> str:
    """'a nonparametric statistical framework, called DMLRank, for comparing ...' -> ': a ...'."""
    for verb in reversed(_intro_verb_ends(text, max(call_start - 120, 0), call_start)):
        phrase = text[verb:call_start].strip(" ,")
        if _PHRASE_BEFORE_CALL.fullmatch(phrase):
            return ": " + phrase + _tail(text, name_end, " ")
    return ""


def _intro_verb_ends(text: str, start: int, end: int) -> list[int]:
    """Ends of introducing verbs ('propose ', 'introduces ') between start and end."""
    ends: list[int] = []
    for stem in ("propos", "introduc", "present", "develop", "design", "construct"):
        position = text.find(stem, start, end)
        while position >= 0:
            space = text.find(" ", position, end)
            if space >= 0 and not text[position - 1 : position].isalnum():
                ends.append(space + 1)
            position = text.find(stem, position + 1, end)
    return sorted(ends)


def _from_definition(text: str, match: re.Match[str], *, base: int) -> _Candidate | None:
    """'Long Input Fine-Tuning (LIFT)' right after the verb: the acronym names the contribution."""
    acronym = match.group("acr")
    words = match.group("exp")
    if not _is_acronym(acronym):
        return None
    start = _acronym_start(acronym, words)
    # The long form must begin right after the verb: "a framework using a Denoising Masked
    # AutoEncoder (DMAE)" names a part. A title-case phrase is accepted whole even when the
    # letters spell only its tail ("Switchable Sparse-Dense Learning (SSD)") or do not spell out
    # at all ("Side-by-Side (SxS)").
    if start != 0 and not (_all_capitalised(words) and words.count(" ") < 8):
        return None
    expansion = words
    end = match.end()
    continuation = _CONTINUATION.match(text, end)
    if continuation:
        # "Side-by-Side (SxS) Interleaved Reasoning": the name goes on after the acronym.
        expansion += continuation.group()
        end = continuation.end()
    elif _MODIFIER_AFTER.match(text, end):
        # "linear program (LP)-based policies", "imitation learning (IL) algorithm, PAIL":
        # the acronym qualifies the thing introduced rather than naming it.
        return None
    return _scored(text, acronym, expansion, match.start(), end, base=base)


def _appositive(text: str, comma: int) -> _Candidate | None:
    """'X, a framework for ...' or 'Long Form (X), an automated framework ...'."""
    head = text[max(comma - 200, 0) : comma]
    paren = ""
    if head.endswith(")"):
        opening = head.rfind("(")
        if opening < 0:
            return None
        paren = head[opening + 1 : -1]
        head = head[:opening].rstrip()
    if _KNOWN.search(text, comma, comma + 40):
        return None
    words = head.split(" ")[-12:]
    name_words: list[str] = []
    for word in reversed(words[-6:]):
        if not _TOKEN_WORD.fullmatch(word):
            break
        name_words.append(word)
    name = _strip_leading_noise(" ".join(reversed(name_words)))
    start = comma - len(head)
    if paren and _is_acronym(paren):
        # "the Agentic LInguistic Gossip Network (ALIGN), an automated framework"
        long_form = " ".join(words)
        first = _acronym_start(paren, long_form)
        if first < 0:
            return None
        return _scored(text, paren, long_form[first:], start, comma, base=4, typed=True)
    if not name:
        return None
    if paren:
        if _acronym_start(name, paren) != 0:
            return None
        return _scored(text, name, paren, start, comma, base=4, typed=True)
    if not _is_strong(name):
        return None
    return _scored(text, name, "", start, comma, base=3, typed=True)


def _scored(
    text: str,
    name: str,
    expansion: str,
    start: int,
    end: int,
    *,
    base: int,
    weak_ok: bool = True,
    typed: bool = False,
    description: str = "",
) -> _Candidate | None:
    name = _strip_leading_noise(name)
    if not expansion and " " in name:
        # "Binarized Spectral-Redistribution Network (BiSRNet)": the acronym is the name.
        paren = _PAREN_AFTER.match(text, end)
        acronym = paren.group("paren").strip() if paren else ""
        if paren and _is_acronym(acronym) and _acronym_start(acronym, name) >= 0:
            name, expansion, end = acronym, name, paren.end()
    if len(name) < 2 or len(name) > 60 or name in _GENERIC or _ADJECTIVAL.search(name):
        return None
    recurs = text.count(name) >= 2
    if not (weak_ok or recurs or _is_strong(name)):
        return None
    description = description or _description(text, end)
    if not expansion and description.startswith(": "):
        expansion = _expansion_in(name, description[2:])
    score = base
    if expansion and _title_case(expansion):
        score += 1
    if recurs:
        score += 1
    if typed or _TYPED_DESCRIPTION.match(description):
        score += 1
    if _NOT_ARTIFACT.search(expansion or name):
        score -= 4
    return _Candidate(name, expansion, description, score, start)


def _description(text: str, end: int) -> str:
    """What follows the name, with its joiner: ': a framework that ...' or ', which ...'."""
    if text.startswith(" (", end):  # "MeLoDy (M for music; ...), an LM-guided diffusion model"
        closing = text.find(")", end, end + 150)
        end = closing + 1 if closing > 0 else end
    head = _DESCRIPTION_HEAD.match(text, end)
    if head is None:
        return ""
    joiner = ": " if head.group("appositive") is not None else ", "
    return joiner + text[head.end() : _clause_end(text, head.end())]


def _tail(text: str, end: int, joiner: str) -> str:
    """'for comparing and ranking LLMs ...' after a name, or nothing."""
    head = _TAIL_HEAD.match(text, end)
    if head is None:
        return ""
    return joiner + text[head.end() : _clause_end(text, head.end())]


def _clause_end(text: str, start: int) -> int:
    """End of the sentence or clause from `start`, looking no further than a label needs."""
    limit = min(len(text), start + 200)
    ends = [text.find(stop, start, limit) for stop in (". ", "; ")]
    found = [end for end in ends if end >= 0]
    if found:
        return min(found)
    return limit - 1 if limit == len(text) and text.endswith(".") else limit


def _expansion_in(name: str, description: str) -> str:
    """'STAR, a Structure Aware Routing that ...' spells the name: use 'Structure Aware Routing'."""
    words = _TITLE_RUN.match(description)
    if not words or not _is_acronym(name):
        return ""
    long_form = words.group("words")
    return long_form if _acronym_start(name, long_form) == 0 else ""


def _compose(candidate: _Candidate, text: str) -> str:
    name = candidate.name
    expansion = candidate.expansion.strip(" ,;:.\"'“”")
    if expansion and expansion.casefold() != name.casefold():
        return _fit(f"{name}: {expansion}")
    if candidate.description:
        return _fit(name + candidate.description)
    # A bare name says little in a list of papers: add what the abstract is about.
    topic = _topic(text)
    if name.casefold() in topic.casefold():
        return topic
    return _fit(f"{name}: {topic}" if topic else name)


def _is_acronym(word: str) -> bool:
    letters = [char for char in word if char.isalnum()]
    if not 2 <= len(letters) <= 15 or not word[0].isalnum() or " " in word or word in _GENERIC:
        return False
    capitals = sum(char.isupper() for char in letters)
    return capitals >= 2 or (capitals == 1 and any(char.isdigit() for char in letters))


def _is_strong(name: str) -> bool:
    """A coined-looking name: DRIFT, TextResNet, ctfIDu+, Search-R2 (not 'Elastic Attention')."""
    for word in name.split(" "):
        capitals = sum(char.isupper() for char in word)
        if capitals >= 2 or (capitals and any(char.isdigit() for char in word)):
            return True
        if any(a.islower() and b.isupper() for a, b in itertools.pairwise(word)):
            return True
    return False


def _all_capitalised(words: str) -> bool:
    """'Zero-shot Cross-task Preference Alignment and Robust Reward Learning': a coined phrase."""
    parts = words.split(" ")
    return parts[0][:1].isupper() and all(
        part[:1].isupper() or part[:1].isdigit() or part in _CONNECTORS for part in parts
    )


def _title_case(words: str) -> bool:
    """Most words capitalised, as in a coined long form ('World Entropy Tethering')."""
    parts = [part for part in words.split(" ") if part]
    if not parts:
        return False
    capitalised = sum(part[0].isupper() or part[0].isdigit() for part in parts)
    return capitalised * 2 > len(parts) and parts[0][0].isupper()


def _acronym_start(acronym: str, words: str) -> int:
    """Start of the shortest tail of `words` that spells the acronym (Schwartz & Hearst), or -1."""
    letters = [char.lower() for char in acronym if char.isalnum()]
    if not letters or len(words) > 400:
        return -1
    lower = words.lower()
    index = len(lower) - 1
    for position in range(len(letters) - 1, -1, -1):
        letter = letters[position]
        while index >= 0 and (
            lower[index] != letter or (position == 0 and index > 0 and lower[index - 1].isalnum())
        ):
            index -= 1
        if index < 0:
            return -1
        index -= 1
    start = index + 1
    if len(words[start:].split(" ")) > min(len(letters) + 5, len(letters) * 2):
        return -1
    # Whole words only: a tail that starts inside "Fine-Tuning" starts at "Fine".
    return words.rfind(" ", 0, start) + 1


def _strip_leading_noise(name: str) -> str:
    words = name.split(" ")
    while words and words[0] in _LEADING_NOISE:
        words.pop(0)
    return " ".join(words)


# --- Topic phrases ---------------------------------------------------------------------------


def _sentences(text: str, limit: int = 4) -> list[str]:
    """The first sentences; a period ends one only before a capital, digit or opening mark."""
    sentences: list[str] = []
    start = 0
    stop = text.find(". ")
    while stop >= 0 and len(sentences) < limit:
        following = text[stop + 2 : stop + 3]
        if (following.isupper() or following.isdigit() or following in "\"“'([") and not (
            text.endswith(_ABBREVIATIONS, start, stop)
        ):
            sentences.append(text[start : stop + 1])
            start = stop + 2
        stop = text.find(". ", stop + 2)
    if len(sentences) < limit:
        sentences.append(text[start:])
    return sentences


def _topic(text: str) -> str:
    """A compact phrase from the contribution sentence, else from the first sentence."""
    sentences = _sentences(text)
    chosen = ""
    for sentence in sentences:
        lead = _LEAD_IN.match(sentence)
        rest = sentence[lead.end() :] if lead else sentence
        contribution = _CONTRIBUTION.match(rest)
        if contribution:
            chosen = rest[contribution.end() :]
            second = _SECOND_VERB.match(chosen)
            chosen = chosen[second.end() :] if second else chosen
            if len(chosen) < 16 or _ANAPHORA.search(chosen, 0, 60):
                chosen = ""
            break
    if not chosen:
        lead = _LEAD_IN.match(sentences[0])
        chosen = sentences[0][lead.end() :] if lead else sentences[0]
    determiners = _LEADING_DETERMINERS.match(chosen)
    if determiners and determiners.end() < len(chosen):
        chosen = chosen[determiners.end() :]
    chosen = chosen[:300].rstrip(" .!?")
    broken = _CLAUSE_BREAK.search(chosen, 25)
    if broken:
        chosen = chosen[: broken.start()]
        if chosen.count("(") > chosen.count(")"):  # the break fell inside a parenthesis
            chosen = chosen[: chosen.rfind("(")].rstrip()
    if not chosen:
        return ""
    return _fit(chosen[0].upper() + chosen[1:])


def _fit(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    """Trim to `limit` characters on a word boundary, marking the cut with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    for _ in range(4):
        cut = cut.rstrip(_DANGLING_END)
        head, _, last = cut.rpartition(" ")
        if head and last.lower() in _DANGLING:
            cut = head
        else:
            break
    cut = cut.rstrip(_DANGLING_END) or text[: limit - 1]
    return f"{cut}…"
