"""The coined name an abstract keeps using, when no introducing sentence names it outright.

"In this way, Pruner-Zero allows ...", "These provide the foundations of CF-OPT, a ...": the name
is the coined word (capitals inside, digits, DRIFT-like) that recurs, or that sits next to an
introducing word ("our", "proposed", "denoted", "framework"). Words the whole field uses
(ImageNet, GPT-4) and words merely used ("on CIFAR-10", "such as LLaMA") do not count.
"""

from __future__ import annotations

import re

from retrieval.labels.candidates import PAREN_AFTER, Candidate, scored
from retrieval.labels.words import GENERIC, acronym_start, is_coined_word

# A coined word: letters and digits, inner hyphens, a trailing "+" or superscript.
_WORD = re.compile(r"(?<![\w\-])[A-Za-z][\w\-]{0,30}[\w+²³]?(?![\w\-])")
_INTRO_BEFORE = re.compile(
    r"(?:propos|introduc|present|develop|call|nam|dub|term|coin|denot|refer|our|design"
    r"|implement|buil[dt]|releas|resulting|extended|we|new|novel|model|method|framework"
    r"|approach|algorithm|architecture|technique|system|benchmark|dataset|pipeline|agent"
    r"|family|tool|solver|loss|strategy|network|attack|defen[cs]e)[a-z]{0,4}"
    r"(?: (?:as|it|this|them|the|a|an|our|method|model|framework|approach))?[ ,:\-–—(\"']{1,3}$",
    re.IGNORECASE,
)
_INTRO_AFTER = re.compile(
    r"(?:,? (?:a|an|the first|which|that)\b| ?\((?![^)]{0,5}\))| ?:|,? is (?:a|an|the)\b"
    r"| (?:achieves|outperforms|consists|leverages|uses|employs|enables|combines|improves"
    r"|learns|can|significantly|consistently))"
)
# "EM", "KD", "CFG": three capitals abbreviate too many common terms to name a method.
_SHORT_ACRONYM = re.compile(r"[A-Z]{2,3}s?")
_APPOSITIVE = re.compile(r", (?:a|an|the first)\b")
_USED_BEFORE = re.compile(
    r"(?:\bon|such as|e\.g\.,?|like|including|than|over|and|or|of|with|using|from|to|by|in|vs\.?"
    r"|via|between|as) $",
    re.IGNORECASE,
)
# Names the whole field uses: benchmarks, models, tools and units that many abstracts mention.
_KNOWN = frozenset(
    [
        "ImageNet", "GPT-4", "GPT-4V", "GPT-3", "GPT-3.5", "GPT-2", "ChatGPT", "CLIP", "LLaMA",
        "LLaMA-2", "Llama-2", "Llama2", "LLaMA2", "CIFAR-10", "CIFAR-100", "CIFAR10", "CIFAR100",
        "MNIST", "COCO", "MS-COCO", "CelebA", "NeRF", "NeRFs", "ReLU", "GitHub", "OpenAI",
        "DeepMind", "NVIDIA", "PyTorch", "JAX", "D4RL", "MuJoCo", "FLOPs", "ResNet", "ResNets",
        "U-Net", "UNet", "RoBERTa", "T5", "GLUE", "MMLU", "GSM8K", "HumanEval", "MBPP", "QM9",
        "SAM", "FedAvg", "AdamW", "Adam", "DDPM", "DDIM", "FID", "AUROC", "AUC", "mAP", "mIoU",
        "PSNR", "LPIPS", "NP-hard", "SoTA", "StarCraft", "Meta-World", "MetaWorld", "arXiv",
        "NeurIPS", "ICML", "ICLR", "HTML", "A100", "H100", "BLIP-2", "FlashAttention",
        "AlpacaEval", "ImageNet-1K", "ImageNet-1k", "CelebA-HQ", "Wasserstein-2", "SARS-CoV-2",
        "DP-SGD", "VQ-VAE", "Mistral", "Vicuna", "Alpaca", "ViT-B", "ViT-L", "Transformer",
        "Transformers", "Atari", "Procgen", "Minecraft", "WikiText", "ShapeNet", "ScanNet",
        "KITTI", "nuScenes", "Cityscapes", "ADE20K", "LAION", "LoRA", "QLoRA", "DeiT", "Swin",
        "OPT", "PaLM", "Gemini", "Claude", "GPT", "BERT", "XGBoost", "TabPFN", "AlphaFold",
        "AlphaFold2", "ESM", "ESM-2", "ESMFold", "SMILES", "CUDA", "CPU", "CPUs", "GPU", "GPUs",
    ]
)  # fmt: skip
_SIZE = re.compile(r"[0-9.]{1,5}[A-Za-z]{1,2}|[A-Za-z]{1,2}[0-9]{1,2}|[IVX]{1,4}")
_ADJECTIVAL = re.compile(r"-(?:based|aware|like|free|level|specific|driven|generated|guided)$")


_CODE_HOSTS = ("github.", "gitlab.", "huggingface.", "bitbucket.")
# Capitalised words that are not coined names: people's names used as adjectives, languages.
_PROPER_WORDS = frozenset(
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
_INTRO_WORDS = re.compile(
    r"(?:propos|introduc|present|develop|call|nam|dub|term|coin|denot|our|design|releas|use)"
    r"[a-z]{0,4} (?:[a-z\-]{1,30} ){0,3}$"
)
_INTRO_VERB = re.compile(
    r"\b(?:propos|introduc|present|develop|design|call|dub|term|coin|denot)[a-z]{0,4}\b"
)
_GLUED = re.compile(r"(?:called|named|propose|introduce|present|dubbed|termed)[A-Z]")
_LOWER_LONG_FORM = re.compile(r"[a-z][a-z\-]{1,30} [a-z][a-z\-]{1,30} ?\($")


def _name_shaped(word: str) -> bool:
    """'Caduceus', 'TabLog' (not 'forecasting', nor 'EM' of Expectation-Maximization)."""
    return word[:1].isupper() and word not in _PROPER_WORDS and not _SHORT_ACRONYM.fullmatch(word)


def _plain_name(text: str, start: int, word: str) -> bool:
    """'Caduceus', 'Vocos': a capitalised word mid-sentence, right after an introducing word."""
    if not (word[:1].isupper() and word[1:].islower() and len(word) >= 5):
        return False
    if word in _PROPER_WORDS or start < 2 or text[start - 2] in ".!?:":
        return False
    return _INTRO_WORDS.search(text, max(start - 60, 0), start) is not None


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
    return _INTRO_VERB.search(text, period + 1 if period >= 0 else window_start, start) is not None


def _field_term(text: str, word: str, start: int) -> bool:
    """'physics-informed neural networks (PINNs)', 'FMs': an abbreviation of a common term."""
    if len(word) >= 3 and word.endswith("s") and word[:-1].isupper():
        return True
    return _LOWER_LONG_FORM.search(
        text, max(start - 60, 0), start
    ) is not None and not _in_intro_sentence(text, start)


def _coined(word: str) -> bool:
    """'LASER', 'CF-OPT', 'Pruner-Zero', 'FlashST', 'eCeLLM', 'A2Q+' (not 'ImageNet', '7B')."""
    if word in GENERIC or word in _KNOWN or _SIZE.fullmatch(word) or _ADJECTIVAL.search(word):
        return False
    if word.rstrip("s") in GENERIC or (word.endswith("s") and word[:-1] in _KNOWN):
        return False
    letters = sum(char.isalpha() for char in word)
    if letters < 2:
        return False
    parts = word.split("-")
    capitals = sum(char.isupper() for char in word)
    if (any(char.isdigit() for char in word) and capitals) or is_coined_word(word):
        return True
    # "Pruner-Zero": every part capitalised, read as a name only if it recurs (checked later).
    return len(parts) >= 2 and all(part[:1].isupper() for part in parts if part) and capitals >= 2


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
    return names


def salient_name(text: str, hints: dict[str, str] | None = None) -> Candidate | None:
    """The coined word the abstract introduces or keeps using, as a scored `Candidate`.

    `hints` are lowercased repository names from the abstract's code links.
    """
    hints = hints or {}
    seen: dict[str, list[int]] = {}
    plain: set[str] = set()
    for match in _WORD.finditer(text, 0, 3000):
        word = match.group()
        if word in seen:
            if len(seen[word]) < 8:
                seen[word].append(match.start())
        elif _coined(word) or (word.casefold() in hints and _name_shaped(word)):
            seen[word] = [match.start()]
        elif _plain_name(text, match.start(), word):
            seen[word] = [match.start()]
            plain.add(word)
    best: tuple[int, int, str] | None = None
    for word, starts in seen.items():
        count = len(starts)
        hinted = word.casefold() in hints
        if word in plain and not hinted and (count < 2 or word.lower() in text):
            continue
        intro = False
        # "we propose Maestro, a framework": introduced on both sides, once is enough.
        framed = _INTRO_BEFORE.search(text, max(starts[0] - 40, 0), starts[0]) is not None and bool(
            _APPOSITIVE.match(text, starts[0] + len(word))
        )
        used_first = _USED_BEFORE.search(text, max(starts[0] - 12, 0), starts[0]) is not None
        for start in starts[:4]:
            end = start + len(word)
            if (
                _INTRO_BEFORE.search(text, max(start - 40, 0), start)
                or _INTRO_AFTER.match(text, end)
                or _in_intro_sentence(text, start)
            ):
                intro = True
                break
        hyphen_only = not is_coined_word(word)
        if hyphen_only and count < 3 and not (intro and count == 2) and not hinted:
            continue
        score = min(count, 4) + (3 if intro else 0) - (2 if used_first and not intro else 0)
        score += 4 if hinted else 0
        # Once-only words need the code link: one mention is as often a part ("Denoising Masked
        # AutoEncoder (DMAE)") or one of two variants ("our first algorithm BLCE-G") as the name.
        if score < 4 or (count < 2 and not (hinted or framed)) or (word in plain and not intro):
            continue
        if not hinted and (
            _glued(word) or _field_term(text, word, starts[0]) or _SHORT_ACRONYM.fullmatch(word)
        ):
            continue
        key = (score, -starts[0], word)
        if best is None or key[:2] > best[:2]:
            best = key
    if best is None:
        # "github.com/lab/GlucoBench" and the abstract never spells it: the link names it.
        coined = [name for name in hints.values() if _coined(name)]
        return Candidate(coined[0], "", "", 1, 0) if coined else None
    word = best[2]
    start = -best[1]
    end = start + len(word)
    expansion = ""
    paren = PAREN_AFTER.match(text, end)
    if paren and acronym_start(word, paren.group("paren")) == 0:
        expansion = paren.group("paren")
        end = paren.end()
    return scored(text, word, expansion, start, end, base=2)
