"""Words the analyzer drops: English function words and the scaffolding of questions.

Both lists are checked against the lowercased surface word *before* stemming, with apostrophes
removed ("don't" -> "dont"), so dropping "related" does not drop "relation" (both stem to "relat").
Changing either list changes index terms: bump `retrieval.text.ANALYZER_VERSION`.
"""

from __future__ import annotations


def _words(block: str) -> frozenset[str]:
    return frozenset(block.split())


# The snowball/NLTK English list, minus words that carry meaning in ML compounds and questions:
# "few" (few-shot), "off" (off-policy), "self" is not in the list anyway. Contraction fragments
# are listed without apostrophes because the analyzer removes them first; ones that are also
# words ("id" as in ID/OOD, "shell", "ill") are left out.
ENGLISH: frozenset[str] = _words(
    """
    a about above after again against all am an and any are arent as at
    be because been before being below between both but by
    can cannot cant could couldnt
    did didnt do does doesnt doing dont down during
    each either
    for from further
    had hadnt has hasnt have havent having he hes her here heres hers herself him
    himself his how hows
    i im ive if in into is isnt it its itself
    lets
    me more most mustnt my myself
    no nor not now
    of on once only or other ought our ours ourselves out over own
    same shant she shes should shouldnt so some such
    than that thats the their theirs them themselves then there theres these they theyd
    theyll theyre theyve this those through to too
    under until up
    very
    was wasnt we well were weve werent what whats when whens where wheres which while who
    whos whom why whys will with wont would wouldnt
    you youd youll youre youve your yours yourself yourselves
    also however thus hence whether within without upon via yet may might must shall
    et al etc eg ie cf vs
    http https www com org html
    """
)

# Question scaffolding that is also filler in abstracts ("In this paper/work, we propose ...").
# Content words such as "model", "method", "approach", "attack" and "study" stay searchable.
SCAFFOLDING: frozenset[str] = _words(
    """
    paper papers article articles publication publications work works research
    anything something everything anyone someone
    show shows showing shown find finds finding
    look looking want wanted tell know please give list
    related regarding concerning
    propose proposes proposed proposing
    """
)

STOPWORDS: frozenset[str] = ENGLISH | SCAFFOLDING
