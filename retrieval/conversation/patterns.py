"""The chat rules about form, as data: positions, the focus, show verbs, definitions, filler.

What a message asks for is the classifier's (`classifier.py`); these rules only read what it
points at and take politeness out. Whole-message patterns are matched against a *folded* message
(NFKC, lowercase, spaces collapsed, outer punctuation and politeness removed; see
`intents.fold`). Patterns hold no nested repetition, and whole-message rules only run on messages
of at most `MAX_CHAT_CHARS` characters, so no input can make them backtrack for long.
`tests/retrieval/conversation/test_patterns.py` checks that every rule matches its own examples.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rule:
    """One whole-message rule: `pattern.fullmatch(folded)` decides; `examples` must match."""

    name: str
    pattern: re.Pattern[str]
    examples: tuple[str, ...]


def words(block: str) -> frozenset[str]:
    return frozenset(block.split())


def _rule(name: str, pattern: str, *examples: str) -> Rule:
    return Rule(name, re.compile(pattern, re.IGNORECASE), examples)


# Longer messages are never chit-chat, help or a follow-up: they are searched.
MAX_CHAT_CHARS = 160

# An id alone or after a verb: "paper icml2026-13", "show ICML2026-07", "open icml2026 13".
SHOW_VERB = re.compile(
    r"^(?:(?:please |can you |could you )?(?:show(?: me)?|open|paper|get|view|display|fetch"
    r"|details(?: (?:for|of|on))?|abstract(?: (?:for|of))?|tell me (?:more )?about|more about"
    r"|more on|info(?: (?:on|about|for))?|look up|lookup|what about|how about|and"
    r"|what(?:'s| is| was)|go to|take me to|read)(?: the)? )"
)

# Ordinal words -> 0-based positions; "last" is -1 (counted from the end).
ORDINALS: dict[str, int] = {
    "first": 0,
    "1st": 0,
    "second": 1,
    "2nd": 1,
    "third": 2,
    "3rd": 2,
    "fourth": 3,
    "4th": 3,
    "fifth": 4,
    "5th": 4,
    "sixth": 5,
    "6th": 5,
    "seventh": 6,
    "7th": 6,
    "eighth": 7,
    "8th": 7,
    "ninth": 8,
    "9th": 8,
    "tenth": 9,
    "10th": 9,
    "last": -1,
    "final": -1,
    "penultimate": -2,
    "second last": -2,
    "second to last": -2,
}
COUNTS: dict[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "both": 2,
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
}
# A number written out, alone as a message after a list: "two" is the second result.
SPELLED: dict[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_ORDINAL = "|".join(sorted((re.escape(word) for word in ORDINALS), key=len, reverse=True))
_COUNT = "|".join(re.escape(word) for word in COUNTS if word != "both")
_NOUN = r"(?:one|ones|paper|papers|result|results|article|abstract|hit|entry|item|link)"

# A position as a whole message (after a show verb is removed): "the second one", "#3", "2".
POSITION = _rule(
    "position",
    r"(?:the )?(?P<ord>" + _ORDINAL + r")(?: (?P<count>" + _COUNT + r"))?(?: " + _NOUN + r")?"
    r"|(?:#|no\.? ?|number |num |n[or]\.? ?|result |paper |item |option |entry )(?P<num>\d{1,3})"
    r"|(?P<bare>\d{1,2})(?:\.|\))?|(?P<spelled>"
    + "|".join(SPELLED)
    + r")|(?P<both>both)(?: of them)?|(?:them|these|those)(?: two)?"
    r"|(?:the |these |those )?(?:top|first) (?P<topn>\d{1,2})",
    "the second one",
    "#3",
    "number 2",
    "the last one",
    "the first two",
    "2",
    "two",
    "second",
    "the 3rd paper",
    "both",
    "top 3",
)
# A position inside a sentence: "does the second one have code?", "what does #2 use?".
POSITION_IN_TEXT = re.compile(
    r"(?<![\w#])(?:(?:the )?(?P<ord>"
    + _ORDINAL
    + r")(?: (?P<count>"
    + _COUNT
    + r"))? "
    + _NOUN
    + r"|(?:#|number |no\. ?)(?P<num>\d{1,3})|(?:paper|result) (?P<num2>\d{1,2})"
    + r"|the (?P<ord_end>"
    + _ORDINAL
    + r")(?=\s*[?.!]*$)"  # "the github for the 3rd?"
    # "which one has code?", "does any of them use ImageNet?": every result shown.
    r"|(?P<all>which one|which of (?:them|these|those|the (?:papers|results|ones))"
    r"|(?:any|all|each|none|either) of (?:them|these|those|the (?:papers|results|ones)))"
    r")(?!\w)"
    # "the first paper to use RLHF" is a search, not a position.
    r"(?! (?:on|about|to|that|which|who|for|in|of|with|using|where|ever)\b)",
    re.IGNORECASE,
)

# The paper in focus as a whole message: "it", "that paper", "this one".
FOCUS = _rule(
    "focus",
    r"(?:it|this|that|that one|this one|that paper|this paper|the paper|that abstract"
    r"|this abstract|the abstract|the same one|same one|its abstract|the one|that result)",
    "it",
    "that paper",
    "this one",
)
# The paper in focus inside a question. Bare "it" only in shapes that point at a paper
# ("does it have code", "what does it use", "... about it"), so "is it possible to ..." is a
# search.
FOCUS_IN_TEXT = re.compile(
    # "the method of icml2026-3": the noun belongs to what follows, not to the paper in focus.
    r"(?<!\w)(?:(?:this|that|the) (?:paper|one|abstract|work|study|method|approach|model)"
    r"(?! (?:of|in|from|behind) )"
    r"|(?<= )it(?=\s*[?.!]*$)"  # "summarize it", "who wrote it?"
    r"|(?:does|did|do|can|could|will|would) it(?= (?:have|has|use|report|provide|release|include"
    r"|come|compare|mention|evaluate|show|propose|claim|work|beat|outperform|cite|need|require"
    r"|support|train|run|say|do|test|measure|apply|achieve|address|handle|solve|study|focus|target"
    r"|introduce|describe|discuss|rely|depend))"
    r"|(?:about|of|from|for|in|on|with) it(?=\s*\??$)|its (?:code|github|repo|data|dataset|datasets"
    r"|results?|method|approach|model|contribution|contributions|main|key|authors?|abstract|idea"
    r"|limitations?|baselines?|benchmarks?|findings?|setup|architecture|license|title|venue"
    r"|takeaway)"
    r"|is it (?:open|peer|published|available|about|on|free|good|new|recent|reproducible))(?!\w)",
    re.IGNORECASE,
)

# Leaving: "bye", "goodbye", "see you later", "quit". Sets `Intent.farewell` (the console ends).
FAREWELL = _rule(
    "farewell",
    r"(?:(?:thanks|thank you|thx|ty|ok(?:ay)?|cool)[ ,!.]+)?"
    r"(?:bye+|bye[- ]bye|good ?bye|goodnight|good night|see (?:you|ya|u)(?: later| soon| around"
    r"| tomorrow)?|cya|later|take care|ciao|farewell|gotta go|got to go|g2g|gtg"
    r"|i'?m (?:done|off|leaving|out)|that'?s all(?: for)?(?: (?:now|today))?|quit|exit)"
    r"(?:[ ,!.]+(?:now|then|for now|for today|paperbot|bot|all|everyone))?",
    "bye",
    "goodbye",
    "good bye",
    "see you later",
    "that's all for now",
    "quit",
    "bye paperbot",
    "thx bye",
    "thanks, goodbye",
)

# A list length, not a position: "show me 10 results", "top 5", "list 8 papers", "5 more".
# `top` without a noun is a list only past one page: "top 3" opens the first three papers.
# `more` / `next` mark the next results rather than the list again from the top.
LIST_LENGTH = _rule(
    "list_length",
    r"(?:(?:show|give|list|get|display|see|want)(?: me| us)? )?(?:(?:like|about|maybe) )?"
    r"(?:the )?"
    r"(?:(?:top|first|best) (?P<top>\d{1,3})(?: (?:results?|papers?|hits|ones|matches))?"
    r"|(?P<count>\d{1,3}) (?P<more>more )?(?:results?|papers?|hits|ones|matches)"
    r"|(?P<next>\d{1,3}) more)"
    # "15 papers on that": the same question, not a topic of its own.
    r"(?: (?:on|about|for|of|like) (?:that|this|it|these|those|them))?",
    "show me 10 results",
    "give me like 15 papers on that",
    "show me 15 papers on this",
    "top 5",
    "list 8 papers",
    "give me 5 more",
    "5 more results",
    "the first 10 results",
)

# Back to the list shown before the current one: "go back", "previous list", "undo".
BACK = _rule(
    "back",
    r"(?:go |take me |get )?back to (?:the |my )?(?:previous|last|earlier|old|other|original)"
    r"(?: (?:list|results?|search|query|page|answer))?"
    r"|(?:go |take me |get )?back to (?:the |my )?first (?:list|results|search|query)"
    r"|(?:go|take me|get) back"
    r"|(?:(?:show|open)(?: me)? )?(?:the )?(?:previous|earlier) (?:list|results|search|query)"
    r"|undo",
    "go back",
    "go back to the previous list",
    "previous results",
    "back to the earlier search",
    "back to the first list",
    "undo",
)

# Accepting a "Did you mean …?": the suggested question is searched (`ConversationState.suggested`).
YES = _rule(
    "yes",
    r"(?:yes+|yeah|yep|yup|ya|y|sure|ok(?:ay)?|correct|right|exactly|that one|that'?s it"
    r"|that'?s (?:what i meant|right|correct)|i did|(?:yes|yeah|yep),? (?:that|please|pls|i did))",
    "yes",
    "yep",
    "sure",
    "yes please",
    "that's what I meant",
)

# Words asking for code: sets `Intent.wants_code`.
WANTS_CODE = re.compile(
    r"(?<!\w)(?:code|github|gitlab|repo|repository|repositories|implementation|source"
    r"|open[- ]?sourced?|codebase|huggingface|hugging face|weights|checkpoints?)(?!\w)",
    re.IGNORECASE,
)

# "what is DRIFT?", "what's RLHF", "define MoE", "what does RAG stand for": a search for the
# term; `Intent.defines` tells the shell to lead with the best sentence defining it.
DEFINITION = _rule(
    "definition",
    r"(?:what(?:'s| is| are)|define|definition of|meaning of|who is) (?:an? |the )?"
    r"(?P<term>[^\s?]{1,40}(?: [^\s?]{1,40}){0,3})"
    r"|what does (?P<term2>[^\s?]{1,40}(?: [^\s?]{1,40}){0,2}) (?:stand for|mean)",
    "what is DRIFT",
    "what's rlhf",
    "define moe",
    "what does rag stand for",
    "what are lora adapters",
)

# Leading words dropped before a search: a greeting in front of a real question
# ("hi, papers on RLHF"), but never "hi-res" or "thanks to attention".
LEADING_GREETING = re.compile(
    r"^(?:hi+|hello+|hey+|yo|hiya|gm|good (?:morning|afternoon|evening))"
    r"(?: (?:there|all|everyone|paperbot|bot))?"
    r"(?:[,!.:;]+ ?| (?=paperbot\b)|\s+(?=(?:can|could|what|which|who|where|how|any|are|is"
    r"|do|does|find|show|search|give|list|i|please)\b))",
    re.IGNORECASE,
)
# Politeness and filler around a chat message (not around a search: those words are harmless).
OUTER_FILLER = re.compile(
    r"^(?:(?:please|pls|plz|ok(?:ay)?|so|and|also|now|then|well|um+|uh+)[, ]+"
    # "thanks, more like the first one": chit-chat in front, only when punctuated.
    r"|(?:thanks|thank you|ty|thx|cool|nice|great|perfect|awesome|hi|hello|hey)[,!.]+ ?){0,3}"
)
# A short question weighing the papers just compared: "which is better?", "which one is faster",
# "which of them performs best". Never "which papers ...": that is a search.
WHICH_OF_THEM = _rule(
    "which_of_them",
    r"which(?: one| of (?:them|the two|these|those|both|the three))?"
    r"(?: is| was| has| does| did| performs?| works?| scores?| wins?| gets?| looks?| seems?)"
    r"(?: \w+){1,4}",
    "which is better",
    "which one is faster",
    "which of them performs best",
    "which is newer",
)
# Taking back what was just asked: "never mind, I meant X", "scratch that - X", "no wait, make
# it icml", "actually forget that, show me X". The rest is the message; these words never are.
CORRECTION_LEAD = re.compile(
    r"^(?:(?:no+|nah|oh|oops|sorry|actually|ok(?:ay)?|so|hmm+|ugh)[ ,!.]+)*"
    r"(?:(?:never ?mind|nvm|scratch that|forget (?:that|it|this)|ignore (?:that|this)|"
    r"wait[,!.]|let me rephrase|correction:?|i meant|i mean"
    # "new question: ...", "different topic - ...": what follows is a message of its own.
    r"|(?:new|next|another|different|unrelated|other) (?:question|topic|thing|search)"
    r" ?[:,!.\u2013\u2014-])"
    r"(?:[ ,!.:;]|[-\u2013\u2014]+)*)+",
    re.IGNORECASE,
)
# Asking for a person's papers: lists are searched by their abstracts, not by author.
BY_AUTHOR = _rule(
    "by_author",
    r"(?:(?:show me|find|list|any|all|more|other|the) )*(?:papers?|work|works|publications?"
    r"|anything|stuff)(?: (?:written|authored|published))? by (?P<name>{name})"
    r"|(?:written|authored) by (?P<name2>{name})".format(
        # One to four words of a name; "work by hinton on capsules" names a topic too.
        name=r"(?!(?:on|about|in|for|at|with|from)\b)[a-z][\w'.-]*"
        r"(?: (?!(?:on|about|in|for|at|with|from)\b)[a-z][\w'.-]*){0,3}"
    ),
    "papers by tri dao",
    "any work by yoshua bengio",
    "show me papers written by hinton",
)
# A chit-chat clause in front of a request ("ok cool, anything on mamba?", "thanks! now the
# iclr ones"): only words of reaction, ended by punctuation. The rest is read on its own.
CHIT_CHAT_LEAD = re.compile(
    r"^(?:(?:ok(?:ay)?|k|cool|nice|great|neat|perfect|awesome|wow|lol|haha+|hmm+|oh|ah|"
    r"yeah|yep|yes|alright|sure|interesting|thanks|thank you|ty|thx|got it|good|sweet|"
    r"hi|hello|hey|so|and|well|right)[ ,!.]*)+[,!.]\s*",
    re.IGNORECASE,
)
TRAILING_FILLER = re.compile(
    r"(?:[, ]+(?:please|pls|plz|thanks|thank you|ty|thx|then|now|too|again))+$"
)

# Venue words that make "<venue> <year>" a collection name even when no such collection is
# loaded (it then becomes `Intent.unknown_collection`). Loaded collections match by themselves.
KNOWN_VENUES: frozenset[str] = words(
    """
    icml iclr neurips nips acl emnlp naacl eacl coling cvpr iccv eccv wacv bmvc aaai ijcai kdd
    www sigir cikm wsdm recsys colt aistats uai corl rss icra iros interspeech icassp tacl jmlr
    tmlr colm miccai siggraph chi uist facct icde vldb sigmod lrec conll iclr aacl
    mlsys isca asplos osdi sosp nsdi usenix ccs ndss ecir ecml pkdd ijcnn icpr midl
    acml ictai icdm sdm
    """
)
# A loaded collection named without a year ("SciFact") is a filter only next to one of these:
# "in SciFact, ...", "SciFact papers on ...". Otherwise it is an ordinary word.
COLLECTION_NOUN_AFTER = re.compile(
    r"\s(?:papers?|abstracts?|collection|articles?|claims)\b", re.IGNORECASE
)
# Words around a collection phrase that only say where: removed with the phrase.
COLLECTION_BEFORE = re.compile(r"\b(?:in|at|from|of|for|on|during)\s(?:the\s)?$", re.IGNORECASE)
COLLECTION_AFTER = re.compile(
    r"(?:'s|’s)?(?:\s+(?:conference|proceedings|accepted|main track))?"
    r"(?:\s+(?:publish|published|publishes|accept|accepted|accepts|present|presented|have|has))?"
    r"[,:;]?",
    re.IGNORECASE,
)
