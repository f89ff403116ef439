"""Questions about one paper, answered from its abstract by what they ask for (pure).

"what's the main result?", "which datasets?", "how does it work?", "does it have code?", "who
wrote it?": the question's type (`question_type`, rules) routes authors, venue, code and
summaries; for the rest a fitted scorer (`AnswerModel`, weights in paper_answers.json beside
this file, fitted by benchmarks/fit_paper_answers.py on the blind-written question sets) ranks
the abstract's sentences. It is a softmax over the sentences and "the abstract does not say",
on features of each sentence (`FEATURES`: its role probabilities from `sentence_roles`,
position, cue-word counts, numbers, data-set names, the question's words it shares) whose
weights are mixed by a fitted guess of the question's type. A few rules state what the
training pairs rarely show: a method question naming nothing of its own gets the paper's own
contribution first, limitations of earlier work or ones the paper overcomes are not its own,
and a quantity of something the abstract never names is not given. A comparison takes, for
each paper, what it proposes, what it is evaluated on and its result.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from retrieval import text as analysis
from retrieval.excerpts import Sentence, analyse
from retrieval.links import link_lines
from retrieval.models import Excerpt, Span
from retrieval.sentence_roles import (
    ROLES,
    Role,
    sentence_role_probabilities,
    sentence_roles_from,
)
from retrieval.text_classifier import TextClassifier


class QuestionType(Enum):
    DATASET = "dataset"
    RESULT = "result"
    METHOD = "method"
    PROBLEM = "problem"
    LIMITATIONS = "limitations"
    CODE = "code"
    AUTHORS = "authors"
    VENUE = "venue"
    SUMMARY = "summary"
    OTHER = "other"


# The types the question-type classifier tells apart (a summary is one kind of "other").
TYPED: Final = tuple(kind.value for kind in QuestionType if kind is not QuestionType.SUMMARY)
QUESTION_TYPES_FILE: Final = Path(__file__).with_name("question_types.npz")


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)


# Words naming earlier work ("existing methods", "prior approaches").
_EARLIER = (
    r"(?:existing|prior|previous|current|earlier|standard|traditional|conventional|other"
    r"|baseline)(?: \w+)?"
)


# A request for the gist, which the typed questions label "other".
_ASKS_SUMMARY = _words(
    r"summar\w*",
    r"tl;?dr",
    r"gist",
    r"overview",
    r"in (?:short|brief|a nutshell)",
    r"eli5",
    r"(?:it|this|that|paper|work|study)(?:'s| is)? (?:\w+ )?about",
    r"about(?=\s*\??\s*$)",
    r"what (?:is|does) (?:it|this|that)(?: paper)? (?:say|do|doing)",
)
# The words that say which kind of answer is wanted, per type: not the question's topic
# (`_topic`). They once decided the type as well, first match winning; on questions written
# blind they were right two times in three, and a fitted classifier now decides it.
_ASKS: tuple[tuple[QuestionType, re.Pattern[str]], ...] = (
    (
        # What earlier work lacks is the problem the paper takes on, not its own limitation.
        QuestionType.PROBLEM,
        _words(
            r"(?:limitations?|weakness\w*|drawbacks?|problems?|issues?|shortcomings?)"
            r" (?:of|with|in) (?:the )?" + _EARLIER,
            _EARLIER + r" (?:\w+ ){0,2}(?:fail\w*|struggl\w*|lack\w*|suffer\w*|miss\w*)",
            r"why (?:do|does|did|would) (?:\w+ ){1,4}(?:fail|struggle|break)",
            # "what limitation of FNOs does it remove?": one the paper overcomes.
            r"(?:limitations?|weakness\w*|drawbacks?|shortcomings?|restrictions?)\b.{0,40}"
            r"\b(?:remov\w*|overcom\w*|address\w*|fix\w*|solv\w*|tackl\w*|lift\w*|resolv\w*"
            r"|mitigat\w*|alleviat\w*|circumvent\w*|get around)",
        ),
    ),
    (
        QuestionType.CODE,
        _words(
            r"code",
            r"github",
            r"repos?",
            r"repositor\w*",
            r"implementation",
            r"open[- ]?sourc\w*",
            r"checkpoints?",
            r"(?:grab|download|get) the (?:\w+ )?weights",
        ),
    ),
    (
        QuestionType.AUTHORS,
        _words(
            r"who (?:wrote|authored|made|did)",
            r"authors?",
            r"written by",
            r"affiliation\w*",
            r"which (?:lab|group|university|institution|company)",
        ),
    ),
    (
        QuestionType.VENUE,
        _words(
            r"venue",
            r"published",
            r"accepted (?:at|to|by)",
            r"which (?:conference|venue|journal|workshop)",
            r"(?:what|which) year",
            r"year (?:of|was)",
            r"how (?:old|recent|new) is (?:it|this|the paper)",
            r"when was (?:it|this)",
            r"orals?",
            r"posters?",
            r"spotlights?",
            r"camera[- ]ready",
            r"neurips",
            r"nips",
            r"icml",
            r"iclr",
        ),
    ),
    (
        QuestionType.LIMITATIONS,
        _words(
            r"limitations?",
            r"weakness\w*",
            r"drawbacks?",
            r"downsides?",
            r"caveats?",
            r"cons",
            r"los(?:e|es|ing)",
            r"worse",
            r"give up",
            r"trade-?offs?",
            r"only (?:covers?|works?|appl(?:y|ies)|handles?)",
            r"what(?:.s| is|s) the catch",
            r"gotchas?",
            r"fail(?:s|ure|ures)?",
            r"break(?:s)? down",
            r"(?:doesn't|does not|don't|do not|didn't|won't|can't|cannot|not) (?:\w+ )?(?:work"
            r"|scale|generali[sz]e|apply)",
            r"struggl\w*",
            # What it costs: "is it expensive to train?", "any cost to injecting noise?",
            # "does it add much overhead or slow down training?", "is it a pain to add?".
            r"(?:is|are|does|do|did|was|any|is there)\b[^?.]{0,40}\b(?:expensive|costly"
            r"|overhead|slow(?:s|er)?(?: \w+)? down|a pain|costs? (?:anything|much|a lot)"
            r"|any cost|cost to)",
            # "what assumptions are needed?": what it rests on, which limits where it holds.
            r"what (?:assumptions|requirements)",
        ),
    ),
    (
        # What the paper is for, even when the question names its experiment or data.
        QuestionType.PROBLEM,
        _words(r"goal", r"aims?", r"purpose", r"objective", r"trying to", r"what gap"),
    ),
    (
        # Whether there are experiments at all ("any experiments?", "is it empirical?"): the
        # sentence that says so, which need not name a data set.
        QuestionType.OTHER,
        _words(
            r"(?:any|are there|(?:do|did) they (?:have|run|do)|is there an?|is (?:it|this))"
            r" (?:\w+ )?(?:experiments?|empirical\w*|evaluations?|theor\w*|proofs?)",
        ),
    ),
    (
        # "do they prove anything?" asks whether there is theory; "what do they prove?" asks
        # for the result.
        QuestionType.OTHER,
        re.compile(r"^\W*(?:so )?(?:do|did|does) (?:they|it|the paper|the authors) prove", re.I),
    ),
    (
        QuestionType.OTHER,
        _words(
            r"any (?:theory|theorems?|guarantees?)",
        ),
    ),
    (
        # "what metric do they report?", "how do they measure success?": where a measure is
        # named (an `_OTHER_CUES` group), not how the method works.
        QuestionType.OTHER,
        _words(r"metrics?", r"how (?:do|does|did) (?:they|it|you|the \w+) measure"),
    ),
    (
        QuestionType.DATASET,
        _words(
            r"data ?sets?",
            r"data",
            r"benchmark\w*",
            r"evaluat\w*",
            r"tested",
            r"test(?:ed)? on",
            r"corpus",
            r"corpora",
            r"tasks?",
            r"environments?",
            r"experiments?",
            r"navier[- ]stokes",
            r"imagenet",
        ),
    ),
    (
        # "how does DBPM find bad pairs?", "how do they go about analysing why X works": how it
        # is done, even when the question names a finding or a why; but "how does it compare
        # / perform" asks for the result.
        QuestionType.METHOD,
        re.compile(
            r"^\W*(?:so |and |but )?how (?:do|does|did|can|could|would) (?!i\b|you\b|u\b)"
            r"(?!.*\b(?:compare|compares|perform|performs|fare|fares|stack|score|rank|do on"
            r"|do against|well|much|better|worse|measure|measured|metrics?)\b)",
            re.IGNORECASE,
        ),
    ),
    (
        # "what's novel compared to prior work": what it proposes, not a comparison.
        QuestionType.METHOD,
        _words(r"what(?:'s| is| are|s) (?:new|novel)", r"novelty"),
    ),
    (
        QuestionType.RESULT,
        _words(
            r"results?",
            r"findings?",
            r"find",
            r"found",
            r"achiev\w*",
            r"perform\w*",
            r"improv\w*",
            r"better",
            r"faster",
            r"accura\w*",
            r"outperform\w*",
            r"gains?",
            r"speed ?up",
            r"how (?:much|well|good)",
            r"take ?away",
            r"conclu\w*",
            r"sota",
            r"beat",
            r"compare[sd]? (?:to|with|against)",
            r"fewer",
            r"smaller",
            r"advantages?",
            r"benefits?",
            r"baselines?",
            r"headline",
            r"(?:main|key|central) claims?",
            r"(?:do|did|does) (?:they|it|the paper|the authors) (?:show|prove|claim|demonstrate)",
            r"guarantees?",
            r"(?:regret|error|generalization|lower|upper|convergence) bounds?",
            r"(?:sample|time|query|computational) complexity",
            r"converge\w*",
        ),
    ),
    (
        QuestionType.PROBLEM,
        _words(
            r"problem",
            r"challenge",
            r"motivat\w*",
            r"why",
            r"address\w*",
            r"tackl\w*",
            r"gap",
            r"trying to",
            r"what question",
            r"goal",
            r"aim",
            r"wrong",
            r"shortcomings?",
            r"missing",
            r"lacking",
            r"issues?",
            r"bottlenecks?",
            r"research questions?",
            r"why (?:is|are|does|do) (?:this|it|that) (?:matter|important|needed)",
        ),
    ),
    (
        QuestionType.METHOD,
        _words(
            r"how (?:does|do|did)",
            r"method",
            r"approach",
            r"propos\w*",
            r"architecture",
            r"idea",
            r"technique",
            r"algorithm",
            r"contribution\w*",
            r"what(?:'s| is| are) (?:new|novel)",
            r"novelty",
            r"key insight",
            r"insights?",
            r"intuition",
            r"components?",
            r"pipeline",
            r"model(?:s)? (?:do|did) they (?:use|train|build)",
            r"what (?:do|did|does) (?:they|it|the paper|the authors) do",
            r"how (?:is|are|was|were) (?:it|they|this|the \w+) (?:trained|built|designed|computed"
            r"|learned|implemented|done|made)",
            r"loss(?: function)?",
        ),
    ),
    (QuestionType.SUMMARY, _ASKS_SUMMARY),
)
# Words that show a sentence answers a type, marked in the answer.
_CUES: Mapping[QuestionType, re.Pattern[str]] = {
    QuestionType.CODE: _words(r"codes?", r"implementation", r"available", r"released"),
    QuestionType.DATASET: re.compile(
        r"\b(?:data ?sets?|benchmarks?|corpus|corpora|suites?|tasks?|environments?"
        r"|(?:evaluat\w*|experiments?|tested|trained) on|[A-Z][A-Za-z]*[A-Z0-9][\w\-]*)\b"
    ),
    QuestionType.RESULT: re.compile(
        r"\d+(?:\.\d+)?\s?(?:\\?%|x\b|×|times\b)|\b[x×]\s?\$?\d|"
        + _words(
            r"outperform\w*",
            r"improv\w*",
            r"achiev\w*",
            r"surpass\w*",
            r"state[- ]of[- ]the[- ]art",
            r"sota",
            r"reduc\w*",
            r"faster",
            r"better",
            r"gains?",
            r"speed\w*",
            r"accura\w*",
            r"consistently",
            r"significantly",
            r"demonstrat\w*",
            r"shows? that",
            r"results?",
            r"we (?:find|found|show|showed|observe|prove|reveal)",
        ).pattern,
        re.IGNORECASE,
    ),
    QuestionType.METHOD: _words(
        r"we (?:propose|introduce|present|develop|design)",
        r"propos\w*",
        r"novel",
        r"introduc\w*",
        r"framework",
        r"method",
        r"approach",
        r"algorithm",
        r"architecture",
        r"via",
        r"leverag\w*",
        r"based on",
    ),
    QuestionType.PROBLEM: _words(
        r"problem",
        r"challeng\w*",
        r"however",
        r"limit\w*",
        r"fail\w*",
        r"lack\w*",
        r"difficult\w*",
        r"issue",
        r"bottleneck",
        r"costly",
        r"expensive",
        r"remain\w*",
        r"struggl\w*",
        r"suffer\w*",
        r"while",
        r"unable",
        r"insufficient\w*",
        r"errors?",
        r"goal",
        r"aims?",
        r"objective",
        r"purpose",
        r"seeks?",
        r"this (?:paper|study|work) (?:studies|addresses|investigates|considers|designs)",
    ),
    QuestionType.LIMITATIONS: _words(
        r"limitation\w*",
        r"limited to",
        r"fails? (?:to|when)",
        r"cannot",
        r"restrict\w*",
        r"future (?:work|research|directions?|refinements?)",
        r"can (?:\w+ )?be (?:further )?improved",
        r"we suspect",
        r"drawback\w*",
        r"only (?:works|applies)",
        r"at the (?:cost|expense|price) of",
        r"unavoidabl\w*",
        r"inevitabl\w*",
        r"sensitive to",
        r"does not (?:scale|generali[sz]e|hold|apply)",
    ),
}
# For questions of no listed type: words of the question, and what answers them besides the
# question's own words ("how long does training take?" is answered by "12 hours of training").
_OTHER_CUES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (
        _words(
            r"how long", r"time", r"hours?", r"days?", r"fast", r"slow", r"compute", r"hardware"
        ),
        _words(r"\d+\s*(?:hours?|days?|minutes?|seconds?|GPUs?)", r"faster", r"speed\w*", r"time"),
    ),
    (
        _words(
            r"how (?:big|large|many)",
            r"size",
            r"scale",
            r"number of",
            r"what(?:'s| is| are|s) in",
            r"consists? of",
            r"contains?",
            r"made (?:up )?of",
        ),
        re.compile(
            r"\b\d[\d,.]*\b|"
            + _words(
                r"large[- ]scale", r"consists? of", r"contains?", r"comprises?", r"includes?"
            ).pattern
        ),
    ),
    (
        _words(r"empirical\w*", r"experiments?", r"evaluations?"),
        _words(
            r"empirical\w*",
            r"experiment\w*",
            r"evaluat\w*",
            r"simulations?",
            r"we demonstrate",
        ),
    ),
    (
        # Theory answers "is it empirical?" too ("our results are theoretical").
        _words(r"empirical\w*", r"theor\w*", r"proofs?", r"prove\w*"),
        _words(
            r"theor\w*",
            r"proofs?",
            r"prove\w*",
            r"bounds?",
            r"deriv\w*",
            r"guarantee\w*",
            r"theorems?",
        ),
    ),
    (
        _words(r"assum\w*", r"requir\w*", r"prerequisites?"),
        _words(r"assum\w*", r"requir\w*", r"rel(?:y|ies|ying) on", r"under"),
    ),
    (
        # "does it need labels?": what it needs, or goes without ("with only unlabelled data").
        _words(r"needs?", r"needed"),
        _words(
            r"needs?", r"requir\w*", r"without", r"only", r"\w+-free", r"free of", r"unlabell?ed"
        ),
    ),
    (
        # "is it expensive?", "any overhead?": what it costs.
        _words(r"expensive", r"costs?", r"costly", r"overhead", r"slow\w*", r"a pain", r"compute"),
        _words(
            r"cost\w*",
            r"expensive",
            r"overhead",
            r"slow\w*",
            r"computation\w*",
            r"memory",
            r"efficien\w*",
            r"non-trivial",
            r"burden\w*",
            r"complexity",
        ),
    ),
    (
        # "what metric do they report?": where a measure is named.
        _words(r"metrics?", r"measured?", r"measures"),
        re.compile(
            r"\d\s?%|\b(?:F1|BLEU|ROUGE(?:-\w+)?|AUC|AUROC|mIoU|mAP|FID|PSNR|SSIM|EM|NDCG)\b|"
            + _words(
                r"accuracy",
                r"recall(?:@\d+)?",
                r"precision",
                r"error rates?",
                r"perplexity",
                r"success rates?",
                r"win rates?",
                r"metrics?",
                r"scores?",
                r"measured",
            ).pattern,
            re.IGNORECASE,
        ),
    ),
    (
        _words(r"labels?", r"labell?ed", r"annotations?", r"supervis\w*"),
        _words(r"\w*label\w*", r"annotat\w*", r"\w*supervis\w*"),
    ),
)
_SUBJECT_WORDS = 6
# Where a paper says what it sets out to do.
_AIM = _words(
    r"(?:in )?this (?:paper|work|study)",
    r"we (?:study|investigate|consider|address|tackle|explore|examine|focus)",
)
# What is missing or unknown: a sentence stating the gap the paper fills ("However, our
# understanding of ... is limited").
_GAP = re.compile(
    _words(
        r"lack\w*",
        r"remains? (?:unclear|unknown|open|unexplored|challenging|elusive)",
        r"(?:is|are|remains?) (?:\w+ )?(?:limited|scarce|poorly understood)",
        r"(?:have|has) (?:a |only )?(?:\w+ )?(?:limited|little|poor) (?:\w+ )?understanding",
        r"little is known",
        r"no (?:prior|existing) work",
        r"(?:is|are|remains?) (?:\w+ )?(?:absent|missing|lacking)",
        r"overlook\w*",
    ).pattern,
    re.IGNORECASE,
)
# A sentence opening on a contrast states a problem rather than the method.
_CONTRAST = re.compile(
    r"^\W*(?:however|but|yet|unfortunately|despite|nevertheless|nonetheless|while|although"
    r"|though)\b",
    re.IGNORECASE,
)
# A sentence stating what the paper contributes ("we propose X", "this paper introduces a
# novel framework"): the answer to "what do they do", not to "what problem".
_CONTRIBUTION = _words(
    r"we (?:propose|introduce|present|develop|design|build|create|devise)",
    r"(?:this|the present|our) (?:paper|work|study) (?:propos|introduc|present|develop)\w*",
    r"(?:an?|the) (?:novel|new) (?:\w+ ){0,2}(?:method|approach|framework|algorithm|model"
    r"|architecture|technique|paradigm|system|pipeline)",
    r"dubbed",
    r"termed",
)
# An opening that points back at the sentence before ("To address this, ...", "To remedy
# these issues"): the sentence before states the problem.
_POINTS_BACK = re.compile(
    r"^\W*(?:to (?:address|remedy|tackle|overcome|solve|mitigate|alleviate|bridge|fill|close"
    r"|resolve|fix|handle|cope with|combat|circumvent|reduce|avoid|prevent)|in response to"
    r"|motivated by"
    r"|inspired by|towards? (?:addressing|solving|this|these)|recogni[sz]ing|given|considering"
    r"|faced with|in light of)\b[^.]{0,50}?"
    r"\b(?:this|these|that|those|such|the above|both|them|it)\b",
    re.IGNORECASE,
)
_KEY_PHRASE = re.compile(
    r"\b(?:key|main|core|central|primary) (idea|insight|contribution|result|finding|goal"
    r"|observation|claim|challenge|question|technique|component)s?\b",
    re.IGNORECASE,
)
_HEDGE = _words(
    r"may (?:\w+ )?(?:introduce|cause|lead to|suffer|fail|not|degrade|hurt|incur|require)",
    r"instabilit\w*",
    r"unstable",
)
_GENERIC_LIMITS = _words(
    r"limitations?", r"weakness\w*", r"drawbacks?", r"downsides?", r"caveats?", r"cons"
)
_ASKS_GAP = _words(r"gaps?", r"missing", r"lacking", r"lacks?", r"void", r"absent")
# A sentence detailing the method rather than naming it ("Specifically, ...", "Concretely").
_DETAILS = re.compile(
    r"^\W*(?:specifically|concretely|in particular|to this end|to do so|to achieve this"
    r"|first(?:ly)?|we first|at its core|technically|more precisely|in detail|our (?:key|main) idea"
    r"|the (?:key|main|core) (?:idea|insight|component))\b",
    re.IGNORECASE,
)
# The paper's main claim, stated as its aim ("In this paper, we show that ...").
_HEADLINE = _words(
    r"(?:in this (?:paper|work|study)|here|overall|in (?:summary|short)),? we (?:\w+ )?"
    r"(?:show|find|prove|demonstrate|establish|reveal|observe|argue)"
)
# Where a question names what the paper is compared with: the words after it.
_COMPARED_WITH = _words(
    r"than", r"vs\.?", r"versus", r"over", r"against", r"compared? (?:to|with)", r"relative to"
)
_HOW = _words(
    r"how",
    r"mechanism",
    r"works?",
    r"steps?",
    r"components?",
    r"pipeline",
    r"idea",
    r"insight",
    r"intuition",
)
# How a method works, said as a mechanism: "achieves this by reorganizing", "leverages the
# transformers' in-context learning", "combines X with Y", "lies in its enforcement of".
_MECHANISM = _words(
    r"(?:by|through) (?:\w+ )?\w+ing",
    r"uses?",
    r"using",
    r"leverag\w*",
    r"utili[sz]\w*",
    r"employ\w*",
    r"combin\w*",
    r"consists? of",
    r"relies on",
    r"built (?:up)?on",
    r"lies in",
    r"works by",
    r"achieves this",
)
# More words stating a problem, besides the problem cues.
_PROBLEM_MORE = _words(
    r"overlook\w*",
    r"neglect\w*",
    r"ignor\w*",
    r"fall short",
    r"hinder\w*",
    r"imped\w*",
    r"impractical",
    r"prohibitive\w*",
    r"unclear",
    r"unknown",
    r"open (?:question|problem)",
    r"vulnerab\w*",
    r"poorly",
    r"inefficien\w*",
)
# Result words that state a finding outright, counted twice: a comparison won, a number
# gained, a claim shown ("outperforms", "by 12%", "we prove that").
_STRONG_RESULT = re.compile(
    r"\d+(?:\.\d+)?\s?(?:\\?%|x\b|×|times\b)|\b[x×]\s?\$?\d|"
    + _words(
        r"outperform\w*",
        r"surpass\w*",
        r"state[- ]of[- ]the[- ]art",
        r"sota",
        r"we (?:find|found|show|showed|observe|prove|reveal|demonstrate|establish) that",
        r"(?:significantly|substantially|consistently) (?:\w+ )?(?:better|improv\w*|outperform\w*"
        r"|reduc\w*|faster)",
    ).pattern,
    re.IGNORECASE,
)
# Limitations the paper sets out to overcome are not its own ("To address these limitations,
# we propose ...").
_OVERCOMES = _words(
    r"(?:address\w*|overcom\w*|tackl\w*|mitigat\w*|alleviat\w*|remed\w*|resolv\w*"
    r"|circumvent\w*|avoid\w*|without)\s+(?:\w+\s+){0,2}(?:limitations?|drawbacks?|restrictions?)"
)
# A result question that wants a quantity, and a quantity in a sentence (a number standing
# alone, not part of a name such as "GPT-4").
_ASKS_NUMBERS = _words(
    r"how much",
    r"how many",
    r"numbers?",
    r"percent\w*",
    r"margin",
    r"quantif\w*",
    # "what's the convergence rate?": a measured value.
    r"what(?:'s| is| are|s) (?:the |their |its )?(?:\w+ )?(?:rates?|bounds?|complexity|accuracy"
    r"|speed-?ups?|errors?|scores?|gains?)",
)
# A question for figures themselves, not for how much.
_ASKS_FIGURES = _words(r"numbers?", r"figures?", r"percent\w*", r"quantif\w*")
_NUMBER = re.compile(
    r"(?<![\w-])\d+(?:[.,]\d+)*(?![\w-])|\d\s?(?:%|×|x\b)|\b[x×]\s?\$?\d|"
    + _words(
        r"twice", r"half", r"doubl\w*", r"tripl\w*", r"\w+-fold", r"orders? of magnitude"
    ).pattern,
    re.IGNORECASE,
)
# Whose work a sentence describes: "we", "our", "this paper" say the paper's own; "prior work",
# "existing methods", "Gao et al. (2023)" say someone else's.
_OWN = _words(
    r"we",
    r"our",
    r"ours",
    r"us",
    r"this (?:paper|work|study|article|note)",
    r"the proposed",
    r"here",
)
_PRIOR = re.compile(
    r"\bet al\b|\(\s*(?:[A-Z][^()]{0,60}?,?\s*)?(?:19|20)\d{2}[a-z]?\s*\)|"
    + _words(
        r"previous(?:ly)?",
        r"prior",
        r"existing",
        r"earlier",
        r"traditional(?:ly)?",
        r"conventional(?:ly)?",
        r"recent(?:ly)? (?:work|works|studies|methods|approaches|advances|research|efforts)",
        r"(?:current|many|most|some) (?:methods|approaches|models|techniques|works|studies)",
        r"ha(?:s|ve) been",
        r"typically",
        r"widely",
    ).pattern,
    re.IGNORECASE,
)
_PERCENT = re.compile(r"\d\s?(?:\\?%|percent)|\bpercentage points?\b", re.IGNORECASE)
_THAN = _words(r"than", r"vs\.?", r"versus", r"compared (?:to|with)", r"relative to")
_DATA_WORDS = _words(
    r"data ?sets?", r"benchmarks?", r"corpus", r"corpora", r"(?:evaluat\w*|experiments?|tested) on"
)
# What shows a sentence is about data: the words, or "on" before a name ("on WebVid-10M").
_DATA_EVIDENCE = re.compile(
    r"(?i:" + _DATA_WORDS.pattern + r")|\bon (?:the |a )?[A-Z][\w.\-]*[A-Z0-9]"
    r"|(?i:\b(?:empirical\w*|experiment\w*|evaluat\w*|tested)\b.{0,80}\bdata\b)"
    r"|(?i:\b(?:experiments?|evaluat\w*|results|tested)\b.{0,60}\b(?:on|across)\b)"
)
# A data-set question that wants the names ("which ones exactly?", "names pls").
_ASKS_NAMES = _words(r"names?", r"named", r"exactly", r"specifically", r"which ones")
_CODE_SAID = re.compile(
    r"\b(?:code|codes|implementation|github|source)\b.{0,40}\b(?:available|released|public)"
    r"|\b(?:release|publish|open-source|share|make)\w* (?:\w+ ){0,2}(?:code|implementation)",
    re.IGNORECASE,
)
# What else a release question may ask for ("will the environment be released?", "did they
# release the data?"): answered by a sentence releasing that, not by one releasing anything.
_ARTIFACT = (
    r"(datasets?|data|benchmarks?|environments?|models?|weights|checkpoints?|baselines?"
    r"|toolkits?|tools?|library|software|simulators?)"
)
_RELEASED_ARTIFACT = re.compile(
    rf"\b(?:release|publish|open-source|share|make)\w* (?:\w+ ){{0,3}}{_ARTIFACT}\b"
    rf"|\b{_ARTIFACT}\b.{{0,40}}\b(?:will|shall) be (?:made )?(?:\w+ )?"
    r"(?:available|released|open[- ]sourced|public)",
    re.IGNORECASE,
)


def _artifact_key(word: str) -> str:
    key = word.lower().rstrip("s")
    return "data" if key == "dataset" else key


def _artifacts(text: str) -> frozenset[str]:
    """The artifacts a question names, as keys ("datasets" and "data" are one)."""
    return frozenset(_artifact_key(word) for word in re.findall(rf"\b{_ARTIFACT}\b", text, re.I))


def _released_artifacts(text: str) -> frozenset[str]:
    """What a sentence releases, of the artifacts a code question may name."""
    return frozenset(
        _artifact_key(word)
        for match in _RELEASED_ARTIFACT.finditer(text)
        for word in match.groups()
        if word
    )


# "Code is open-sourced at https://...": where to get it, which answers only a code question.
_AVAILABILITY = re.compile(
    r"https?://|\b(?:code|codes|implementation|github|source)\b.{0,40}"
    r"\b(?:available|released|public|open[- ]sourced)",
    re.IGNORECASE,
)
# The types an availability sentence never answers.
_NOT_AVAILABILITY = frozenset(
    {QuestionType.METHOD, QuestionType.RESULT, QuestionType.PROBLEM, QuestionType.LIMITATIONS}
)
# Fewer words than this ("(ICML variant.)") state nothing that answers; real abstracts hardly
# have such sentences, so the fitted weights know nothing of them.
_SHORTEST = 4
# The types whose answer may be "the abstract does not say" (a result or a method always has
# one; the training pairs never said otherwise, bar results asking for numbers none give).
MAY_BE_UNSAID: Final = frozenset(
    {QuestionType.DATASET, QuestionType.LIMITATIONS, QuestionType.OTHER}
)
_NOT_STATED = {
    QuestionType.DATASET: "The abstract names no data set or benchmark.",
    QuestionType.LIMITATIONS: "The abstract states no limitation.",
    QuestionType.OTHER: "The abstract does not say.",
}


@dataclass(frozen=True, slots=True)
class AboutPaper:
    """What a paper's abstract says to one question: answering sentences (answering words
    marked), or `statement` when the abstract (or the list) does not hold the answer."""

    question_type: QuestionType
    sentences: tuple[Excerpt, ...] = ()
    statement: str | None = None
    # Said before the sentences: "The abstract does not mention LLaMA." when the question asks
    # about something the abstract never names, and the sentences are only the closest it says.
    preface: str | None = None


@dataclass(frozen=True, slots=True)
class Aspects:
    """One paper of a comparison: what it proposes, what it is evaluated on, its result."""

    proposes: Excerpt | None
    evaluated_on: Excerpt | None
    result: Excerpt | None


_QUESTION_SHAPE = re.compile(
    r"^(?:what|which|who|whom|whose|where|when|why|how|does|did|do|is|are|was|were|can|could"
    r"|will|would|has|have|should|any|so|whats|hows|wheres|whys|wat)\b|\?\s*$",
    re.IGNORECASE,
)


def is_question(message: str) -> bool:
    """Shaped as a question: a question word first, or a question mark last."""
    return _QUESTION_SHAPE.search(message.strip()) is not None


def about_the_paper(question: str, abstract: str) -> bool:
    """Whether a question reads as one about this paper: at least half of its topic words are
    the abstract's (the words that only say what kind of answer is wanted do not count), or
    it has no topic words of its own beyond one ("where can I get the code?")."""
    kind = question_type(question)
    topic = list(_topic(question, kind))
    if len(topic) <= 1 and kind is not QuestionType.OTHER:
        return True
    if not topic:
        return False
    if uses_its_names(question, abstract):
        return True
    held = set(analysis.analyze(abstract))
    return sum(term in held for term in topic) * 2 >= len(topic)


# Words pointing back at the paper just opened ("what's their main argument", "why is this
# hard"), and words that make a message a search for other papers ("any papers on", "what
# about X"). "it" is left out: "how can a model know what it doesn't know" is a search.
_POINTS_AT_IT = _words(
    r"they(?:'re|'ve|'d)?",
    r"their",
    r"them",
    r"this",
    r"these",
    r"those",
    r"the (?:paper|authors|method|model|approach)",
)
# Words that ask for papers to be found, whatever else the message says.
# "search" and "find" as verbs of the user's, not as the paper's topic ("cot search", "neural
# architecture search") or its result ("what do they find?").
_FINDING = (
    r"works? on",
    r"find (?:me|us|papers?|works?|anything|something|more|others?|stuff)",
    r"(?:you|u) find",
    r"look(?:ing)? for",
    r"search(?:ing)? (?:for|on|about)",
    r"^\W*search",
)
_SEARCHES = _words(
    r"papers?",
    *_FINDING,
    r"anything (?:on|about)",
    r"(?:what|how) about",
    r"similar",
    r"others?",
)
# Asking for papers to be found: "any papers on ...", "anything on ...", "work on ...".
_FINDS_PAPERS = _words(
    r"(?:any|other|more|some) (?:papers?|works?|research|studies)",
    r"papers? (?:on|about|that|which|for)",
    *_FINDING,
    r"anything (?:on|about|for)",
)


def asks_for_papers(question: str) -> bool:
    """Whether a message asks for papers to be found ("any papers on jailbreaking LLMs?"),
    which is a new search even when its words are those of the paper in focus."""
    return _FINDS_PAPERS.search(question) is not None


def points_at_the_paper(question: str) -> bool:
    """Whether a question speaks of the paper in front of it ("they", "their", "this") and
    neither of the bot or the user ("can you", "my") nor of papers to find."""
    return (
        _POINTS_AT_IT.search(question) is not None
        and _ASKS_THE_BOT.search(question) is None
        and _SEARCHES.search(question) is None
    )


# What a message asks of the bot or says of the user: "can you show ...", "my", "your", "the
# bot"; not the generic "you" of "can you trust those tools?" or "what do you gain?".
_ASKS_THE_BOT = _words(
    r"(?:can|could|would|will) (?:you|u) (?:pls |please |just )?(?:show|find|give|list|summari[sz]e"
    r"|search|open|export|send|get|save|sort|filter|tell me|explain|help|do)",
    r"i",
    r"me",
    r"my",
    r"your",
    r"bot",
    r"paperbot",
)


def asks_for_its_code(question: str) -> bool:
    """A code question that is not about the bot's own code: "where can I get the code?" with
    a paper open, not "is your code on github?"."""
    return question_type(question) is QuestionType.CODE and _OF_THE_BOT.search(question) is None


_OF_THE_BOT = _words(r"you", r"your", r"u", r"bot", r"paperbot", r"this (?:tool|thing|app)")


def _topic(question: str, kind: QuestionType) -> dict[str, None]:
    """The question's topic words, in order: not those that only say what kind of answer is
    wanted, nor those that asked for its type ("gap" in "what gap is this filling?")."""
    asking = " ".join(
        match.group() for asked, asks in _ASKS if asked is kind for match in asks.finditer(question)
    )
    asked = frozenset(analysis.analyze(asking))
    return {
        term: None
        for term in analysis.analyze(question)
        if term not in _QUESTION_TERMS and term not in asked
    }


def topic_words(question: str) -> list[str]:
    """The question's topic words (index terms), in order, without those that only say what
    kind of answer is wanted ("what dataset do they use for X" -> the terms of X)."""
    return list(_topic(question, question_type(question)))


def names_the_paper(question: str, text: str) -> bool:
    """Whether a question names the paper's own topic: it has topic words (beyond the words
    that only say what kind of answer is wanted) and `text` (title and abstract) holds every
    one ("how does swamp work?" on the SWAMP paper; not "how do I filter by conference?"), or
    it uses a name the paper writes ("how does VPL keep the labels from collapsing") and
    does not speak to the bot ("how do I ...", "can you ...")."""
    topic = frozenset(analysis.analyze(question)) - _QUESTION_TERMS
    if bool(topic) and topic <= frozenset(analysis.analyze(text)):
        return True
    return _TO_THE_BOT.search(question) is None and uses_its_names(question, text)


# A message speaking to the bot about itself or the user's own use of it.
# "can you explain how co-boosting works" asks about the paper's co-boosting: "you" alone is the
# reader asking, as in any question, not a question about the bot.
_TO_THE_BOT = _words(r"i", r"me", r"my", r"your", r"bot", r"paperbot")


def uses_its_names(question: str, text: str) -> bool:
    """Whether the question uses, in any case, a name `text` writes: a word with two
    capitals or letters and digits ("EmbodiedAct", "HYPO", "GNNs", "1-WL"), which only this
    paper's readers would type."""
    names = _names_in(text)
    for match in _NAME.finditer(question):
        key = re.sub(r"[^a-z0-9]", "", match.group().lower())
        if len(key) >= 2 and key not in _NOT_NAMES and (key in names or key + "s" in names):
            return True
    return False


@lru_cache(maxsize=256)
def _names_in(text: str) -> frozenset[str]:
    """The names a text writes (two capitals, or letters and digits), lower-cased without
    punctuation, a plural also without its "s"."""
    found = set()
    for match in re.finditer(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*", text):
        word = match.group()
        capitals = sum(character.isupper() for character in word)
        digits = any(character.isdigit() for character in word)
        letters = any(character.isalpha() for character in word)
        if letters and (capitals >= 2 or (digits and capitals >= 1)):
            key = re.sub(r"[^a-z0-9]", "", word.lower())
            found.add(key)
            if key.endswith("s"):
                found.add(key[:-1])
    return frozenset(found)


def names_a_kind_of_answer(question: str) -> bool:
    """Whether the question has words asking for a kind of answer only a paper gives (its
    result, data, method, code, authors ...): "what's the main result?", not "what is the
    weather in paris" (which the classifier must still give some type)."""
    return any(asks.search(question) for kind, asks in _ASKS if kind is not QuestionType.SUMMARY)


@functools.cache
def question_type_model() -> TextClassifier:
    """The shipped question-type classifier, loaded once."""
    return TextClassifier.load(QUESTION_TYPES_FILE)


def question_type(question: str, model: TextClassifier | None = None) -> QuestionType:
    """What kind of answer a question about a paper wants: the most likely type by `model`
    (unset: the shipped classifier, fitted by benchmarks/fit_question_types.py); a request for
    the gist, which the training data labels "other", is a summary."""
    if model is None:
        return _shipped_question_type(question)
    probabilities = model.probabilities(question)
    kind = QuestionType(max(probabilities, key=probabilities.__getitem__))
    if kind is QuestionType.OTHER and _ASKS_SUMMARY.search(question):
        return QuestionType.SUMMARY
    return kind


@lru_cache(maxsize=1024)
def _shipped_question_type(question: str) -> QuestionType:
    # The chat asks the type of one message several times (intent, routing, answer).
    return question_type(question, question_type_model())


def answer_about(
    abstract: str,
    question: str,
    *,
    kind: QuestionType | None = None,
    collection: str = "",
    urls: Sequence[str] = (),
    limit: int = 2,
    title: str = "",
    authors: Sequence[str] = (),
    model: AnswerModel | None = None,
) -> AboutPaper:
    """The sentences of `abstract` that answer `question` (at most `limit`, in text order).
    `urls` are the paper's code links; `authors` as its list gives them (JSONL files do)."""
    kind = kind or question_type(question)
    if kind is QuestionType.AUTHORS:
        if authors:
            return AboutPaper(kind, statement="Authors: " + ", ".join(authors))
        return AboutPaper(kind, statement="Paper lists hold no authors, only abstracts.")
    if kind is QuestionType.VENUE:
        if collection:
            return AboutPaper(
                kind,
                statement=f"It is in the {collection} list; the list holds no other venue details.",
            )
        return AboutPaper(kind, statement="The list holds no venue details.")
    _, texts, roles = _read(abstract)
    if kind is QuestionType.CODE:
        if urls:
            return AboutPaper(kind, statement="; ".join(link_lines(urls[:5])))
        asked = _artifacts(question)
        said = [
            _marked(text, kind, frozenset())
            for text in texts
            if _CODE_SAID.search(text) or asked & _released_artifacts(text)
        ]
        return AboutPaper(
            kind, tuple(said[:1]), None if said else "No code or project link appears in it."
        )
    missing = missing_names(question, f"{title} {abstract}")
    if missing:
        names = " or ".join(missing)
        return AboutPaper(kind, statement=f"The abstract does not mention {names}.")
    absent = unmentioned(question, f"{title} {abstract}")
    if absent is not None:
        closest = _answer_about(abstract, question, kind, texts, roles, title, limit, model)
        return replace(closest, preface=f"The abstract does not mention {absent}.")
    return _answer_about(abstract, question, kind, texts, roles, title, limit, model)


def _answer_about(
    abstract: str,
    question: str,
    kind: QuestionType,
    texts: tuple[str, ...],
    roles: tuple[Role, ...],
    title: str,
    limit: int,
    model: AnswerModel | None,
) -> AboutPaper:
    """`answer_about` for a question the sentences may answer (not authors, venue or code)."""
    wanted = frozenset(analysis.analyze(question)) - _QUESTION_TERMS
    if kind is QuestionType.SUMMARY:
        chosen = _summary(abstract, texts, roles, model or default_model())
        return AboutPaper(kind, tuple(_marked(texts[i], kind, frozenset()) for i in chosen))
    # "any numbers?" where the abstract gives none; "how much cheaper is it?" is answered by
    # the claim ("significantly cheaper") even without a figure.
    if (
        kind is QuestionType.RESULT
        and _ASKS_FIGURES.search(question)
        and not any(_NUMBER.search(text) for text in texts)
    ):
        return AboutPaper(kind, statement="The abstract gives no numbers.")
    unsaid = _NOT_STATED.get(kind, _NOT_STATED[QuestionType.OTHER])
    # "which datasets exactly? names pls" where the abstract only says "real-world datasets":
    # the names asked for are not there, and a sentence without them does not answer.
    if kind is QuestionType.DATASET and _ASKS_NAMES.search(question) and not _names_data(texts):
        return AboutPaper(kind, statement=unsaid)
    topic = frozenset(_topic(question, kind)) - frozenset(analysis.analyze(title))
    # A quantity of something the abstract never speaks of ("how many parameters?"): a number
    # it gives is of something else.
    if (
        kind is QuestionType.OTHER
        and topic
        and _ASKS_NUMBERS.search(question)
        and not _topic_found(question, topic, texts, title)
    ):
        return AboutPaper(kind, statement=unsaid)
    # "Any limitations?" where no sentence states one of the paper's own; a question naming
    # what it loses at ("where does it still lose?") may be answered without the word.
    if (
        kind is QuestionType.LIMITATIONS
        and _GENERIC_LIMITS.search(question)
        and not _own_limitations(texts).any()
    ):
        return AboutPaper(kind, statement=unsaid)
    model = model or default_model()
    # What the question asks about is there ("any experiments?" and "we demonstrate ... on
    # federated tasks"): the answer is a sentence, not "does not say".
    cued = kind is QuestionType.OTHER and any(
        asks.search(question) and said.search(abstract) for asks, said in _OTHER_CUES
    )
    best = _ranked(kind, question, abstract, title, model, may_be_unsaid=not cued)[:limit]
    if not best:
        return AboutPaper(kind, statement=unsaid)
    # The best first; a second when it is nearly as likely.
    top = best[0][0]
    chosen = [index for chance, index in best if chance >= top * model.second_share]
    # A question naming nothing of its own ("what do they propose?", "how does it work?") asks
    # for what the paper contributes: its own contribution sentence first.
    own = _own_contribution(texts)
    if kind is QuestionType.METHOD and not topic and own is not None:
        chosen = [own, *(i for i in chosen if i != own)][:limit]
    return AboutPaper(kind, tuple(_marked(texts[i], kind, wanted) for i in chosen))


def _topic_found(question: str, topic: frozenset[str], texts: Sequence[str], title: str) -> bool:
    """Whether the abstract or title speaks of any of the question's topic words: the word,
    a word sharing its first five letters ("params", "parameters"), or what answers it
    ("experiments" and "we demonstrate ... on federated tasks")."""
    text = " ".join([title, *texts])
    if topic & frozenset(analysis.analyze(text)):
        return True
    prefixes = {word[:5] for word in re.findall(r"[a-z0-9]{4,}", text.lower())}
    words = [w for w in re.findall(r"[a-z0-9]+", question.lower()) if analysis.analyze(w)]
    for word in words:
        if not frozenset(analysis.analyze(word)) & topic:
            continue
        if len(word) >= 4 and word[:5] in prefixes:
            return True
        if any(asks.fullmatch(word) and said.search(text) for asks, said in _OTHER_CUES):
            return True
    return False


def _names_data(texts: tuple[str, ...]) -> bool:
    """Whether a sentence speaking of data or experiments names one (a mixed-case or digit
    name, or a well-known benchmark) other than the paper's own method ("LLaGA")."""
    contribution = _counts(texts, _CONTRIBUTION)
    own = frozenset().union(*(_names_of_data(texts[i]) for i in np.flatnonzero(contribution)))
    return any(_DATA_EVIDENCE.search(text) and _names_of_data(text) - own for text in texts)


def _own_contribution(texts: Sequence[str]) -> int | None:
    """The first sentence stating the paper's own contribution ("In this paper, we propose
    X"), not one opening on earlier work."""
    return next(
        (
            index
            for index, text in enumerate(texts)
            if _CONTRIBUTION.search(text) and not _PRIOR.search(_opening(text))
        ),
        None,
    )


def _own_limitations(texts: tuple[str, ...]) -> npt.NDArray[np.float64]:
    """Whether each sentence states a limitation of the paper's own work: a limitation word
    or a hedge ("may introduce some training instability"), not in a limitation the paper
    overcomes ("To address these limitations, we ...") nor in a sentence opening on earlier
    work ("Previous methods are limited to ...")."""
    cue = np.minimum(_counts(texts, _CUES[QuestionType.LIMITATIONS]) + _counts(texts, _HEDGE), 1.0)
    overcomes = np.minimum(_counts(texts, _OVERCOMES), 1.0)
    prior = np.array([_PRIOR.search(_opening(text)) is not None for text in texts], float)
    own: npt.NDArray[np.float64] = cue * (1 - overcomes) * (1 - prior)
    return own


# The types the fitted scorer ranks sentences for; the weights file holds one block of
# feature weights shared by all of them and one block for each.
_SCORED = (
    QuestionType.DATASET,
    QuestionType.RESULT,
    QuestionType.METHOD,
    QuestionType.PROBLEM,
    QuestionType.LIMITATIONS,
    QuestionType.OTHER,
)
MODEL_PATH: Final = Path(__file__).with_name("paper_answers.json")
# Per-sentence features, in the order of `_sentence_features`' columns.
FEATURES: Final = (
    *(f"role_{role.value}" for role in ROLES),
    "position",
    "first",
    "second",
    "last",
    "length",
    *(f"cue_{kind.value}" for kind in _CUES),
    "strong_result",
    "problem_more",
    "gap",
    "contrast",
    "contribution",
    "points_back",
    "pointed_at",
    "details",
    "follows_contribution",
    "hedge",
    "overcomes",
    "headline",
    "aim",
    "number",
    "percent",
    "than",
    "own_word",
    "prior",
    "data_words",
    "data_evidence",
    "data_names",
    "after_contribution_hedge",
    "mechanism",
    "own_name_subject",
    "overlap_idf",
    "overlap_any",
    "overlap_best",
    "overlap_asked",
    "overlap_count",
    "overlap_prefix",
    "overlap_before",
    "overlap_after",
    "asked_cues",
    "numbers_asked",
    "details_asked",
    "gap_asked",
    "phrase_asked",
    "limit_asked",
    "own_contribution_asked",
    "mechanism_asked",
)
# Features of the "the abstract does not say" option, against the sentences.
NONE_FEATURES: Final = (
    "no_numbers_asked",
    "topic_absent",
    "no_data_evidence",
    "no_limit_cue",
    "asked_cue_found",
)


@dataclass(frozen=True)
class AnswerModel:
    """Fitted weights (benchmarks/fit_paper_answers.py). `weights` is (1 + len(_SCORED))
    blocks of `FEATURES` weights, the shared block first, then one per type; a question's
    sentence weights are the shared block plus its type's, or with `types` (the question-type
    classifier) the blocks mixed by its probabilities of the scored types. "The abstract does
    not say" scores the type's `none_bias` plus `none_weights` times `NONE_FEATURES`. A second
    sentence is shown when its probability is at least `second_share` of the best one's."""

    weights: npt.NDArray[np.float64]
    none_bias: npt.NDArray[np.float64]
    none_weights: npt.NDArray[np.float64]
    second_share: float
    types: TextClassifier | None = None

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> AnswerModel:
        data = json.loads(path.read_text())
        if tuple(data["features"]) != FEATURES or tuple(data["none_features"]) != NONE_FEATURES:
            raise ValueError(f"{path} was fitted on other features: refit it")
        return cls(
            weights=np.array(data["weights"], dtype=np.float64),
            none_bias=np.array(data["none_bias"], dtype=np.float64),
            none_weights=np.array(data["none_weights"], dtype=np.float64),
            second_share=float(data["second_share"]),
            types=question_type_model() if data["mixed_types"] else None,
        )

    def type_probabilities(self, question: str, kind: QuestionType) -> npt.NDArray[np.float64]:
        """How likely the question asks each of `_SCORED`: by `types`, or all on `kind` (also
        when there is no question: a compare's aspects ask each kind in turn)."""
        if self.types is None or not question.strip():
            return np.array([float(kind is scored) for scored in _SCORED])
        read = self.types.probabilities(question)
        chances = np.array([read[scored.value] for scored in _SCORED])
        total = float(chances.sum())
        return chances / total if total > 0 else np.full(len(_SCORED), 1.0 / len(_SCORED))

    def probabilities(
        self,
        types: npt.NDArray[np.float64],
        base: npt.NDArray[np.float64],
        none: npt.NDArray[np.float64],
    ) -> npt.NDArray[np.float64]:
        """Softmax over the sentences and, last, "the abstract does not say"."""
        logits = base @ (self.weights[0] + types @ self.weights[1:])
        return _softmax(np.append(logits, types @ self.none_bias + none @ self.none_weights))


def _softmax(logits: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    odds: npt.NDArray[np.float64] = np.exp(logits - logits.max())
    chances: npt.NDArray[np.float64] = odds / odds.sum()
    return chances


@functools.cache
def default_model() -> AnswerModel:
    return AnswerModel.load()


@lru_cache(maxsize=2048)
def _counts(texts: tuple[str, ...], pattern: re.Pattern[str]) -> npt.NDArray[np.float64]:
    """How often `pattern` occurs in each sentence, once per abstract and pattern."""
    return np.array([len(pattern.findall(text)) for text in texts], dtype=np.float64)


@lru_cache(maxsize=256)
def _abstract_features(texts: tuple[str, ...]) -> npt.NDArray[np.float64]:
    """The columns of `FEATURES` that do not depend on the question, once per abstract."""
    count = len(texts)

    def has(pattern: re.Pattern[str]) -> npt.NDArray[np.float64]:
        return np.minimum(_counts(texts, pattern), 1.0)

    def upto(pattern: re.Pattern[str], most: float) -> npt.NDArray[np.float64]:
        return np.minimum(_counts(texts, pattern), most) / most

    position = np.arange(count, dtype=np.float64)
    contribution = has(_CONTRIBUTION)
    points_back = has(_POINTS_BACK)
    first_contribution = int(np.argmax(contribution)) if contribution.any() else count
    own = frozenset().union(*(_names_of_data(texts[i]) for i in np.flatnonzero(contribution)))
    own_word = has(_OWN)
    details = has(_DETAILS)
    opening = np.array([_PRIOR.search(_opening(text)) is not None for text in texts], float)
    roles = _role_probabilities(texts).astype(np.float64)
    background = roles[:, ROLES.index(Role.BACKGROUND)]
    prior = (1 - own_word) * (1 - details) * np.maximum(opening, background > 0.5)
    hedge = has(_HEDGE)
    contrast = has(_CONTRAST)
    columns = [
        *roles.T,
        position / max(count - 1, 1),
        position == 0,
        position == 1,
        position == count - 1,
        np.array([np.log1p(len(text.split())) / 4 for text in texts]),
        *(upto(cue, 3.0) for cue in _CUES.values()),
        upto(_STRONG_RESULT, 2.0),
        upto(_PROBLEM_MORE, 2.0),
        has(_GAP),
        contrast,
        contribution,
        points_back,
        np.append(points_back[1:], 0.0),
        details,
        np.insert(contribution[:-1], 0, 0.0),
        hedge,
        has(_OVERCOMES),
        has(_HEADLINE),
        has(_AIM),
        has(_NUMBER),
        has(_PERCENT),
        has(_THAN),
        own_word,
        prior,
        upto(_DATA_WORDS, 2.0),
        has(_DATA_EVIDENCE),
        np.array([min(len(_names_of_data(text) - own), 2) / 2 for text in texts]),
        (position > first_contribution) * np.maximum(contrast, hedge),
        has(_MECHANISM),
        # "LLaGA achieves this by ...", "FT-PFN is a ... that leverages ...": the paper's own
        # named method as the subject, after the sentence that introduced it.
        np.array(
            [
                index > first_contribution and bool(_names_of_data(_opening(text)[:40]) & own)
                for index, text in enumerate(texts)
            ],
            dtype=np.float64,
        ),
    ]
    return np.column_stack(columns).astype(np.float64)


def _question_features(
    question: str,
    kind: QuestionType,
    sentences: Sequence[Sentence],
    texts: tuple[str, ...],
    wanted: frozenset[str],
    title: str,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The question's columns of `FEATURES` for each sentence, and the `NONE_FEATURES`."""
    count = len(texts)
    # Within the abstract, a word few sentences share says more about where the answer is;
    # a title word names the whole paper.
    title_terms = frozenset(analysis.analyze(title))
    present = [term for term in wanted if any(term in s.terms for s in sentences)]
    idf = {
        term: np.log((count + 1) / (0.5 + sum(term in s.terms for s in sentences)))
        * (0.5 if term in title_terms else 1.0)
        for term in present
    }
    total = sum(idf.values())
    overlap = np.array(
        [
            sum(w for t, w in idf.items() if t in s.terms) / total if total else 0.0
            for s in sentences
        ]
    )
    best = overlap == overlap.max() if overlap.max() > 0 else np.zeros(count)
    asked = _asked_words(question, wanted, sentences, title)
    asked_overlap = np.array(
        [min(sum(w for words, w in asked if words & s.terms), 3.0) / 3 for s in sentences]
    )
    extra = [said for asks, said in _OTHER_CUES if asks.search(question)]
    asked_cues = np.array(
        [min(sum(len(said.findall(text)) for said in extra), 2) / 2 for text in texts]
    )
    wants_numbers = _ASKS_NUMBERS.search(question) is not None
    asks_how = kind is QuestionType.METHOD and _HOW.search(question) is not None
    asks_gap = _ASKS_GAP.search(question) is not None
    heads = [match.group(1) for match in _KEY_PHRASE.finditer(question)]
    said_as = (
        re.compile(r"\b(?:key|main|core|central|primary) (?:" + "|".join(heads) + r")", re.I)
        if heads
        else None
    )
    generic_limits = _GENERIC_LIMITS.search(question) is not None
    numbers = np.minimum(_counts(texts, _NUMBER), 1.0)
    limits = _own_limitations(texts)
    own = _own_contribution(texts)
    # A method question naming nothing of its own ("what do they propose?") and the paper's
    # own contribution sentence.
    generic = kind is QuestionType.METHOD and not frozenset(_topic(question, kind)) - title_terms
    cued = any(asks.search(question) and said.search(" ".join(texts)) for asks, said in _OTHER_CUES)
    # Words sharing their first five letters ("params", "parameters"), weighted alike.
    asked_prefixes = {
        word[:5]
        for word in re.findall(r"[a-z0-9]{4,}", question.lower())
        if not frozenset(analysis.analyze(word)) <= _QUESTION_TERMS
    }
    prefixes = [
        {word[:5] for word in re.findall(r"[a-z0-9]{4,}", text.lower())} & asked_prefixes
        for text in texts
    ]
    prefix_idf = {
        prefix: np.log((count + 1) / (0.5 + sum(prefix in found for found in prefixes)))
        for prefix in set().union(*prefixes)
    }
    prefix_total = sum(prefix_idf.values())
    prefix_overlap = np.array(
        [
            sum(prefix_idf[p] for p in found) / prefix_total if prefix_total else 0.0
            for found in prefixes
        ]
    )
    columns = [
        overlap,
        overlap > 0,
        best,
        asked_overlap,
        np.array([min(len(wanted & s.terms), 3) / 3 for s in sentences]),
        prefix_overlap,
        np.insert(overlap[:-1], 0, 0.0),
        np.append(overlap[1:], 0.0),
        asked_cues,
        numbers * wants_numbers,
        np.minimum(_counts(texts, _DETAILS), 1.0) * asks_how,
        np.minimum(_counts(texts, _GAP), 1.0) * asks_gap,
        np.array([bool(said_as and said_as.search(text)) for text in texts]),
        limits * generic_limits,
        np.arange(count) == (own if generic and own is not None else -1),
        np.minimum(_counts(texts, _MECHANISM), 1.0) * asks_how,
    ]
    none = np.array(
        [
            wants_numbers and not numbers.any(),
            bool(wanted) and not present,
            not _counts(texts, _DATA_EVIDENCE).any(),
            not limits.any(),
            cued,
        ],
        dtype=np.float64,
    )
    return np.column_stack(columns).astype(np.float64), none


def features(
    question: str,
    kind: QuestionType,
    abstract: str,
    title: str = "",
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """`FEATURES` of each sentence of `abstract` for `question` (one row a sentence), and the
    `NONE_FEATURES`: what the scorer and its fitter both compute."""
    sentences, texts, _ = _read(abstract)
    wanted = frozenset(analysis.analyze(question)) - _QUESTION_TERMS
    asked, none = _question_features(question, kind, sentences, texts, wanted, title)
    return np.hstack([_abstract_features(texts), asked]), none


def _ranked(
    kind: QuestionType,
    question: str,
    abstract: str,
    title: str = "",
    model: AnswerModel | None = None,
    *,
    may_be_unsaid: bool = True,
) -> list[tuple[float, int]]:
    """(probability, index) of the sentences more likely to answer a question of `kind` than
    "the abstract does not say" (when `may_be_unsaid`), best first. Where the code is answers
    only a code question."""
    _, texts, _ = _read(abstract)
    if not texts:
        return []
    model = model or default_model()
    base, none = features(question, kind, abstract, title)
    chances = model.probabilities(model.type_probabilities(question, kind), base, none)
    available = _counts(texts, _AVAILABILITY)
    unsaid = chances[-1] if kind in MAY_BE_UNSAID and may_be_unsaid else 0.0
    found = [
        (float(chance), index)
        for index, chance in enumerate(chances[:-1])
        if chance > unsaid
        and not (kind in _NOT_AVAILABILITY and available[index])
        and len(texts[index].split()) >= _SHORTEST
    ]
    return sorted(found, key=lambda item: (-item[0], item[1]))


def _asked_words(
    question: str, wanted: frozenset[str], sentences: Sequence[Sentence], title: str
) -> list[tuple[frozenset[str], float]]:
    """The question's words that pick sentences, each once ("CyberGym-E2E" is one word, not
    three terms), with its weight: half for a word the title has or most sentences share,
    which names what the whole paper is about rather than where the answer is; double for
    what the paper is compared with ("faster than Transformer-based models")."""
    title_terms = frozenset(analysis.analyze(title))
    found: list[tuple[frozenset[str], float]] = []
    against = _COMPARED_WITH.search(question)
    compared = against.end() if against else len(question) + 1
    for start, _, terms in analysis.word_terms(question):
        # A compound counts by its joined form ("RepQ-ViT", not every "ViT").
        words = frozenset(terms[:1] if terms and terms[0] in wanted else terms) & wanted
        if not words:
            continue
        sharing = sum(bool(sentence.terms & words) for sentence in sentences)
        common = bool(words & title_terms) or sharing * 2 > len(sentences)
        # What it is compared with ("better than RepQ-ViT") picks the answer: double.
        weight = 0.5 if common else 2.0 if start >= compared else 1.0
        found.append((words, weight))
    return found


_CAPITALISED_NAME = re.compile(r"\b[A-Z][A-Za-z]*[A-Z0-9][\w\-]*")


@lru_cache(maxsize=4096)
def _names_of_data(text: str) -> frozenset[str]:
    """Names in a sentence that may be data sets or benchmarks: mixed case or digits
    ("MiniHack", "CIFAR-10"), or well-known benchmarks ("Procgen"), chat acronyms left out."""
    found = {
        match.group().lower()
        for match in _CAPITALISED_NAME.finditer(text)
        if match.group().lower().rstrip("s") not in _NOT_NAMES
    }
    found |= {
        word.lower()
        for word in re.findall(r"[A-Za-z][\w\-]*", text)
        if word.lower() in _KNOWN_NAMES
    }
    return frozenset(found)


def _own_role(text: str, role: Role) -> Role:
    """The role, except that a "background" sentence saying "we ..." or "in this paper"
    is about the paper's own aim, and one detailing a method ("Specifically, ...", "The key
    idea behind this improvement is ...") is method."""
    if role is Role.BACKGROUND and _DETAILS.search(text) is not None:
        return Role.METHOD
    if role is Role.BACKGROUND and _OWN.search(text) is not None:
        return Role.OBJECTIVE
    return role


def _opening(text: str) -> str:
    """The first few words of a sentence, where its subject usually is."""
    return " ".join(text.split()[:_SUBJECT_WORDS])


def _summary(
    abstract: str, texts: Sequence[str], roles: Sequence[Role], model: AnswerModel
) -> list[int]:
    """At most three sentences, in abstract order: what the paper sets out to do (or the
    problem it takes on), how (its method) and what it finds (its result)."""
    if len(texts) <= 3:
        return list(range(len(texts)))

    def best(kind: QuestionType, taken: Sequence[int], before: int | None = None) -> int | None:
        ranked = _ranked(kind, "", abstract, model=model)
        return next(
            (i for _, i in ranked if i not in taken and (before is None or i < before)), None
        )

    method = best(QuestionType.METHOD, ())
    picks = [] if method is None else [method]
    result = best(QuestionType.RESULT, picks)
    if result is not None:
        picks.append(result)
    first = min(picks, default=len(texts))
    # The aim: the first sentence where the paper says what it does (its own objective, "in
    # this paper", or its contribution: "we introduce X", which the role model may read as
    # method), if before the method; otherwise the problem it takes on.
    aims = [
        i
        for i in range(first)
        if (
            _own_role(texts[i], roles[i]) is Role.OBJECTIVE
            or _AIM.search(texts[i])
            or _CONTRIBUTION.search(texts[i])
        )
        and not _GAP.search(texts[i])
    ]
    aim = aims[0] if aims else best(QuestionType.PROBLEM, picks, before=first)
    if aim is not None:
        picks.append(aim)
    return sorted(picks)


@lru_cache(maxsize=256)
def _read(abstract: str) -> tuple[tuple[Sentence, ...], tuple[str, ...], tuple[Role, ...]]:
    """An abstract's sentences, their text and their roles, once per abstract (a comparison
    asks three questions of each paper)."""
    clean, sentences = analyse(abstract)
    texts = tuple(clean[s.start : s.end] for s in sentences)
    return sentences, texts, tuple(sentence_roles_from(_role_probabilities(texts)))


@lru_cache(maxsize=256)
def _role_probabilities(texts: tuple[str, ...]) -> npt.NDArray[np.float32]:
    """The role model's probabilities, once per abstract: the roles and the scorer's features
    both read them."""
    found = sentence_role_probabilities(texts)
    found.setflags(write=False)  # shared by every caller through the cache
    return found


_ASPECTS = (QuestionType.METHOD, QuestionType.DATASET, QuestionType.RESULT)


def aspects(abstract: str) -> Aspects:
    """What a paper proposes, is evaluated on and finds: one sentence each, a different one
    for each aspect (None where the abstract does not say)."""
    _, texts, _ = _read(abstract)
    ranked = [_ranked(kind, "", abstract)[:4] for kind in _ASPECTS]
    # The distinct sentences with the highest total score; ties go to earlier sentences.
    best: tuple[float, tuple[int | None, ...]] = (0.0, (None, None, None))
    options = [[*found, (0.0, None)] for found in ranked]
    for choice in itertools.product(*options):
        picked = [index for _, index in choice if index is not None]
        if len(set(picked)) < len(picked):
            continue
        total = sum(score for score, _ in choice)
        if total > best[0]:
            best = (total, tuple(index for _, index in choice))
    found = [
        None if index is None else _marked(texts[index], kind, frozenset())
        for kind, index in zip(_ASPECTS, best[1], strict=True)
    ]
    return Aspects(found[0], found[1], found[2])


# Names in a question that are a paper's own words when the abstract has them: mixed case or
# digits ("ImageNet", "GPT-4", "CIFAR-10"), or well-known benchmarks typed in lower case.
# A name starts a word: "3x3" holds no name "x3".
_NAME = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*")
_KNOWN_NAMES = {
    name.lower(): name
    for name in [
        "ImageNet",
        "MNIST",
        "CIFAR",
        "COCO",
        "SQuAD",
        "GLUE",
        "SuperGLUE",
        "MMLU",
        "HumanEval",
        "Atari",
        "MuJoCo",
        "WikiText",
        "LibriSpeech",
        "LAION",
        "Cityscapes",
        "ShapeNet",
        "ScanNet",
        "KITTI",
        "nuScenes",
        "Waymo",
        "PubMed",
        "Wikipedia",
        "ArXiv",
        "OpenWebText",
        "BookCorpus",
        "HellaSwag",
        "TruthfulQA",
        "BIG-Bench",
        "Procgen",
        "Minecraft",
        "CelebA",
        "FFHQ",
        "LSUN",
        "Places365",
        "VQA",
        "WMT",
        "OGB",
        "ZINC",
        "QM9",
    ]
}
# Upper-case words a chat message uses that are not names to look for.
_NOT_NAMES = frozenset(
    [
        "tl",
        "dr",
        "tldr",
        "sota",
        "eli5",
        "ai",
        "ml",
        "nlp",
        "cv",
        "rl",
        "llm",
        "llms",
        "lm",
        "lms",
        "gpu",
        "gpus",
        "cpu",
        "cpus",
        "nn",
        "dnn",
        "cnn",
        "cnns",
        "gnn",
        "gnns",
        "rnn",
        "rnns",
        "vlm",
        "vlms",
        "api",
        "apis",
        "faq",
        "id",
        "ok",
        "pdf",
        "url",
        "i",
        "ii",
        "iii",
        "iv",
        "vs",
        "etc",
    ]
)


def missing_names(question: str, text: str) -> list[str]:
    """Names the question asks about ("is it evaluated on ImageNet?") that `text` never
    mentions, spelled as the question has them (known benchmarks in their usual case)."""
    flat = re.sub(r"[^a-z0-9]", "", text.lower())
    words = re.findall(r"[a-z0-9]+", text.lower())
    # The first letters of the words in order: an acronym is there when its long form is.
    initials = "".join(word[0] for word in words)
    written = frozenset(words)
    missing: list[str] = []
    for match in _NAME.finditer(question):
        word = match.group()
        lower = word.lower()
        if lower in _NOT_NAMES or re.fullmatch(r"[a-z]+\d{4}-\d+", lower):
            continue
        inner_capital = any(character.isupper() for character in word[1:])
        has_digit = any(character.isdigit() for character in word)
        known = lower.rstrip("s") in _KNOWN_NAMES or lower in _KNOWN_NAMES
        if not (inner_capital or has_digit or known) or len(word) < 2:
            continue
        if has_digit and not any(character.isalpha() for character in word):
            continue
        key = re.sub(r"[^a-z0-9]", "", lower)
        if key in flat or (key.endswith("s") and key[:-1] in flat):
            continue
        # "SPA-FTRL" where it writes "the SPA learning rate for FTRL"; "V-DETR" where it writes
        # "DETR" (a one-letter prefix names the paper's variant, which the title alone may say).
        pieces = re.findall(r"[a-z0-9]+", lower)
        parts = [piece for piece in pieces if len(piece) > 1]
        if len(pieces) > 1 and parts and all(part in written for part in parts):
            continue
        acronym = key.rstrip("s")
        if word.rstrip("s").isupper() and len(acronym) >= 2 and acronym in initials:
            continue  # "MMD" for "maximum mean discrepancy"
        shown = _KNOWN_NAMES.get(lower, word) if not inner_capital else word
        if shown not in missing:
            missing.append(shown)
    return missing


# "does it work on llama?", "is it trained with ppo", "how is it different from dpo": a
# question whether the paper does something with a named thing, the thing after the verb.
_ASKS_WHETHER = re.compile(
    r"^\W*(?:so |and |but |wait |hm+ |ok )?(?:does|do|did|is|are|was|were|can|could|will|has"
    r"|have)\s+(?:it|they|this|the (?:paper|method|model|approach|authors))\s+(?:\w+\s+){0,2}?"
    r"(?:on|use|uses|using|with|need|needs|require|requires|beat|beats|outperform|outperforms"
    r"|handle|handles|support|supports|work on|apply to|rely on)\s+(?P<thing>[^?]+?)\s*\??\s*$"
    r"|\b(?:different from|differ from|compared? (?:to|with)|versus)\s+(?P<other>[^?]+?)\s*\??\s*$",
    re.IGNORECASE,
)
# What every abstract implies without naming it: no sign the thing asked about is absent.
_GENERIC = frozenset(
    analysis.analyze(
        "baseline baselines sota state art previous prior best existing other others standard "
        "method methods approach approaches model models numbers number data real world "
        "experiments results theory practice training train performance accuracy "
        "a an the any some all their its them"
    )
)


def unmentioned(question: str, text: str) -> str | None:
    """What a question asks the paper does something with ("does it work on llama?" ->
    "llama") when `text` names none of its words: the answer is that the abstract does not
    mention it, whatever the closest sentence says. None when it names any of them, or the
    question asks no such thing, or only about what every paper has (baselines, data)."""
    match = _ASKS_WHETHER.search(question.strip())
    if match is None:
        return None
    thing = match.group("thing") or match.group("other") or ""
    # "any real dataset or is it pure theory": the thing, not the second question.
    thing = re.split(r",|\s+or\s+(?=(?:is|are|does|do|did|was|were|just)\b)", thing)[0]
    words = [term for term in analysis.analyze(thing) if term not in _GENERIC]
    if not words or len(words) > 4:
        return None
    held = frozenset(analysis.analyze(text))
    if any(word in held for word in words):
        return None
    return re.sub(r"^(?:a|an|the|any)\s+", "", thing.strip(), flags=re.IGNORECASE)


# Words of a question that say what kind of answer it wants rather than what to look for.
_QUESTION_TERMS = frozenset(
    analysis.analyze(
        "what which how does do did is are the main result results dataset datasets data set "
        "benchmark benchmarks evaluate evaluated method approach problem propose paper it this "
        "show work use key idea limitation limitations code get where find much many better "
        "need needs does do make makes take takes give gives have has "
        "report reports reported mention mentions discuss discusses talk say says state states "
        "use uses used evaluation evaluations "
        # chat filler: no topic
        "like kind sort thing things stuff actually basically exactly really just so pls please "
        "tbh lol ok okay hey guys"
    )
)


def _marked(sentence: str, kind: QuestionType, wanted: frozenset[str]) -> Excerpt:
    """`sentence` with its cue words for `kind` and the question's own words marked."""
    marks: list[tuple[int, int]] = []
    cue = _CUES.get(kind)
    if cue is not None:
        marks += [match.span() for match in cue.finditer(sentence) if match.group().strip()]
    marks += [(start, end) for start, end, term in analysis.word_spans(sentence) if term in wanted]
    spans: list[Span] = []
    position = 0
    for start, end in sorted(marks):
        if start < position:
            continue
        if start > position:
            spans.append(Span(sentence[position:start]))
        spans.append(Span(sentence[start:end], match=True))
        position = end
    if position < len(sentence):
        spans.append(Span(sentence[position:]))
    return Excerpt(tuple(spans))
