"""Vocabulary and word-shape tests the label heuristics share.

Which nouns name an artefact ("framework", "benchmark"), which acronyms are field-wide, and
whether a word looks coined (DRIFT, TextResNet) or spells an acronym's long form.
"""

from __future__ import annotations

import itertools
import re

# Nouns for what a paper introduces, in the order they are tried.
_TYPE_NOUNS = (
    "framework", "method(?:ology)?", "approach", "algorithm", "model", "architecture",
    "benchmark", "data ?set", "corpus", "suite", "library", "tool(?:kit|box)?", "system",
    "technique", "strategy", "paradigm", "pipeline", "optimi[sz]er", "attack", "defen[cs]e",
    "metric", "measure", "loss", "objective", "estimator", "procedure", "protocol", "agent",
    "environment", "platform", "network", "module", "mechanism", "scheme", "family", "game",
    "language", "package", "simulator", "solver", "policy", "layer", "regularizer", "kernel",
    "score", "criterion", "recipe", "plug-?in", "variant", "formulation", "test ?bed",
    "evaluation", "arena", "leaderboard", "generator", "planner", "compiler", "engine",
    "encoder", "decoder", "transformer", "embedding", "sampler", "adapter", "detector",
    "classifier", "retriever", "watermark(?:ing)?", "prompting", "heuristic", "extension",
    "collection", "resource", "challenge", "task", "interface", "database", "index",
    "solution", "process", "operator", "block", "unit", "verifier", "scheduler", "tokenizer",
    "controller", "curriculum",
)  # fmt: skip


def _by_first_letter(alternatives: tuple[str, ...]) -> str:
    """'(?:f(?:ramework|amily)|m(?:ethod|odel)...)': the regex engine tries each alternative in
    turn, so grouping by first letter lets it skip the ~90 nouns in ~20 steps. Order within a
    letter is kept, and nouns with different first letters never match at the same place, so
    the matches are those of the flat alternation."""
    groups: dict[str, list[str]] = {}
    for alternative in alternatives:
        groups.setdefault(alternative[0], []).append(alternative[1:])
    return "(?:" + "|".join(f"{head}(?:{'|'.join(tails)})" for head, tails in groups.items()) + ")"


# A pattern string, so other patterns can embed it.
TYPES = _by_first_letter(_TYPE_NOUNS) + "s?"
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
GENERIC = frozenset(
    [
        "AI", "ML", "NLP", "CV", "RL", "LLM", "LLMs", "VLM", "VLMs", "MLLM", "MLLMs", "LM", "LMs",
        "GNN", "GNNs", "CNN", "CNNs", "RNN", "RNNs", "MoE", "RAG", "SGD", "GAN", "GANs", "VAE",
        "VAEs", "ViT", "ViTs", "MLP", "MLPs", "SFT", "PPO", "DNN", "DNNs", "SOTA", "OOD", "KL",
        "ICL", "CoT", "QA", "API", "GPU", "GPUs", "TPU", "LoRA", "PEFT", "RLHF", "DPO", "NTK",
        "PDE", "PDEs", "ODE", "ODEs", "SDE", "SDEs", "MDP", "MDPs", "POMDP", "IID", "NN", "NNs",
        "GP", "GPs", "BO", "MCMC", "PAC", "PAC-Bayes", "SVM", "PCA", "LDA", "KNN", "TD", "DQN",
        "GPT", "BERT", "FL", "IL", "LP", "MIP", "ILP", "QP", "SDP", "ERM", "ELBO", "T2I", "NeSy",
    ]
)  # fmt: skip
# Names the whole field uses: benchmarks, models, tools and units that many abstracts mention.
KNOWN_NAMES = frozenset(
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
        "fMRI", "EEG", "MRI", "DNA", "RNA", "scRNA-seq", "CoRL", "CVPR", "ICCV", "ECCV", "EMNLP",
        "AAAI", "PubMed", "CiteSeer", "MLP-Mixer", "Sim2Real",
    ]
)  # fmt: skip
# A clause that points back ("this capability", "in this setting") makes no sense on its own.
ANAPHORA = re.compile(
    r"^(?:that|those|it|they|its|their|them|both|one)\b|\b(?:this|these|such|above)\b",
    re.IGNORECASE,
)
_COINED_PART = re.compile(r"[a-z][A-Z]|[A-Z][^\-\s]*[A-Z0-9]|[0-9][^\-\s]*[A-Z]")
_CONNECTORS = frozenset(
    [
        "and", "of", "for", "with", "in", "on", "the", "to", "via", "a", "an", "by", "from",
    ]
)  # fmt: skip


# Word forms that make a phrase a clause (the labeler cuts before them; `eval labels` counts
# labels that end as a clause with them): finite auxiliaries and modals, object pronouns,
# relative pronouns, and the third-person forms of the verbs abstracts open with.
AUXILIARIES = frozenset(
    [
        "is", "are", "was", "were", "am", "has", "have", "had", "does", "did", "can", "could",
        "may", "might", "will", "would", "shall", "should", "must",
    ]
)  # fmt: skip
OBJECTS = frozenset(["us", "them", "him", "her", "you", "me"])
RELATIVES = frozenset(["that", "which", "who", "whose", "whereby"])
SUBORDINATORS = frozenset(["if", "whether", "where", "when", "why", "how", "because", "while"])
QUESTION_WORDS = frozenset(
    ["what", "how", "why", "when", "where", "which", "who", "whether", "can", "does", "do", "is",
     "are"]
)  # fmt: skip
_VERB_STEMS = (
    # Not those whose "-s" form is as often a plural noun: "studies", "shows", "offers".
    "aim", "learn", "enable", "allow", "require", "remain", "rely", "suffer", "serve", "lead",
    "tend", "seek", "fail", "lack", "struggle", "provide", "achieve", "outperform", "improve",
    "yield", "exhibit", "depend", "involve", "consist", "become", "perform", "emerge", "make",
    "take", "contain", "employ", "exploit", "leverage", "utilize", "introduce", "propose",
    "capture", "predict", "generate", "produce", "reduce", "demonstrate", "prove", "enjoy",
    "attain", "explore",
)  # fmt: skip
THIRD_PERSON = frozenset(
    stem[:-1] + "ies"
    if stem.endswith("y") and stem[-2] not in "aeiou"
    else stem + ("es" if stem.endswith(("s", "sh", "ch", "x")) else "s")
    for stem in _VERB_STEMS
)


def is_verb_form(word: str) -> bool:
    """A finite verb by form (lower case): an auxiliary or modal, a listed third-person form,
    or a third-person '-izes', '-ifies' ('generalizes', 'identifies'; no noun ends so)."""
    return (
        word in AUXILIARIES
        or word in THIRD_PERSON
        or (len(word) > 6 and word.endswith(("izes", "ifies")))
    )


def is_acronym(word: str) -> bool:
    """One word with two capitals, or a capital and a digit: 'LIFT', 'BiSRNet', 'R2'; not 'LLM'."""
    letters = [char for char in word if char.isalnum()]
    if not 2 <= len(letters) <= 15 or not word[0].isalnum() or " " in word or word in GENERIC:
        return False
    capitals = sum(char.isupper() for char in letters)
    return capitals >= 2 or (capitals == 1 and any(char.isdigit() for char in letters))


def is_strong(name: str) -> bool:
    """A coined-looking name: DRIFT, TextResNet, ctfIDu+, Search-R2 (not 'Elastic Attention')."""
    for word in name.split(" "):
        capitals = sum(char.isupper() for char in word)
        if capitals >= 2 or (capitals and any(char.isdigit() for char in word)):
            return True
        if any(a.islower() and b.isupper() for a, b in itertools.pairwise(word)):
            return True
    return False


def is_coined_word(word: str) -> bool:
    """One word coined inside itself: 'Cell2Sentence', 'eCeLLM', 'CF-OPT' (not 'Side-by-Side')."""
    # Within one hyphen-separated part: two capitals, a capital and a digit, or a lowercase
    # letter followed by a capital.
    return _COINED_PART.search(word) is not None


def all_capitalised(words: str) -> bool:
    """'Zero-shot Cross-task Preference Alignment and Robust Reward Learning': a coined phrase."""
    parts = words.split(" ")
    return parts[0][:1].isupper() and all(
        part[:1].isupper() or part[:1].isdigit() or part in _CONNECTORS for part in parts
    )


def title_case(words: str) -> bool:
    """Most words capitalised, as in a coined long form ('World Entropy Tethering')."""
    parts = [part for part in words.split(" ") if part]
    if not parts:
        return False
    capitalised = sum(part[0].isupper() or part[0].isdigit() for part in parts)
    return capitalised * 2 > len(parts) and parts[0][0].isupper()


def acronym_start(acronym: str, words: str) -> int:
    """Start of the shortest tail of `words` that spells the acronym (Schwartz & Hearst), or -1.

    A digit after a letter may count it: "AD3" spells "Action-informed Diverse ... Distractors
    Distinguisher" as A, D, D, D.
    """
    start = _spelled_start([char.lower() for char in acronym if char.isalnum()], words)
    if start >= 0 or not any(char.isdigit() for char in acronym):
        return start
    letters: list[str] = []
    for char in acronym.lower():
        if char in "234" and letters and letters[-1].isalpha():
            letters.extend(letters[-1] * (int(char) - 1))
        elif char.isalnum():
            letters.append(char)
    return _spelled_start(letters, words)


def _spelled_start(letters: list[str], words: str) -> int:
    if not letters or len(words) > 400:
        return -1
    lower = words.lower()
    index = len(lower) - 1
    for position in range(len(letters) - 1, -1, -1):
        letter = letters[position]
        if len(letter) != 1:  # "İ" lowercases to two characters: it spells nothing
            return -1
        # str.rfind walks back at C speed; the first letter must also start a word.
        index = lower.rfind(letter, 0, index + 1)
        while position == 0 and index > 0 and lower[index - 1].isalnum():
            index = lower.rfind(letter, 0, index)
        if index < 0:
            return -1
        index -= 1
    start = index + 1
    if len(words[start:].split(" ")) > min(len(letters) + 5, len(letters) * 2):
        return -1
    # Whole words only: a tail that starts inside "Fine-Tuning" starts at "Fine".
    return words.rfind(" ", 0, start) + 1


def strip_leading_noise(name: str) -> str:
    """'Moreover DRIFT' -> 'DRIFT': words that open a sentence are not part of a name."""
    words = name.split(" ")
    while words and words[0] in _LEADING_NOISE:
        words.pop(0)
    return " ".join(words)
