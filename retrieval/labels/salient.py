"""The coined name an abstract keeps using, when no introducing sentence names it outright.

"In this way, Pruner-Zero allows ...", "These provide the foundations of CF-OPT, a ...": the name
is the coined word (capitals inside, digits, DRIFT-like) that recurs, or that sits next to an
introducing word ("our", "proposed", "denoted", "framework"). Words the whole field uses
(ImageNet, GPT-4) and words merely used ("on CIFAR-10", "such as LLaMA") do not count.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from retrieval.labels.candidates import PAREN_AFTER, Candidate, scored
from retrieval.labels.words import GENERIC, KNOWN_NAMES, TYPES, acronym_start, is_coined_word

# A coined word: letters and digits, inner hyphens, a trailing "+" or superscript.
# From a capital or digit to the end of the word: the regex engine skips lowercase words.
# Two characters at least: a lone "A" or "I" is never a name.
_FROM_CAPITAL = re.compile(r"[A-Z0-9][\w\-+²³]{1,40}")
_SCANNED = 3000
# Where a match of `_FROM_CAPITAL` may start, found by `bytes.find` in a copy of the text with
# every capital and digit turned into "A" (other characters into themselves, non-ASCII into
# "?"): the regex engine looks for a character class several times slower than that, and a
# match then only needs to be tried at those places.
_STARTS = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", b"A" * 36)
# A word that introduces the next one: "propose", "our", "framework", "dubbed" ...
_INTRO_WORD = re.compile(
    r"[\w\-]{0,30}?(?:propos|introduc|present|develop|call|nam|dub|term|coin|denot|refer|our"
    r"|design|implement|buil[dt]|releas|resulting|extended|we|new|novel|model|method|framework"
    r"|approach|algorithm|architecture|technique|system|benchmark|dataset|pipeline|agent"
    r"|family|tool|solver|loss|strategy|network|attack|defen[cs]e)[a-z]{0,4}",
    re.IGNORECASE,
)
_LINK_WORDS = frozenset(
    ["as", "it", "this", "them", "the", "a", "an", "our", "method", "model", "framework",
     "approach"]
)  # fmt: skip
_SEPARATORS = " ,:-–—(\"'"
_INTRO_AFTER = re.compile(
    r"(?:,? (?:a|an|the first|which|that)\b| ?\((?![^)]{0,5}\))| ?:|,? is (?:a|an|the)\b"
    r"| (?:achieves|outperforms|consists|leverages|uses|employs|enables|combines|improves"
    r"|learns|can|significantly|consistently))"
)
# "EM", "KD", "CFG": three capitals abbreviate too many common terms to name a method.
SHORT_ACRONYM = re.compile(r"[A-Z]{2,3}s?")
_APPOSITIVE = re.compile(r", (?:a|an|the first)\b")
_TYPED_APPOSITIVE = re.compile(rf", (?:a|an|the first) (?:[\w\-]{{1,30}}+,? ){{0,5}}?{TYPES}\b")
_COMPARED_BEFORE = re.compile(r"(?:to|than|against|over|vs\.?|with) $")
_KNOWN_APPOSITIVE = re.compile(
    r", (?:a|an|the) (?:[\w\-]{1,30}+ ){0,2}?(?:popular|widely|well-known|standard|existing|common"
    r"|classic|prominent|state-of-the-art|recent|representative|leading|competing|strong|baseline"
    r"|prior|previous|established|canonical|prevalent)"
)
_TYPE_WORD = re.compile(rf" {TYPES}\b")
_USED_BEFORE = re.compile(
    r"(?:\bon|such as|e\.g\.,?|like|including|than|over|and|or|of|with|using|from|to|by|in|vs\.?"
    r"|via|between|as) $",
    re.IGNORECASE,
)
_LETTERS = re.compile(r"[^\W\d_].*[^\W\d_]")
_DIGIT = re.compile(r"\d")
_YEAR = re.compile(r"(?:19|20)\d\d")
_CAPITAL = re.compile(r"[A-Z]")
_TITLE_PARTS = re.compile(r"[A-Z][^\-]*(?:-[A-Z][^\-]*)+")
_SIZE = re.compile(r"[0-9.]{1,5}[A-Za-z]{1,2}|[A-Za-z]{1,2}[0-9]{1,2}|[IVX]{1,4}")
_ADJECTIVAL = re.compile(r"-(?:based|aware|like|free|level|specific|driven|generated|guided)$")


_CODE_HOSTS = ("github.", "gitlab.", "huggingface.", "bitbucket.")
# Capitalised words that are not coined names: people's names used as adjectives, languages.
PROPER_WORDS = frozenset(
    [
        "Gaussian", "Bayesian", "Markov", "Markovian", "Euclidean", "Lipschitz", "Hessian",
        "Wasserstein", "Riemannian", "Langevin", "Hamiltonian", "Lagrangian", "Newton",
        "Fourier", "Monte", "Carlo", "Boltzmann", "Bernoulli", "Poisson", "Laplace", "Laplacian",
        "Dirichlet", "Nash", "Pareto", "Shapley", "Transformer", "Transformers", "English",
        "Chinese", "Python", "Internet", "Kalman", "Gibbs", "Stein", "Hilbert", "Banach",
        "Sobolev", "Bregman", "Jacobian", "Turing", "Hebbian", "Kolmogorov", "Lyapunov",
        "Bellman", "Adam", "Wikipedia", "Google", "Meta", "Microsoft", "Amazon", "Atari",
        "Mamba", "Lasso", "Softmax", "Bradley", "Terry", "Weisfeiler", "Lehman", "Gromov",
        "Stiefel", "Grassmann", "Hopfield", "Ising", "Schrödinger", "Koopman", "Gumbel",
        "Bregman", "Hawkes", "Nesterov", "Frank", "Wolfe", "Polyak", "Thompson", "Stackelberg",
        "Bayes", "Jacobi", "Byzantine", "Neural", "Euler", "Gauss", "Hessians", "Kernel",
    ]
)  # fmt: skip
_INTRO_VERBS = (
    " propos", " introduc", " present", " develop", " design", " call", " dub", " term",
    " coin", " denot",
)  # fmt: skip
_PLAIN_INTRO = re.compile(
    r"(?:propos|introduc|present|develop|call|nam|dub|term|coin|denot|our|design|releas|use)"
    r"[a-z]{0,4}"
)
_LOWER_TAIL = re.compile(r"-[a-z]+$")
_GLUED = re.compile(r"(?:called|named|propose|introduce|present|dubbed|termed)[A-Z]")


def _name_shaped(word: str) -> bool:
    """'Caduceus', 'TabLog' (not 'forecasting', nor 'EM' of Expectation-Maximization)."""
    return word[:1].isupper() and word not in PROPER_WORDS and not SHORT_ACRONYM.fullmatch(word)


def _plain_name(text: str, start: int, word: str) -> bool:
    """'Caduceus', 'Vocos': a capitalised word mid-sentence, right after an introducing word."""
    if not (word[:1].isupper() and word[1:].islower() and len(word) >= 5):
        return False
    if word in PROPER_WORDS or start < 2 or text[start - 2] in ".!?:":
        return False
    words = text[max(start - 60, 0) : start].split()[-4:]
    for index, word in enumerate(words):
        # The introducing word, then only lowercase words up to the name.
        if _PLAIN_INTRO.fullmatch(word) and all(
            later.replace("-", "").isalpha() and later.islower() for later in words[index + 1 :]
        ):
            return True
    return False


def _defined(text: str, word: str) -> bool:
    """'Neuroformer is a multimodal ... model': a plain word the abstract defines, as the subject
    of its sentence (not the tail of a term: 'Uncertainty Sampling is a ...')."""
    for definition in (word + " is a ", word + " is an "):
        position = text.find(definition)
        if position == 0 or (position > 0 and text[position - 2 : position] == ". "):
            return True
    return False


def _glued(word: str) -> bool:
    """'calledNeuroBack', 'geneRative', 'DEtection': missing spaces and spelled-out initials."""
    if _GLUED.match(word):
        return True
    capitals = [index for index, char in enumerate(word) if char.isupper()]
    lower_rest = sum(char.islower() for char in word)
    if len(capitals) == 1 and capitals[0] > 0 and lower_rest >= 5 and word[0].islower():
        return True
    return len(capitals) == 2 and capitals == [0, 1] and lower_rest >= 5


def _in_intro_sentence(text: str, start: int) -> bool:
    """Whether an introducing verb comes earlier in the same sentence, at most 100 chars back."""
    window_start = max(start - 100, 0)
    period = text.rfind(". ", window_start, start)
    window = text[period + 1 if period >= 0 else window_start : start].lower()
    # Substring tests at C speed; a regex search would try every position.
    return any(verb in window for verb in _INTRO_VERBS)


_ACTS = re.compile(r" (?:also |further |then |thus |now )?(?!is |was |has |as |its )[a-z]{2,20}s\b")


def _acting_subject(text: str, start: int, word: str) -> bool:
    """'NEFTune adds noise ...': a sentence opens with the word and a verb it does."""
    return (start == 0 or text[start - 2 : start] == ". ") and _ACTS.match(
        text, start + len(word)
    ) is not None


def _clause_subject(text: str, start: int, word: str) -> bool:
    """'Surprisingly, MT-Ranker marks ...': a clause after an opening phrase does the same."""
    return text[start - 2 : start] == ", " and _ACTS.match(text, start + len(word)) is not None


def _modifies_noun(text: str, end: int) -> bool:
    """'QD-RL approaches have ...': the word after it is a plural type noun, not a verb."""
    following = text[end + 1 : end + 24].partition(" ")[0]
    stem = following.removesuffix("es") if following.endswith("ches") else following[:-1]
    return _TYPE_WORD.fullmatch(" " + stem) is not None


def _field_term(text: str, word: str, start: int) -> bool:
    """'physics-informed neural networks (PINNs)', 'FMs': an abbreviation of a common term."""
    if len(word) >= 3 and word.endswith("s") and word[:-1].isupper():
        return True
    head = text[max(start - 60, 0) : start].rstrip()
    if not head.endswith("("):
        return False
    words = head[:-1].split()[-2:]
    lower_long_form = (
        len(words) == 2
        and all(word.replace("-", "").isalpha() and word.islower() for word in words)
        # "our ... decomposition approach (LQ-LoRA)": a type noun names the authors' artefact
        and _TYPE_WORD.fullmatch(" " + words[1]) is None
    )
    return lower_long_form and not _in_intro_sentence(text, start)


def _acts_as_name(text: str, word: str, starts: list[int]) -> bool:
    """'the summarized retrieval (SuRe). SuRe helps LLMs ...': a mixed-case abbreviation the
    abstract keeps using, and that opens a sentence as its subject, is the paper's method, not a
    field's term (those are set in capitals: 'PIML', 'MARL')."""
    return (
        len(starts) >= 4
        and not word.isupper()
        and any(_acting_subject(text, start, word) for start in starts)
    )


@functools.lru_cache(maxsize=8192)
def _coined(word: str) -> bool:
    """'LASER', 'CF-OPT', 'Pruner-Zero', 'FlashST', 'eCeLLM', 'A2Q+' (not 'ImageNet', '7B')."""
    if word in GENERIC or word in KNOWN_NAMES or _SIZE.fullmatch(word) or _ADJECTIVAL.search(word):
        return False
    if word.rstrip("s") in GENERIC or (word.endswith("s") and word[:-1] in KNOWN_NAMES):
        return False
    if _LETTERS.search(word) is None:  # fewer than two letters
        return False
    if is_coined_word(word) or (_DIGIT.search(word) and _CAPITAL.search(word)):
        return True
    # "Pruner-Zero": every part capitalised, read as a name only if it recurs (checked later).
    return _TITLE_PARTS.fullmatch(word) is not None


def _introduced_before(text: str, start: int) -> bool:
    """'we propose X', 'our X', 'called as X', 'framework, X': an introducing word just before."""
    if start < 2 or text[start - 1] not in _SEPARATORS:
        return False
    words = text[max(start - 40, 0) : start].split()[-2:]
    if not words:
        return False
    last = words[-1].strip(_SEPARATORS)
    if len(words) == 2 and words[0] in ("we", "We") and last.isalpha() and last.islower():
        # "we train CLIPZyme to ...": the coined word the authors act on is theirs.
        return is_coined_word(text[start : start + 40].partition(" ")[0].rstrip(",.;:"))
    if last.lower() in _LINK_WORDS and len(words) == 2:
        last = words[0].strip(_SEPARATORS)
    return bool(last) and _INTRO_WORD.fullmatch(last) is not None


def _from_capitals(text: str) -> Iterator[re.Match[str]]:
    """`_FROM_CAPITAL.finditer(text, 0, _SCANNED)`, the regex tried only where it may start."""
    marks = text[:_SCANNED].encode("ascii", "replace").translate(_STARTS)
    at = marks.find(b"A")
    while at >= 0:
        match = _FROM_CAPITAL.match(text, at, _SCANNED)
        if match is None:
            at = marks.find(b"A", at + 1)
        else:
            yield match
            at = marks.find(b"A", match.end())


def _capitalised_words(text: str) -> dict[str, list[int]]:
    """Each word with a capital or digit, found from its first capital, with where it starts
    (at most 8 places), in the order of first use."""
    seen: dict[str, list[int]] = {}
    for match in _from_capitals(text):
        start = match.start()
        word = match.group()
        if start and text[start - 1].isalpha():
            # "eCeLLM", "fMRI": the word began in lowercase; a hyphen starts a word of its own
            # ("framework-FlashST").
            head = start - 1
            while head and text[head - 1].isalnum() and start - head < 30:
                head -= 1
            start = head
            word = text[start : match.end()]
        elif (
            start >= 2
            and text[start - 1] == "-"
            and text[start - 2].islower()
            and (start == 2 or not text[start - 3].isalnum())
            and not SHORT_ACRONYM.fullmatch(word)
        ):
            # "f-FERM": one lowercase letter and a hyphen belong to the name; "k-NN", "m-MAB",
            # "g-GRFs" stay field terms, judged (and rejected) without the letter.
            start -= 2
            word = text[start : match.end()]
        if word[-1] == "-":
            word = word.rstrip("-")
        if word[0].isalpha() and len(word) >= 2:
            starts = seen.get(word)
            if starts is None:
                seen[word] = [start]
            elif len(starts) < 8:
                starts.append(start)
    return seen


def _judge(text: str, word: str, starts: list[int], hinted: bool) -> tuple[int, int, str] | None:
    """(score, -first position, word) for a word that may be the name, else None.

    Cheap tests first: most words are sentence openers or occur once.
    """
    count = len(starts)
    first = starts[0]
    if count < 2 and not hinted:
        if word[1:].islower():  # "The", "Moreover": a capitalised sentence opener
            return None
        # "we propose Maestro, a framework": introduced on both sides, once is enough. One
        # mention otherwise is as often a part ("Denoising Masked AutoEncoder (DMAE)") or one of
        # two variants ("our first algorithm BLCE-G") as the name.
        # "foundations of CF-OPT, a first-order optimization algorithm": a typed appositive
        # alone is enough; "the proposed UGrid solver", "approach (LQ-LoRA)" need both sides.
        end = first + len(word)
        if not _coined(word):
            return None
        if _COMPARED_BEFORE.search(text, max(first - 14, 0), first) or _KNOWN_APPOSITIVE.match(
            text, end
        ):
            return None  # "compared to CDVAE, a competing diffusion model"
        if (
            not _TYPED_APPOSITIVE.match(text, end)
            and not (
                (
                    _APPOSITIVE.match(text, end)
                    or _TYPE_WORD.match(text, end)
                    or text[end : end + 1] == ")"
                )
                and _introduced_before(text, first)
            )
            and not (_acting_subject(text, first, word) and not _modifies_noun(text, end))
        ):
            return None
    plain = False
    if hinted:
        if not (_coined(word) or _name_shaped(word)):
            return None
    elif not _coined(word):
        if count < 2 or word.lower() in text:
            return None
        if not (_plain_name(text, first, word) or (count >= 3 and _defined(text, word))):
            return None
        plain = True
    if not hinted and (
        SHORT_ACRONYM.fullmatch(word)
        or _glued(word)
        or (_field_term(text, word, first) and not _acts_as_name(text, word, starts))
    ):
        return None  # rejected whatever the score: tested before the costly context scan
    intro = any(
        _INTRO_AFTER.match(text, start + len(word))
        or _introduced_before(text, start)
        or _in_intro_sentence(text, start)
        or _acting_subject(text, start, word)
        or (count >= 2 and _clause_subject(text, start, word))
        for start in starts[:4]
    )
    if (plain and not intro) or (
        not is_coined_word(word) and count < 3 and not (intro and count == 2) and not hinted
    ):
        return None
    used_first = _USED_BEFORE.search(text, max(first - 12, 0), first) is not None
    score = min(count, 4) + (3 if intro else 0) - (2 if used_first and not intro else 0)
    score += 4 if hinted else 0
    if score < 4:
        return None
    return (score, -first, word)


def repository_names(urls: list[str]) -> dict[str, str]:
    """'Pruner-Zero' from 'https://github.com/pprp/Pruner-Zero': code links name the method.

    Keyed by the lowercased name, so a word of the abstract can be looked up.
    """
    names: dict[str, str] = {}
    for url in urls:
        parts = [part for part in url.rstrip(".,;:!?)]}'\"").split("/") if part]
        host = next((i for i, part in enumerate(parts[:3]) if part.startswith(_CODE_HOSTS)), -1)
        if host >= 0 and len(parts) > host + 2:
            name = parts[host + 2].removesuffix(".git")
            names[name.casefold()] = name
            if "_" in name:  # "DNABERT_2": repositories write "_" for the name's "-"
                names[name.casefold().replace("_", "-")] = name.replace("_", "-")
        page = next((i for i, part in enumerate(parts[:3]) if part.endswith(".github.io")), -1)
        if page >= 0 and len(parts) > page + 1:
            # "https://lab.github.io/IceFormer/": the project page's last folder.
            name = parts[-1]
            names[name.casefold()] = name
    return names


def emphasis_hints(words: list[str]) -> dict[str, str]:
    """'**Split-Ensemble**', '\\textsc{INSIDE}': coined words set apart, keyed like
    `repository_names`; not field names ('ICLR'), nor compounds ending in a lowercase part
    ('SGD-optimized')."""
    return {
        word.casefold(): word
        for word in words
        if 3 <= len(word) <= 30 and _coined(word) and not _LOWER_TAIL.search(word)
    }


def _link_name(name: str, text: str) -> str:
    """The name a code link gives, as the abstract writes it: 'Spider' for
    github.com/lab/Spider-UniCDSeg when the abstract keeps saying 'Spider' (a repository adds
    what the name is for), 'Neural Atoms' for .../NeuralAtom."""
    head, dash, _ = name.partition("-")
    if dash and len(head) >= 3 and head[:1].isupper():
        uses = re.findall(rf"(?<![\w-]){re.escape(head)}(?![\w-])", text)
        if len(uses) >= 2:
            return head
    return _spaced(name, text)


_CAMEL_PART = re.compile(r"[A-Z][a-z]{1,20}")


def _spaced(name: str, text: str) -> str:
    """'Neural Atoms' for github.com/lab/NeuralAtom when the abstract writes the link's words
    apart (as 'GeneOH Diffusion' for 'GeneOH-Diffusion'), with its plural if it uses one."""
    parts = _CAMEL_PART.findall(name)
    if len(parts) < 2 or "".join(parts) != name:
        return name
    spaced = " ".join(parts)
    position = text.find(spaced)
    if position < 0:
        return name
    end = position + len(spaced)
    if text[end : end + 1] == "s" and not text[end + 1 : end + 2].isalnum():
        return spaced + "s"
    return spaced


def salient_name(text: str, hints: dict[str, str] | None = None) -> Candidate | None:
    """The coined word the abstract introduces or keeps using, as a scored `Candidate`.

    `hints` are lowercased repository names from the abstract's code links.
    """
    hints = hints or {}
    seen = _capitalised_words(text)
    best: tuple[int, int, str] | None = None
    judged: list[tuple[int, int, str]] = []
    for word, starts in seen.items():
        if len(starts) < 2 and word[1:].islower() and word.casefold() not in hints:
            continue  # "The", "Moreover": a capitalised sentence opener, the common case
        key = _judge(text, word, starts, word.casefold() in hints)
        if key is not None:
            judged.append(key)
            if best is None or key[:2] > best[:2]:
                best = key
    if best is None:
        # "github.com/lab/GlucoBench" and the abstract never spells it: the link names it.
        # Not a repository's sentence ("MeaningfulDiversityInIR") nor its venue ("ICLR-2024-X").
        coined = [
            name
            for name in hints.values()
            if len(name) <= 20 and not _YEAR.search(name) and _coined(name)
        ]
        return Candidate(_link_name(coined[0], text), "", "", 1, 0) if coined else None
    word = best[2]
    for plus in (word + "+", word + "++"):
        # "we ... introduce A2Q+": the '+' version improves on the word it extends.
        extended = seen.get(plus)
        if extended and _judge(text, plus, extended, plus.casefold() in hints):
            best = (best[0], -extended[0], plus)
    word = best[2]
    extensions = [
        key for key in judged if key[2] != word and word in key[2] and key[0] >= best[0] - 1
    ]
    if extensions:
        # "the LoRa branch (AutoLoRa)": a name built on the best word is what the paper adds
        # to it (as "R-EDL" over "EDL" in `names`), within one point of it.
        best = max(extensions)
        word = best[2]
    start = -best[1]
    end = start + len(word)
    expansion = ""
    paren = PAREN_AFTER.match(text, end)
    if paren and acronym_start(word, paren.group("paren")) == 0:
        expansion = paren.group("paren")
        end = paren.end()
    return scored(text, word, expansion, start, end, base=2)
