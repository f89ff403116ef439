"""Write the TRAINING set of the chat-intent classifier: benchmarks/data/intents_train.jsonl.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/intent_data.py \
        [--abstracts ../shared/data/conference_abstracts] \
        [--out benchmarks/data/intents_train.jsonl]

One `{"text": ..., "intent": ...}` per line, with exactly these labels: greeting, thanks,
small_talk, help, open, similar, more, question, compare, refine, search (see `INTENTS`).

How it is written (issue 24), deterministic for a given abstracts folder (`SEED`, sorted inputs):

1. Hand-written messages per intent, kept in this file as plain blocks (`HAND`), written to be
   varied rather than to match `retrieval/conversation/patterns.py`: paraphrases, slang, typos,
   indirect requests, and searches that contain the words of other intents ("help vectors for
   steering", "more efficient attention", "thanks to scaling laws", "open-set recognition").
2. Slot templates (`TEMPLATES`) filled with paper ids in many spellings ("icml2024-55",
   "ICML 2026 #13", "neurips23-1200"), positions as words and digits ("the fifth one", "#12",
   "number three", "the one before that"), collections and their short forms ("icml 24",
   "NeurIPS", "iclr'24"), and topics taken from the conference titles in `--abstracts`: whole
   titles, the part after "NAME:", two-to-three word keyword queries, and questions such as
   "which ICML 2026 papers <verb> <topic>?". Each template gives at most `TEMPLATE_CAP`
   messages, so no template floods its intent with near-duplicates.
3. Noise (`noisy`): a typo (swap, drop, double, neighbour key) in one word that is not an id,
   casing, emoji, trailing punctuation, politeness ("pls", "could you") and filler
   ("hey bot,", "ok so"), chosen per intent so the label stays true.

4. A second batch (`EXTRA_HAND`, `EXTRA_TEMPLATES`, own random stream, so the first batch is
   unchanged): 400 help messages (how to filter/page/compare/export/watch/save, what is loaded,
   how ids work, "can you summarize papers?", "it didn't understand me", typos) and 600
   searches that borrow other intents' words ("papers comparing adam and sgd", "first-order
   methods for ...", question-shaped conference titles). Searches are then about 42 %.

5. Later batches (`FOURTH_HAND`, `FIFTH_HAND`, each with its own seed): hand-written help and
   small talk, then terse Discord-style questions about the open paper, comparisons, reactions,
   indirect how-to questions, refines with varied verbs, and look-alike searches, each with a
   noisy copy of about half of them.

Messages are de-duplicated on a folded form across all intents (a message keeps one label), and
any message that also occurs in the development set is dropped from training.

benchmarks/data/intents_dev.jsonl (300 messages, same format) was written by hand, not by this
script or its templates, for development checks while fitting; it is not the held-out set.

This is training data only. Neither this set nor the dev set measures the classifier: the judge
is a held-out set of at least 300 messages written separately, by someone who has not seen this
script or the patterns, kept outside this folder.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

from retrieval.conversation.classifier import INTENTS

SEED = 24
TEMPLATE_CAP = 36
ROOT = Path(__file__).resolve().parent
DEFAULT_OUT = ROOT / "data" / "intents_train.jsonl"
DEV = ROOT / "data" / "intents_dev.jsonl"
DEFAULT_ABSTRACTS = ROOT.parent.parent / "shared" / "data" / "conference_abstracts"

# How many messages each intent gets (hand-written first, templates fill the rest).
TARGETS = {
    "greeting": 230,
    "thanks": 250,
    "small_talk": 320,
    "help": 360,
    "open": 560,
    "similar": 360,
    "more": 280,
    "question": 660,
    "compare": 360,
    "refine": 360,
    "search": 2400,
}


def _block(text: str) -> list[str]:
    return [line.strip() for line in text.strip().splitlines() if line.strip()]


# ---------------------------------------------------------------- hand-written messages
HAND: dict[str, list[str]] = {
    "greeting": _block(
        """
        hi
        hello
        hey
        hey bot
        hey paperbot
        yo
        yo bot
        hiya
        heya
        hii
        hiiii
        helloo
        heyyy
        good morning
        good morning paperbot
        morning
        morning all
        gm
        gm gm
        good afternoon
        good evening
        evening folks
        hello there
        hi there!
        hi again
        hello again
        hey, it's me again
        hey hey
        howdy
        sup
        sup bot
        what's up
        wassup
        whats up paperbot
        greetings
        greetings, bot
        hola
        bonjour
        hallo
        ciao
        salut
        namaste
        o/
        👋
        hi 👋
        hey 👋 paperbot
        hello world
        hi paperbot :)
        hey there bot
        ello
        oi
        heeey
        hi hi
        hello hello
        hey y'all
        hi everyone
        hey all
        hello friend
        hi bot, good to see you
        hey, how's it going?
        hi! how are you today?
        hello, anyone home?
        knock knock
        hi, i'm new here
        hey, first time using this
        hello :D
        hey :)
        good day
        top of the morning
        mornin
        gmorning
        gud morning
        helo
        hellp there
        hallo bot
        heyo
        hey paper bot
        hi paper bot
        hey @paperbot
        @paperbot hi
        """
    ),
    "thanks": _block(
        """
        thanks
        thank you
        ty
        thx
        tysm
        tyvm
        thanks!
        thanks a lot
        thanks a lot, that helped
        thank you so much
        thank you so much 🙏
        thanks, that's exactly what i needed
        much appreciated
        appreciate it
        appreciated!
        cheers
        cheers mate
        cheers bot
        thanks bot
        thank u
        thnx
        thnks
        thanx
        tanks
        merci
        merci beaucoup
        danke
        danke schön
        gracias
        grazie
        arigato
        many thanks
        big thanks
        thanks heaps
        thanks a bunch
        thanks a ton
        thanks again
        ty ty
        thank youuu
        thankss
        perfect, thanks
        great, thank you!
        awesome, thanks!!
        cool thx
        nice one, thanks
        ok thanks
        ok ty
        got it, thanks
        thanks for the help
        thanks for your help
        thank you for the papers
        thanks for finding that
        super helpful, thanks
        that was helpful, thank you
        that helped a lot, thanks
        this is great, thank you
        you saved me hours, thanks
        thanks, that's the one
        thanks, that's perfect
        ty bot
        ty, that's what i was after
        thank you kindly
        kudos, thanks
        much obliged
        thanks so much, this is really useful
        thank you very much
        thanks, legend
        ta
        🙏
        thanks 🙏
        thx 🙏
        🙏🙏 thank you
        thanks!! ❤️
        ok cool, thanks
        alright thanks
        thanks, that'll do
        thanks, that's all for now
        thank you, that answers it
        grateful, thanks
        thanks for the quick answer
        thx a lot
        tyty
        thank you paperbot
        thanks paperbot!
        """
    ),
    "small_talk": _block(
        """
        lol nice
        great job bot
        good bot
        bad bot
        you're useless
        you are useless
        are you a bot
        are you a bot?
        are you human?
        are you real
        are you chatgpt?
        are you an llm?
        who made you
        who built you
        who are you
        what are you
        what's your name
        how are you
        how are you doing today?
        how's it going
        lol
        lmao
        haha
        hahaha
        rofl
        😂
        👍
        👍👍
        🤖
        ok
        okay
        k
        kk
        cool
        nice
        neat
        sweet
        awesome
        wow
        whoa
        interesting
        hmm
        hmmm
        huh
        oh
        ah i see
        i see
        got it
        makes sense
        fair enough
        sure
        yes
        no
        nope
        yep
        yeah
        nah
        bye
        goodbye
        bye bot
        see ya
        see you later
        cya
        gn
        good night
        brb
        nvm
        never mind
        nevermind
        oops
        oops wrong channel
        sorry, wrong chat
        ignore that
        ignore me
        test
        testing
        testing 123
        ping
        is this thing on?
        are you there?
        you there?
        you alive?
        that's wild
        that's crazy
        no way
        this is so slow
        you're slow today
        you're wrong
        that's not what i asked
        that's not it
        not helpful
        not helpful at all
        meh
        ugh
        wtf
        terrible
        useless bot
        dumb bot
        smart bot
        clever bot
        you rock
        you're the best
        love this bot
        i love you paperbot
        this bot is amazing
        this is actually useful
        this is pretty cool
        wow that was fast
        fast!
        impressive
        not bad
        not bad at all
        well done
        nice work
        good job
        great work
        10/10
        5 stars
        lol you tried
        lol what
        lol that's a weird one
        haha nice
        nice lol
        that's funny
        tell me a joke
        do you dream?
        are you sentient
        do you read papers yourself?
        do you have feelings
        what's the weather like
        what time is it
        i'm bored
        i'm tired
        long day
        coffee time
        ok cool
        sounds good
        alright
        right
        fine
        whatever
        ok bot
        good to know
        noted
        roger
        lgtm
        big if true
        same
        mood
        rip
        f
        oof
        yikes
        damn
        bruh
        sheesh
        :)
        :(
        :D
        xD
        ¯\\_(ツ)_/¯
        ...
        what
        why
        really?
        seriously?
        is that so
        you sure?
        hm ok
        ok lol
        sorry
        my bad
        thanks but no
        you're funny
        you're weird
        are you open source?
        what model are you
        how old are you
        do you like icml?
        do you sleep
        who's a good bot
        """
    ),
    "help": _block(
        """
        help
        help!
        help me
        help pls
        hlep
        halp
        hepl
        hekp
        /help
        !help
        ?
        ??
        how does this bot work?
        how does this work
        how do i use this
        how do i use you
        how am i supposed to use this
        how to use
        how do i use paperbot
        what can you do
        what can you do?
        what do you do
        what are you able to do
        what can i ask
        what can i ask you
        what should i ask
        what should i type
        what commands do you support
        what commands are there
        list commands
        commands
        commands pls
        command list
        usage
        usage?
        instructions
        instructions please
        is there a manual
        is there a tutorial
        getting started
        how do i get started
        where do i start
        i'm lost
        i don't get how this works
        i'm confused, how does this work
        explain how to use you
        how do i filter by conference?
        how do i filter by venue
        how do i search only iclr
        how can i restrict results to one conference
        can i filter by year?
        how do i limit to icml 2026
        what collections do you have
        which conferences are loaded?
        which venues can you search
        what papers do you know about
        what data do you have
        how many papers do you have
        how do i open a paper
        how do i see the abstract
        how do i get more results
        how do i see the next page
        how do i compare two papers
        can i compare papers?
        how do i find similar papers
        can i ask questions about a paper?
        can you answer questions about papers
        what kind of questions can i ask
        what's the syntax for filters
        how do i exclude a word
        how do quotes work in queries
        what does in: do
        how do i search for an exact phrase
        can i use boolean operators
        does this support arxiv?
        can you search arxiv
        do you have neurips 2024?
        is there a way to search by author
        can i search by author name
        how do i reference a result
        how do the numbers work
        what do the numbers mean
        how do i go back to the previous results
        how do i start a new search
        how do i reset
        what are the rules here
        what's this bot for
        what is this bot
        what is paperbot
        what does paperbot do
        tell me what you can do
        show me what you can do
        give me some examples
        examples?
        example queries
        can you show me example queries
        what are some good queries
        how should i phrase my question
        any tips?
        tips for searching
        how do i search
        how do i search for papers
        how do searches work
        how is the ranking done
        how do you rank papers
        what does the score mean
        how do i get the code link
        how do i watch a topic
        can you notify me of new papers
        what are your features
        features?
        capabilities?
        menu
        options
        help me out here
        need help
        i need help using this
        can someone explain this bot
        what are the commands again
        remind me the commands
        forgot the commands
        man paperbot
        paperbot --help
        -h
        info
        about
        about this bot
        how do i talk to you
        do i need to use slash commands
        can i dm you
        do you work in dms
        how do i ask about a specific paper
        how do i open the third result
        how do i see more than three results
        what do i type to get the next page
        how to filter neurips only
        how do i switch collections
        """
    ),
    "open": _block(
        """
        the second one
        second one
        the 2nd
        #5
        # 5
        number three
        no. 4
        the top result
        the first one
        first
        the first two
        the last one
        last one pls
        and the one before that?
        the one before that
        what about number three
        open 2
        show 3
        open #7
        open the 4th
        lemme see the third
        let me see #2
        show me the first one
        show me number 1
        gimme the top one
        the top one
        top hit
        open the top hit
        show the best match
        i'll take the second
        2 please
        3
        the third one looks good
        tell me about the second one
        tell me more about #3
        more about the first one
        details on #2
        abstract of the third
        abstract for 4
        read #6
        go to 5
        expand the first
        open them
        open both
        show both
        the first three
        open 1 and 3
        show 2 and 5
        #1 and #4
        open all three
        the previous one
        the one after that
        next one down
        the bottom one
        the penultimate one
        second to last
        the second last one
        the eleventh
        #12
        number 14
        no 9
        result 8
        item 6
        paper 10
        show paper 10
        what's the 4th one?
        what is number 2?
        which is #3
        what was the first one again?
        go back to the first one
        back to #2
        the one about diffusion
        the one on graph transformers
        the diffusion one
        the one with the robots
        that one
        open that one
        show it
        open it
        open it please
        show me that paper
        can you open that
        pull that up
        pull up the second
        pull up #3
        bring up number 4
        display the first result
        view 2
        fetch #3
        can i see the fifth?
        could you show the sixth one
        what does the first one say
        show me the abstract of the second
        full abstract of #1 pls
        let's look at the third
        the third, please
        ok the second
        ok show 1
        hmm #4
        let's see 7
        try the last one
        give me the first paper
        first paper
        the first result
        1st
        3rd one
        4th pls
        fifth
        the sixth
        seventh one
        """
    ),
    "similar": _block(
        """
        more like the 2nd
        more like this
        more like that one
        papers like this one
        papers like that
        similar papers
        similar ones
        anything similar?
        anything else like it?
        find similar papers to #3
        similar to the first one
        similar to it
        related papers
        related work for the second one
        what else is like #2
        others like this
        other papers like the third one
        more of this kind
        more in this direction
        more along these lines
        papers in the same vein
        same vein as #4
        stuff like the first one
        i liked #2, more like it
        i like the third one, anything similar?
        give me papers similar to this
        show me similar work
        find related work
        find related papers to this one
        neighbours of #1
        nearest neighbours of the first
        closest papers to #5
        papers close to the second one
        papers near this one
        what's related to it?
        recommend similar papers
        recommend more like #2
        suggest similar ones
        any related ones?
        anything related to the last one?
        similar to that but newer
        something like #1 but in iclr
        more like 3 from neurips
        papers that resemble the first one
        papers resembling #2
        ones like the top result
        like the top one
        like #2
        like the second one but more
        same topic as #3
        same area as the first one
        same idea as 2
        things like this
        more of these
        more like these two
        similar to 1 and 3
        like 2 and 4
        more like the last one
        similar to the one before
        siblings of this paper
        papers that build on this one
        follow-up work to #2
        follow ups to the first one
        what cites this one?
        other work in this area
        the same but other papers
        other approaches like this
        alternatives to #3
        papers similar in spirit to it
        semantically similar papers to #2
        more papers like this one please
        """
    ),
    "more": _block(
        """
        more
        more!
        more please
        more pls
        moar
        moar 🙏
        mooore
        show me more
        show more
        give me more
        gimme more
        more results
        more papers
        more of those
        any more?
        any others?
        anything else?
        others?
        next
        next page
        next page pls
        next 3
        next five
        next results
        next batch
        page 2
        page two
        go to page 3
        next one page
        keep going
        keep em coming
        continue
        go on
        and more?
        load more
        see more
        show the rest
        the rest
        rest pls
        what else?
        what else do you have
        what else is there
        is that all?
        that's it?
        only three?
        just three? show more
        more results please
        scroll down
        further
        further results
        additional results
        beyond these
        after these
        the following ones
        following page
        ➡️
        ⏭️
        >>
        next ->
        more →
        more, please
        ok more
        ok next
        cool, more
        hmm, more
        more of the same
        more like... more results
        another page
        another batch
        another three
        a few more
        some more
        a couple more
        show me a few more
        list more
        more hits
        more matches
        more entries
        even more
        more more
        nexttt
        nxt
        mroe
        moer
        nect
        show next
        display more
        get more
        fetch more
        more pls 🙏
        any more results?
        is there more?
        are there more?
        are there any others?
        got any more?
        """
    ),
    "question": _block(
        """
        what's the main result?
        what is the main result of the second one?
        does the second one have code?
        is it evaluated on navier-stokes?
        who wrote icml2026-13?
        how many parameters is the model in icml2026-6
        what dataset do they use?
        which datasets?
        what benchmarks does it report?
        is there code?
        is the code public?
        any github link?
        github?
        code?
        link to the repo?
        where's the code for #2
        what's the method?
        how does it work?
        how does their method work
        what's the key idea
        what's the core idea of the first one
        what problem does it solve?
        what problem are they tackling
        what's the motivation
        why does this matter
        what are the limitations?
        any limitations mentioned?
        weaknesses?
        what are the downsides
        who are the authors?
        authors?
        who wrote it
        which lab is it from
        where was it published?
        what venue is it from
        what conference is #3 from
        is it icml or iclr
        what year is this from
        is it peer reviewed
        what's the tl;dr
        tl;dr?
        summarize it
        summary of the second one?
        give me a one-line summary of #1
        what does it claim?
        what are the contributions
        main contributions of the first one?
        what did they find
        what are the findings
        how good are the results
        does it beat sota?
        does it outperform the baselines?
        what baselines do they compare against
        what do they compare to
        what metric do they use
        how do they evaluate it
        how is it evaluated
        is it evaluated on imagenet?
        does it use imagenet
        do they test on real data
        is it only synthetic experiments?
        does the third one use reinforcement learning?
        is the first one theoretical or empirical?
        is there a proof?
        does it have theory
        what assumptions does it make
        what model do they train
        how big is the model
        what architecture?
        is it a transformer?
        does it need a gpu cluster?
        how much compute do they use
        how long does training take
        is the data released?
        can i use it commercially
        what license is the code
        does it work for text too?
        does it scale?
        how does it scale with data
        what's new compared to prior work?
        what's novel here
        how is #2 different from prior work
        what's the takeaway
        key findings of the last one?
        in the second one, what's the dataset?
        for #3, is there code?
        for the first paper, what's the main claim?
        re: #2 — which benchmark?
        and the dataset?
        and the code?
        and who wrote it?
        what about its limitations?
        ok but what's the result
        so what's the contribution
        does it mention robustness?
        does it discuss fairness
        is it reproducible
        which tasks do they evaluate on
        what languages does it cover
        is it multilingual?
        how many tasks
        what's the speedup they report
        how much faster is it
        what accuracy do they get
        what's the error rate
        by how much does it improve
        what's the sample size
        is it supervised?
        is it self-supervised or supervised
        do they fine-tune or train from scratch
        what optimizer do they use
        what loss do they use
        which llm do they use
        do they use gpt-4?
        what simulator do they use
        is it on-policy?
        is it model-based?
        what's the theoretical guarantee
        what's the regret bound
        what's the convergence rate
        do they release weights?
        is there a demo
        is there a project page
        arxiv link?
        doi?
        """
    ),
    "compare": _block(
        """
        compare 1 and 3
        compare 2 and 4
        compair 2 and 4
        comapre 1 and 2
        1 vs 2
        2 vs 3
        1 v 3
        #1 vs #2
        first vs second
        the first vs the last
        which is better, the first or the second?
        which is better: 1 or 2
        which one is better, #2 or #5?
        which of the two is stronger
        which of these two should i read
        which of the top two is more recent?
        compare the first two
        compare the top 3
        compare all three
        compare them
        compare these
        compare both
        compare those two
        compare it with #3
        compare this one with the second
        how does it compare to #2?
        how does 1 compare to 3
        how do 1 and 2 differ?
        how are the first and second different
        difference between 1 and 2
        differences between #2 and #3?
        what's the difference between the first two
        what's different between them
        contrast 1 and 4
        contrast the first with the third
        diff 1 2
        1 or 2?
        #2 or #3, which one?
        side by side 1 and 2
        put 1 and 3 side by side
        1 and 2 side by side please
        pros and cons of 1 vs 2
        is #1 better than #2?
        is the second one better than the first?
        does 3 beat 1?
        which one has better results, 1 or 3?
        which one has code, 1 or 2?
        which is newer, 2 or 4
        which is more practical, the first or the third?
        which uses less compute, 1 or 2?
        how do the two approaches differ
        how do these methods differ
        do 1 and 2 use the same dataset?
        do the first two agree?
        are 2 and 3 solving the same problem?
        what do 1 and 2 have in common
        similarities and differences between 1 and 2
        1 versus 2
        first versus third
        compare first and second
        cmp 1 2
        compare #1, #2 and #3
        compare 1, 3, 5
        weigh 1 against 2
        stack 1 up against 2
        head to head: 1 vs 4
        1 & 2 compared?
        comparison of 1 and 2
        comparison between the first two
        give me a comparison of 2 and 3
        rank 1, 2 and 3
        which of these three is best?
        which one should i cite, 1 or 2
        """
    ),
    "refine": _block(
        """
        same but for iclr
        same but for neurips
        same but icml 2024
        what about neurips?
        what about iclr 2024
        and in icml 24?
        and neurips?
        and for iclr?
        only iclr 2024 pls
        only neurips
        just icml 2026
        just the iclr ones
        only the neurips ones
        neurips only
        iclr only please
        same search in iclr
        same query for neurips 2023
        redo that for iclr
        redo it with icml 2024
        do the same for neurips
        same thing but neurips
        same thing for icml 2026
        now iclr
        now neurips 2023
        now try icml 2024
        try iclr instead
        try neurips
        switch to iclr
        switch to neurips 23
        how about iclr?
        how about in neurips
        how about icml 2024 papers
        any in neurips?
        any from iclr?
        anything from icml 2024?
        what does neurips have on that?
        what does iclr have?
        what's in iclr for that
        same for iclr 2024 please
        limit to iclr
        limit that to neurips
        restrict to icml 2026
        restrict it to iclr 24
        filter to neurips
        filter by iclr
        filter that by icml 2024
        narrow it to iclr
        narrow down to neurips 2023
        only 2024 papers
        only 2026
        just 2023
        from neurips instead
        in iclr instead
        iclr instead
        neurips instead pls
        search iclr for that
        search neurips for the same
        look in iclr
        look in neurips too
        check iclr
        check icml 2024 as well
        also in neurips?
        also iclr
        and iclr too
        include neurips
        add iclr
        exclude neurips
        without neurips
        drop the icml ones
        not icml
        everything except iclr
        across all conferences
        all collections please
        search everywhere
        everywhere, not just icml
        all venues
        same but all venues
        same but newer
        same but only the newest
        same topic, iclr
        same topic in neurips
        that topic in icml 2024
        same question for iclr
        repeat for neurips
        redo in icml 2026
        again but for neurips
        ok now neurips
        hmm what about iclr then
        and the icml 2024 ones?
        how about the 2023 ones
        the iclr version?
        any iclr papers on that?
        any neurips papers like that?
        iclr?
        neurips?
        icml 24?
        icml 2026?
        icml26?
        """
    ),
    "search": _block(
        """
        papers that compare optimizers
        help vectors for steering
        more efficient attention
        similarity search
        question answering over tables
        best practices for RLHF
        hi-res image synthesis
        thanks to scaling laws
        which ICML 2026 papers attack RAG retrievers?
        diffusion distillation
        next-token prediction pitfalls
        open-set recognition
        open vocabulary segmentation
        open-ended learning
        comparing representations across networks
        comparison of uncertainty estimation methods
        a comparison of federated optimizers
        similarity measures for graphs
        similar images retrieval
        more data or more parameters
        more is different: scaling
        help or harm of data augmentation
        helpful and harmless assistants
        when do skills help reinforcement learning
        question generation for education
        visual question answering
        questions about calibration
        show and tell captioning
        next generation reservoir computing
        next best view planning
        first-order methods for minimax
        the second-order optimizer zoo
        second order optimization for deep learning
        top-k sparse attention
        last-iterate convergence
        last layer retraining
        previous work on model merging
        thanks and acknowledgements in llm outputs
        hello world programs for neural program synthesis
        greeting detection in dialogue
        small talk in dialogue systems
        chit-chat dialogue models
        bot detection on social media
        chatbot evaluation
        conversational search
        intent classification
        open problems in mechanistic interpretability
        more robust reward models
        more like humans: human-like generalization
        compare and contrast learning
        contrastive learning
        refining llm outputs with feedback
        iterative refinement for generation
        search-based planning with llms
        monte carlo tree search
        beam search decoding
        neural architecture search
        what is DRIFT?
        what's rlhf
        what does RAG stand for
        define mixture of experts
        what are lora adapters
        papers on mixture of experts
        anything about watermarking LLM text?
        is there any work on watermarking language models?
        has anyone studied grokking in transformers?
        i'm looking for papers on offline rl
        recent work on in-context learning
        any papers about graph neural networks and oversmoothing?
        find me something on protein design
        show me papers on diffusion for molecules
        give me papers about federated learning with differential privacy
        i need references on neural operators for pdes
        what's new in reinforcement learning from human feedback
        who works on causal representation learning
        which papers use the navier-stokes equations?
        which papers evaluate on imagenet?
        papers with code for sparse autoencoders
        papers that release code for llm agents
        state space models vs transformers
        mamba vs transformers for long context
        transformers versus cnns for vision
        adam vs sgd generalization
        which is better for tabular data, trees or neural nets?
        benchmarks for llm reasoning
        datasets for robot manipulation
        evaluation of llm agents
        limitations of in-context learning
        authorship attribution with llms
        code generation with llms
        github copilot studies
        repository-level code completion
        open source llm evaluation
        ICML 2026 papers about mixture of experts
        iclr papers on diffusion models
        neurips 2023 work on offline rl
        icml 24 papers on conformal prediction
        graph transformers in neurips
        rlhf iclr 2024
        diffusion icml
        kv cache compression
        speculative decoding
        quantization llm
        lora
        moe routing
        sae features
        test-time compute
        reasoning rl
        chain of thought faithfulness
        jailbreak attacks
        prompt injection
        membership inference attacks
        machine unlearning
        data poisoning in rag
        attacks on retrieval-augmented generation
        fairness in ranking
        causal inference with text
        time series forecasting foundation models
        weather forecasting with neural networks
        physics-informed neural networks
        neural odes
        equivariant networks for molecules
        protein language models
        single-cell foundation models
        medical imaging segmentation
        3d gaussian splatting
        nerf
        video generation
        text-to-image alignment
        image editing with diffusion
        world models for rl
        robot learning from demonstrations
        multi-agent reinforcement learning
        bandits with delayed feedback
        online learning regret bounds
        sampling with langevin dynamics
        optimal transport
        kernel methods
        gaussian processes
        bayesian optimization
        active learning for llms
        curriculum learning
        continual learning without forgetting
        meta-learning
        few-shot learning
        domain adaptation
        out-of-distribution detection
        uncertainty quantification
        calibration of language models
        hallucination detection
        factuality
        retrieval augmented generation
        long context evaluation
        tokenization
        byte-level models
        multilingual llms
        low-resource languages
        speech recognition
        music generation
        graph generation
        combinatorial optimization with gnns
        neural theorem proving
        math reasoning
        program synthesis
        symbolic regression
        interpretability of vision transformers
        circuit discovery
        probing
        model editing
        knowledge distillation
        pruning
        efficient fine-tuning
        federated learning
        differential privacy sgd
        synthetic data generation
        data selection for pretraining
        scaling laws
        emergent abilities
        grokking
        loss landscape
        implicit bias of gradient descent
        neural tangent kernel
        mean field theory of neural nets
        double descent
        sharpness-aware minimization
        learning rate schedules
        batch size scaling
        distributed training
        pipeline parallelism
        """
    ),
}

# ---------------------------------------------------------------- slot fillers
ORDINAL_WORDS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
]
NUMBER_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
SUFFIX = {1: "st", 2: "nd", 3: "rd"}

# (name spellings, years spellings) of the loaded collections.
COLLECTION_FORMS = {
    "icml2026": ["ICML 2026", "icml 2026", "icml2026", "icml 26", "icml26", "ICML'26", "icml-2026"],
    "icml2024": ["ICML 2024", "icml 2024", "icml2024", "icml 24", "icml24", "ICML '24"],
    "iclr2024": ["ICLR 2024", "iclr 2024", "iclr2024", "iclr 24", "iclr'24", "ICLR", "iclr"],
    "neurips2023": [
        "NeurIPS 2023",
        "neurips 2023",
        "neurips2023",
        "neurips 23",
        "NeurIPS",
        "neurips",
        "nips 2023",
        "nips",
        "NIPS'23",
    ],
    "icml": ["ICML", "icml", "the icml ones", "both icmls"],
}
ID_RANGES = {"icml2026": 40, "icml2024": 2610, "iclr2024": 2260, "neurips2023": 3218}
NAME_CASES = {"icml": "ICML", "iclr": "ICLR", "neurips": "NeurIPS"}
FOCUS = ["it", "this paper", "this one", "that paper", "that one", "the paper", "this work"]
BENCHES = [
    "imagenet",
    "navier-stokes",
    "mmlu",
    "gsm8k",
    "cifar-10",
    "coco",
    "humaneval",
    "atari",
    "mujoco",
    "d4rl",
    "glue",
    "wikitext",
    "real robots",
    "ogb",
    "swe-bench",
    "math",
    "the darcy flow problem",
    "librispeech",
    "kinetics",
]
TRAP_WORDS = re.compile(
    r"\b(?:compar\w*|similar\w*|help\w*|open\w*|question\w*|more|next|best|find\w*"
    r"|show\w*|first|second|last|top|previous|refin\w*|search\w*|related|like|versus|vs)\b",
    re.IGNORECASE,
)
SEARCH_VERBS = [
    "study",
    "use",
    "attack",
    "improve",
    "benchmark",
    "tackle",
    "are about",
    "propose",
    "scale up",
    "analyze",
    "look at",
    "deal with",
    "evaluate",
]
ACRONYMS = [
    "RLHF",
    "DPO",
    "LoRA",
    "MoE",
    "RAG",
    "SAE",
    "NTK",
    "PPO",
    "ViT",
    "GNN",
    "SSM",
    "KV cache",
]
EMOJI = ["🙏", "🙂", "😅", "👀", "🤔", "🔥", "🙌", ":)", "😊", "✨", "🤖", "👍"]
POLITE_PREFIX = ["pls ", "please ", "could you ", "can you ", "can u ", "would you "]
POLITE_SUFFIX = [" pls", " please", " plz", " thanks", " thx", " ty"]
FILLER_PREFIX = [
    "hey bot, ",
    "ok so ",
    "ok ",
    "so ",
    "hmm, ",
    "alright, ",
    "@paperbot ",
    "um ",
    "btw ",
    "wait, ",
    "quick one: ",
    "paperbot, ",
    "hey, ",
    "yo, ",
    "oh and ",
    "also ",
]
# Verbs after which "could you" reads naturally.
REQUEST_VERBS = {
    "show",
    "open",
    "find",
    "give",
    "get",
    "compare",
    "search",
    "look",
    "pull",
    "list",
    "fetch",
    "bring",
    "tell",
    "redo",
    "do",
    "check",
    "filter",
    "restrict",
    "limit",
    "recommend",
    "suggest",
    "load",
    "display",
}
STOPWORDS = frozenset(
    " ".join(
        _block(
            """
    a an the of for and or in on with to via by from at as is are be its their our we without
    into over under towards toward through using based beyond between than not can do does how
    when why what which who new via vs
    """
        )
    ).split()
)
KEYBOARD_NEIGHBOURS = {
    "a": "sq",
    "e": "wr",
    "i": "uo",
    "o": "ip",
    "n": "bm",
    "r": "et",
    "s": "ad",
    "t": "ry",
    "l": "k",
    "m": "n",
    "c": "xv",
    "h": "gj",
    "p": "o",
    "u": "yi",
}


class Slots:
    """Random slot values; every `{slot}` in a template draws anew."""

    def __init__(self, rng: random.Random, titles: list[str]) -> None:
        self.rng = rng
        self.phrases = _topic_phrases(titles)
        self.keywords = _keyword_queries(titles)
        # Titles that contain the words of other intents: searches all the same.
        self.traps = [p for p in self.phrases if TRAP_WORDS.search(p)]

    def paper_id(self) -> str:
        rng = self.rng
        slug = rng.choice(["icml2026"] * 5 + ["icml2024"] * 2 + ["iclr2024"] * 2 + ["neurips2023"])
        number = rng.randint(1, ID_RANGES[slug])
        name, year = slug[:-4], slug[-4:]
        digits = rng.choice([str(number)] * 4 + [f"{number:02d}", f"{number:05d}"])
        name = rng.choice([name, name, NAME_CASES[name], name.upper()])
        yy = year[2:]
        forms = [
            f"{name}{year}-{digits}",
            f"{name}{year}-{digits}",
            f"{name}{year} {digits}",
            f"{name} {year}-{digits}",
            f"{name} {year} {digits}",
            f"{name}{year}_{digits}",
            f"{name}-{year}-{digits}",
            f"{name}{yy}-{digits}",
            f"{name} {year} #{digits}",
            f"{name}{year}/{digits}",
            f"{name} {yy}-{digits}",
        ]
        return rng.choice(forms)

    def position(self) -> str:
        rng = self.rng
        n = rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14])
        word = ORDINAL_WORDS[min(n, 12) - 1]
        digit_ord = f"{n}{SUFFIX.get(n if n < 20 else n % 10, 'th')}"
        num_word = NUMBER_WORDS[n - 1] if n <= 10 else str(n)
        noun = rng.choice(["one", "one", "paper", "result", "hit", "entry"])
        forms = [
            f"the {word} {noun}",
            f"the {word}",
            f"{word} one",
            f"the {digit_ord} {noun}",
            f"the {digit_ord}",
            f"#{n}",
            f"# {n}",
            f"no. {n}",
            f"number {n}",
            f"number {num_word}",
            f"result {n}",
            f"paper {n}",
            f"nr {n}",
            f"item {n}",
        ]
        special = [
            "the top result",
            "the top one",
            "the last one",
            "the last paper",
            "the one before that",
            "the previous one",
            "the one after that",
            "the bottom one",
            "the second to last one",
            "the penultimate one",
            "the first result",
        ]
        return rng.choice(forms + special[: rng.randint(0, len(special))])

    def ref(self) -> str:
        return self.paper_id() if self.rng.random() < 0.35 else self.position()

    def any_ref(self) -> str:
        roll = self.rng.random()
        if roll < 0.3:
            return self.paper_id()
        if roll < 0.55:
            return self.rng.choice(FOCUS)
        return self.position()

    def short(self) -> str:
        """A short position for compare/open lists: "1", "#2", "the third", "icml2026-5"."""
        rng = self.rng
        n = rng.randint(1, 9)
        return rng.choice(
            [str(n), str(n), f"#{n}", f"the {ORDINAL_WORDS[n - 1]}", f"number {n}", self.paper_id()]
        )

    def several(self) -> str:
        rng = self.rng
        a, b = rng.sample(range(1, 10), 2)
        c = rng.randint(1, 12)
        forms = [
            "the first two",
            "the first three",
            "the top 3",
            "the top two",
            "both",
            "all three",
            f"{a} and {b}",
            f"#{a} and #{b}",
            f"{a}, {b} and {c}",
            f"{min(a, b)}-{max(a, b)}",
            f"{a} & {b}",
            f"the {ORDINAL_WORDS[a - 1]} and {ORDINAL_WORDS[b - 1]}",
            f"{self.paper_id()} and {self.paper_id()}",
        ]
        return rng.choice(forms)

    def pair(self) -> tuple[str, str]:
        first = self.short()
        second = self.short()
        while fold(second) == fold(first):
            second = self.short()
        return first, second

    def collection(self) -> str:
        slug = self.rng.choice(list(COLLECTION_FORMS))
        return self.rng.choice(COLLECTION_FORMS[slug])

    def _other_collection(self) -> str:
        slug = self.rng.choice(["iclr2024", "neurips2023", "icml2024"])
        return self.rng.choice(COLLECTION_FORMS[slug])

    def topic(self) -> str:
        roll = self.rng.random()
        if roll < 0.45:
            return self.rng.choice(self.phrases)
        if roll < 0.9:
            return self.rng.choice(self.keywords)
        return self.rng.choice(ACRONYMS)

    def values(self) -> dict[str, str]:
        a, b = self.pair()
        topic = self.topic()
        return {
            "id": self.paper_id(),
            "pos": self.position(),
            "ref": self.ref(),
            "anyref": self.any_ref(),
            "focus": self.rng.choice(FOCUS),
            "several": self.several(),
            "a": a,
            "b": b,
            "coll": self.collection(),
            "coll2": self._other_collection(),
            "trap": self.rng.choice(self.traps),
            "verb": self.rng.choice(SEARCH_VERBS),
            "topic": topic,
            "topic2": self.topic(),
            "kw": self.rng.choice(self.keywords),
            "title": self.rng.choice(self.phrases),
            "bench": self.rng.choice(BENCHES),
            "acr": self.rng.choice(ACRONYMS),
            "n": str(self.rng.randint(2, 10)),
        }


def _topic_phrases(titles: list[str]) -> list[str]:
    """Titles as a user would type them: the part after "NAME:", at most nine words."""
    phrases = []
    for title in titles:
        head, sep, tail = title.partition(": ")
        text = tail if sep and len(head.split()) <= 3 else title
        words = text.split()
        if len(words) > 9:
            continue
        phrases.append(text.lower() if len(phrases) % 3 else text)
    return phrases


def _keyword_queries(titles: list[str]) -> list[str]:
    """Two or three adjacent content words of a title: "diffusion distillation"."""
    queries = []
    for index, title in enumerate(titles):
        words = [w.strip(",.?!()\"'").lower() for w in title.replace(":", " ").split()]
        runs: list[list[str]] = [[]]
        for word in words:
            if word in STOPWORDS or len(word) < 3 or not re.search("[a-z]", word):
                runs.append([])
            else:
                runs[-1].append(word)
        best = [run for run in runs if len(run) >= 2]
        if best:
            run = best[index % len(best)]
            queries.append(" ".join(run[: 2 + index % 2]))
    return queries


# ---------------------------------------------------------------- templates
TEMPLATES: dict[str, list[str]] = {
    "greeting": [
        "hi {x}",
        "hello {x}",
        "hey {x}",
        "good morning {x}",
        "yo {x}",
        "hiya {x}",
    ],
    "thanks": [
        "thanks {x}",
        "thank you {x}",
        "ty {x}",
        "{x}, thanks",
        "thx {x}",
    ],
    "small_talk": [
        "{x}",
    ],
    "help": [
        "how do i {x}?",
        "can i {x}?",
        "is it possible to {x} with you?",
        "how can i {x}",
        "help: how to {x}",
        "what's the way to {x}",
        "is there a command to {x}",
    ],
    "open": [
        "{id}",
        "{id}",
        "show {id}",
        "open {id}",
        "show me {id}",
        "pull up {id}",
        "can u show me the paper {id}",
        "can you open {id}?",
        "paper {id}",
        "abstract of {id}",
        "details for {id}",
        "i want to read {id}",
        "let me see {id}",
        "what is {id}?",
        "what's {id} about",
        "tell me about {id}",
        "get {id}",
        "look up {id}",
        "display {id}",
        "{pos}",
        "{pos} please",
        "open {pos}",
        "show {pos}",
        "show me {pos}",
        "let's see {pos}",
        "can i see {pos}?",
        "what about {pos}?",
        "tell me about {pos}",
        "more about {pos}",
        "details on {pos}",
        "pull up {pos}",
        "{pos} looks interesting",
        "i'd like to read {pos}",
        "and {pos}?",
        "open {several}",
        "show {several}",
        "show me {several}",
        "{several} please",
    ],
    "similar": [
        "more like {ref}",
        "find similar papers to {ref}",
        "papers similar to {ref}",
        "similar to {ref}",
        "anything like {ref}?",
        "others like {ref}",
        "related work to {ref}",
        "papers related to {ref}",
        "what else is like {ref}",
        "show me stuff like {ref}",
        "papers in the same vein as {ref}",
        "recommend papers like {ref}",
        "find me papers close to {ref}",
        "similar to {ref} but from {coll}",
        "more like {ref} in {coll}",
        "anything similar to {focus}?",
        "more like {focus}",
        "papers like {focus}",
        "{ref}: similar ones?",
        "i liked {ref}, got anything similar?",
        "nearest neighbours of {id}",
        "papers like {several}",
        "more like {several}",
    ],
    "more": [
        "next {n}",
        "show {n} more",
        "{n} more",
        "give me {n} more",
        "next {n} please",
        "more, {n} at a time",
    ],
    "question": [
        "what dataset does {anyref} use?",
        "which datasets are used in {anyref}",
        "is {anyref} evaluated on {bench}?",
        "does {anyref} test on {bench}",
        "what benchmarks does {anyref} report?",
        "does {anyref} have code?",
        "is there code for {anyref}?",
        "github for {anyref}?",
        "link to the repo of {anyref}",
        "is {anyref} open source?",
        "what's the main result of {anyref}?",
        "what did {anyref} find",
        "what's the key finding in {anyref}",
        "how much does {anyref} improve over the baselines",
        "does {anyref} beat the state of the art?",
        "how does {anyref} work?",
        "what method does {anyref} propose",
        "what's the approach in {anyref}",
        "what architecture does {anyref} use",
        "what problem does {anyref} solve?",
        "what problem is {anyref} addressing",
        "what is {anyref} trying to do",
        "what are the limitations of {anyref}?",
        "any limitations in {anyref}?",
        "who wrote {anyref}?",
        "who are the authors of {anyref}",
        "where was {anyref} published?",
        "which conference is {anyref} from",
        "how many parameters is the model in {anyref}",
        "how big is the model in {anyref}?",
        "does {anyref} use {acr}?",
        "is {anyref} theoretical or empirical?",
        "summarize {anyref}",
        "tl;dr of {anyref}",
        "what's the contribution of {anyref}",
        "in {pos}, what's the dataset?",
        "for {ref}, is there code?",
        "{ref}: what's the main result?",
        "{ref} - which baselines?",
        "does {pos} mention {bench}?",
    ],
    "compare": [
        "compare {a} and {b}",
        "compare {a} with {b}",
        "compare {a} to {b}",
        "compair {a} and {b}",
        "{a} vs {b}",
        "{a} vs. {b}",
        "{a} versus {b}",
        "{a} or {b}, which is better?",
        "which is better, {a} or {b}?",
        "which one is better: {a} or {b}",
        "how does {a} compare to {b}?",
        "how do {a} and {b} differ?",
        "difference between {a} and {b}",
        "what's the difference between {a} and {b}?",
        "contrast {a} with {b}",
        "is {a} better than {b}?",
        "{a} and {b} side by side",
        "put {a} and {b} side by side",
        "which has better results, {a} or {b}?",
        "pros and cons of {a} vs {b}",
        "compare {several}",
        "how do {several} differ",
        "which of {several} is best?",
        "do {a} and {b} use the same data?",
    ],
    "refine": [
        "same but for {coll}",
        "what about {coll}?",
        "and in {coll}?",
        "only {coll} pls",
        "same search in {coll}",
        "same thing for {coll}",
        "redo that for {coll}",
        "do that for {coll} instead",
        "how about {coll}?",
        "now {coll}",
        "try {coll}",
        "switch to {coll}",
        "just {coll}",
        "{coll} only",
        "{coll} instead",
        "any from {coll}?",
        "limit it to {coll}",
        "restrict to {coll}",
        "filter to {coll}",
        "what does {coll} have?",
        "and {coll}?",
        "same query, {coll}",
        "same but {coll} and {coll2}",
        "only {coll} and {coll2}",
        "without {coll}",
        "exclude {coll}",
        "search {coll} for that instead",
        "look in {coll} too",
        "now only the {coll} papers",
        "{coll}?",
    ],
    "search": [
        "{topic}",
        "{topic}",
        "{kw}",
        "{kw}",
        "{title}",
        "{trap}",
        "{trap}",
        "papers on {trap}",
        "{trap} in {coll}",
        "anything on {trap}?",
        "which {coll} papers {verb} {kw}?",
        "which papers {verb} {topic}?",
        "do any {coll} papers {verb} {kw}?",
        "papers on {topic}",
        "papers about {topic}",
        "any papers on {topic}?",
        "anything about {topic}?",
        "work on {topic}",
        "recent work on {topic}",
        "research on {topic}",
        "is there research on {topic}?",
        "has anyone looked at {topic}?",
        "i'm looking for papers about {topic}",
        "looking for work on {topic}",
        "find papers on {topic}",
        "find me something on {topic}",
        "search {topic}",
        "search for {topic}",
        "show me papers on {topic}",
        "show me work about {topic}",
        "give me papers about {topic}",
        "list papers on {topic}",
        "i need references on {topic}",
        "what's new in {topic}?",
        "what's the latest on {topic}",
        "state of the art in {topic}",
        "survey of {topic}",
        "{topic} papers",
        "{kw} in {coll}",
        "{coll} papers on {topic}",
        "{coll} {kw}",
        "{topic} {coll}",
        "papers on {topic} from {coll}",
        "which {coll} papers study {topic}?",
        "which {coll} papers use {topic}?",
        "which papers propose {topic}?",
        "are there {coll} papers about {topic}?",
        "does {coll} have anything on {topic}?",
        "{kw} and {topic2}",
        "{topic} for {kw}",
        "{kw} with {acr}",
        "papers comparing {kw} and {topic2}",
        "{kw} vs {topic2}",
        "more efficient {kw}",
        "more robust {kw}",
        "similarity of {kw}",
        "help with {kw}",
        "open problems in {topic}",
        "open-source {kw}",
        "questions about {kw}",
        "best {kw} methods",
        "how to do {kw}",
        "how does {kw} work in practice",
        "what is {acr}?",
        "what are {kw}?",
        "papers that evaluate on {bench}",
        "papers using {bench}",
        "{kw} on {bench}",
        "{kw} with code",
        "{kw} github",
        "who studies {topic}",
    ],
}
# Fillers for the chat templates whose slot is not a paper.
CHAT_FILLERS = {
    "greeting": [
        "there",
        "bot",
        "paperbot",
        "all",
        "everyone",
        "folks",
        "friend",
        "again",
        "team",
        "paper bot",
        ":)",
        "👋",
        "y'all",
        "people",
    ],
    "thanks": [
        "so much",
        "a lot",
        "very much",
        "again",
        "bot",
        "paperbot",
        "for the help",
        "for that",
        "for the list",
        "for the papers",
        "for the summary",
        "for the link",
        "that helped",
        "that's useful",
        "perfect",
        "great",
        "awesome",
        "nice",
        "🙏",
        "❤️",
        "a million",
        "mate",
    ],
    "small_talk": [
        "lol ok",
        "haha fair",
        "nice one bot",
        "great job",
        "good job paperbot",
        "you're doing great",
        "you're hopeless",
        "useless",
        "that was useless",
        "cool bot",
        "are you a real person",
        "is this a bot",
        "who is this",
        "who runs you",
        "what are you made of",
        "lol nice try",
        "ok whatever",
        "wow ok",
        "heh",
        "lolol",
        "ha",
        "lmaooo",
        "hehe",
        "ok cool cool",
        "nice nice",
        "sure thing",
        "ah ok",
        "oh nice",
        "oh wow",
        "omg",
        "cool stuff",
        "good stuff",
        "that's cool",
        "love it",
        "so good",
        "nice bot",
        "that's hilarious",
        "are you ok?",
        "bye for now",
        "later",
        "ttyl",
        "catch you later",
        "have a nice day",
        "good night bot",
        "sleep well bot",
        "you're kinda dumb",
        "you misunderstood",
        "that's wrong",
        "wrong answer",
        "not what i wanted",
        "meh, not great",
        "hmm ok",
        "interesting...",
        "fascinating",
        "cool cool",
        "do you know everything?",
        "can you think?",
        "how smart are you",
        "are you gpt",
        "what llm are you",
        "are you listening",
        "hello? anyone?",
        "ok i'm back",
        "one sec",
        "hold on",
        "wait",
        "gimme a sec",
        "let me think",
    ],
    "help": [
        "filter by conference",
        "filter by year",
        "search only iclr",
        "restrict to neurips",
        "open a paper",
        "see an abstract",
        "get more results",
        "see the next page",
        "compare two papers",
        "compare papers",
        "find similar papers",
        "ask about a paper",
        "ask questions about a paper",
        "get the code for a paper",
        "exclude a term",
        "search an exact phrase",
        "search by author",
        "switch collections",
        "reference a result by number",
        "go back to old results",
        "start over",
        "use filters",
        "use this bot",
        "search icml 2026 only",
        "watch a topic",
        "get notified about new papers",
        "see which collections are loaded",
        "use in: filters",
        "page through results",
        "look up a paper by id",
    ],
    "more": [],
}


# ---------------------------------------------------------------- noise
def _typo(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    choices = [i for i, word in enumerate(words) if len(word) >= 4 and word.isalpha()]
    if not choices:
        return text
    index = rng.choice(choices)
    word = words[index]
    pos = rng.randrange(1, len(word) - 1)
    kind = rng.choice(["swap", "drop", "double", "neighbour"])
    if kind == "swap":
        word = word[: pos - 1] + word[pos] + word[pos - 1] + word[pos + 1 :]
    elif kind == "drop":
        word = word[:pos] + word[pos + 1 :]
    elif kind == "double":
        word = word[:pos] + word[pos] + word[pos:]
    else:
        near = KEYBOARD_NEIGHBOURS.get(word[pos].lower())
        if near:
            word = word[:pos] + rng.choice(near) + word[pos + 1 :]
    words[index] = word
    return " ".join(words)


def _case(text: str, rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.55:
        return text
    if roll < 0.8:
        return text.lower()
    if roll < 0.95:
        return text[:1].upper() + text[1:]
    return text.upper() if len(text) < 40 else text


# Which kinds of noise keep which label true.
POLITE_OK = {"open", "similar", "more", "compare", "refine", "search", "help", "question"}
FILLER_OK = POLITE_OK | {"small_talk", "thanks"}


def noisy(text: str, intent: str, rng: random.Random) -> str:
    """One noisy variant of `text` that still means `intent`."""
    if rng.random() < 0.35:
        text = _typo(text, rng)
    if intent in POLITE_OK and rng.random() < 0.2:
        first = text.split(" ", 1)[0].lower()
        if first in REQUEST_VERBS:
            text = rng.choice(POLITE_PREFIX) + text[:1].lower() + text[1:]
        elif not text.endswith("?"):
            text = text.rstrip(".!") + rng.choice(POLITE_SUFFIX)
    if intent in FILLER_OK and rng.random() < 0.2:
        text = rng.choice(FILLER_PREFIX) + text
    text = _case(text, rng)
    roll = rng.random()
    if roll < 0.12:
        text = text + " " + rng.choice(EMOJI)
    elif roll < 0.3 and text[-1:].isalnum():
        text = text + rng.choice(["?", "!", "...", " ?", "!!", "."])
    elif roll < 0.4:
        text = text.rstrip("?!.")
    return text or "?"


def fold(text: str) -> str:
    """The de-duplication key: lowercase, words only (or the bare text when it has no word)."""
    return " ".join(re.findall(r"[\w#'-]+|\?", text.lower())) or text.strip()


# ---------------------------------------------------------------- assembly
def _fill(template: str, intent: str, slots: Slots) -> str:
    if "{x}" in template:
        return template.replace("{x}", slots.rng.choice(CHAT_FILLERS[intent]))
    return template.format(**slots.values())


def _from_templates(intent: str, slots: Slots, seen: set[str], wanted: int) -> list[str]:
    """Up to `TEMPLATE_CAP` new messages per template, round-robin, until `wanted`."""
    templates = TEMPLATES[intent]
    made: Counter[int] = Counter()
    out: list[str] = []
    stalls = 0
    while len(out) < wanted and stalls < 40 * len(templates):
        index = slots.rng.randrange(len(templates))
        if made[index] >= TEMPLATE_CAP:
            stalls += 1
            continue
        text = _fill(templates[index], intent, slots)
        if slots.rng.random() < 0.6:
            text = noisy(text, intent, slots.rng)
        key = fold(text)
        if not key or key in seen:
            stalls += 1
            continue
        seen.add(key)
        made[index] += 1
        out.append(" ".join(text.split()))
    return out


def _load_titles(folder: Path) -> list[str]:
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        sys.exit(f"no *.jsonl under {folder}: pass --abstracts pointing at conference_abstracts/")
    titles = []
    for path in files:
        with path.open(encoding="utf-8") as handle:
            titles.extend(json.loads(line)["title"] for line in handle if line.strip())
    return sorted(set(titles))


def _dev_keys() -> set[str]:
    if not DEV.exists():
        return set()
    with DEV.open(encoding="utf-8") as handle:
        return {fold(json.loads(line)["text"]) for line in handle if line.strip()}


def build(titles: list[str], dev_keys: set[str]) -> list[dict[str, str]]:
    rng = random.Random(SEED)
    slots = Slots(rng, titles)
    rows: list[dict[str, str]] = []
    # Shared across intents: a message keeps the label of the first intent that made it.
    seen = set(dev_keys)
    for intent in INTENTS:
        messages: list[str] = []
        hand = HAND[intent]
        for text in hand:
            if fold(text) not in seen:
                seen.add(fold(text))
                messages.append(text)
        # One noisy copy of each hand-written message, for robustness to typos and casing.
        for text in hand:
            variant = noisy(text, intent, rng)
            if fold(variant) not in seen:
                seen.add(fold(variant))
                messages.append(variant)
        if len(messages) > TARGETS[intent]:
            originals = messages[: len(hand)]
            variants = messages[len(hand) :]
            rng.shuffle(variants)
            messages = originals + variants[: max(0, TARGETS[intent] - len(originals))]
        messages += _from_templates(intent, slots, seen, TARGETS[intent] - len(messages))
        rows.extend({"text": text, "intent": intent} for text in messages)
    rows += build_extra(titles, seen)
    chat = {
        word.strip(",.:;()?!").lower()
        for row in rows
        if row["intent"] in ("greeting", "thanks", "small_talk", "help")
        for word in row["text"].split()
    }
    rows += build_short_searches(titles, seen, chat)
    rows += build_fourth(seen)
    rows += build_fifth(seen)
    rng.shuffle(rows)
    return rows


# ---------------------------------------------------------------- second batch (issue 24)
# The two kinds of message the first fit handled worst: questions about the bot itself (how to
# use it, what it can do, what is loaded, complaints that it misunderstood, typos), and searches
# that borrow the words of other intents ("papers comparing adam and sgd", "first-order
# methods", question-shaped titles). Drawn from their own random stream after the first batch,
# so the first batch's messages are unchanged; a message already labelled keeps its label.
EXTRA_SEED = SEED + 1
EXTRA_TARGETS = {"help": 400, "search": 600}
EXTRA_HAND: dict[str, list[str]] = {
    "help": _block(
        """
        how do i us this
        how do i use this thing
        how do u use this
        how does paperbot work?
        how r u supposed to use this bot
        what is this and how do i use it
        what can you do for me
        what can i do here
        what kinds of things can i ask
        what am i supposed to type
        what do i type
        what should i say to you
        what do you understand
        what do you support
        what can this bot do
        what are you capable of
        what else can you do
        anything else you can do?
        can you summarize papers?
        can you summarise a paper for me?
        do you do summaries?
        can you explain papers to me?
        can you read pdfs?
        can you read the full text or only abstracts?
        do you have full papers or just abstracts?
        can you write a literature review for me?
        can you translate abstracts?
        can you give me bibtex?
        do you do citations?
        can you recommend papers?
        do you know about ICLR?
        do you know about neurips 2024?
        do you know about cvpr?
        do you have acl papers?
        do you cover arxiv?
        do you have papers from 2025?
        which years do you cover
        which conferences do you know
        what data is loaded?
        what's loaded right now
        which collections are loaded
        how many papers are in the index
        how big is your database
        how up to date are you
        when was the data last updated
        where does your data come from
        is icml 2026 loaded?
        is neurips loaded
        what's icml2026?
        what is a collection
        how do ids work?
        what are the ids
        what's the id format
        what does icml2024-55 mean
        how do i open a paper by id?
        can you open a paper by id?
        can i open papers by their id
        how do i refer to a paper
        how do i point at a result
        do i use the number or the id
        how do i open the second result
        how do i compare papers side by side
        can you compare papers?
        how does compare work
        how do i get more
        how to see more results
        how do i page
        how does paging work
        how do i go to page 2
        how do i get the next page of results
        is there a next page command
        can i get more than 5 results
        how many results do you show
        how can i find similar papers?
        how do i find papers like one i already have
        is there a "more like this"?
        how does similar work
        how do i filter results
        how do filters work
        what filters are there
        can i filter by venue and year
        how do i narrow my search
        how do i refine my search
        how do i exclude a topic
        how do i search for an exact title
        how do i search by title
        how do i export results
        can i export to csv
        can i export to bibtex
        how do i download the list
        can i save papers
        how do i save a paper for later
        how do i bookmark a paper
        where are my saved papers
        how do i see my saved papers
        how do watches work
        how do i stop a watch
        how do i unwatch something
        how do i list my watches
        can you alert me when new papers come out
        can you dm me new papers
        how do i ask a question about a paper
        can i ask you about a paper's method?
        how do i get the abstract
        how do i get the link to the pdf
        does it show the pdf link
        it didn't understand me
        you didn't understand me
        you misunderstood me, how should i phrase it?
        why did you show me that?
        why did you show me these papers
        why these results?
        why is that the top result
        why did i get that
        that's not what i searched for, what am i doing wrong
        it's not working
        this isn't working
        not working
        doesn't work
        the bot isn't working
        why isn't this working
        why don't you understand me
        you keep misunderstanding me
        it keeps showing the wrong papers
        why no results?
        why did i get no results
        i got nothing back
        why does it say no results
        it says it didn't understand
        what does "i didn't understand" mean
        why do you keep giving me the same papers
        how do i make it understand me
        it ignored my filter
        the filter didn't work
        my filter isn't doing anything
        why did it open the wrong paper
        it opened the wrong one, how do i pick the right one
        is this thing on
        are you working?
        are you down?
        hlep me
        halp pls
        hepl me
        hlp
        helpp
        heelp
        how do i use tihs
        waht can you do
        wat can u do
        what cna you do
        how dose this work
        how does thsi work
        comands?
        comands list
        lsit commands
        instrucions
        what comands are there
        how to searh
        how do i serach
        how do i fitler
        how to fliter by year
        shwo me how this works
        halp how do i search
        can you answer questions?
        do you understand natural language?
        do i need special syntax
        do i have to use commands or can i just talk
        can i just type normally
        do you speak other languages?
        can you search the web?
        are you connected to the internet?
        can you read my paper?
        what's the difference between search and similar
        what does "more" do
        what does "open" do
        what does compare do
        what does watch do
        what does /similar do
        what is the /open command
        /commands
        !commands
        /start
        /about
        --help
        what are the keywords
        show me an example
        give me an example query
        what's a good first query
        how do i ask good questions
        tips?
        pro tips
        faq
        readme
        docs?
        where are the docs
        is there documentation
        how do you search papers
        what search algorithm do you use
        is this bm25?
        how do you decide what to show
        how do i clear my history
        how do i start over
        how do i go back
        how do i undo a filter
        how do i remove a filter
        how do i reset filters
        how do i sort by year
        can i sort results by date
        can results be sorted by citations
        can i see the authors
        does it show authors
        how do i see the full abstract
        is there a way to get the whole abstract
        i don't know what to ask
        no idea what to type
        ok what now?
        where do i begin
        first time here, how does this work
        new here, what can you do
        i'm new, any tips
        do you remember context
        do you remember what i searched
        does it remember previous results
        can i refer back to earlier results
        what can i ask you?
        """
    ),
    "search": _block(
        """
        papers comparing adam and sgd
        comparing adam and sgd on transformers
        similarity learning for retrieval
        robust similarity learning
        dynamical similarity analysis of neural circuits
        representational similarity analysis
        open-vocabulary detection
        open vocabulary object detection with vlms
        open-world instance segmentation
        open-set semi-supervised learning
        open datasets of user preferences for text-to-image
        hello world of RL
        thanks to overparameterization
        thanks to scale, emergent abilities
        first-order optimization
        first-order methods for bilevel optimization
        first-order manifold data augmentation
        second-order methods
        second-order stationary points in private optimization
        second-order optimizers for llms
        next-token prediction limits
        traffic modeling as next-token prediction
        beyond next-token prediction
        how do transformers learn in-context?
        how do llms learn in context
        how are you supposed to evaluate chatbots?
        how should we evaluate chatbots
        question answering over tables
        question decomposition for zero-shot vqa
        video question answering with causal reasoning
        best practices for RLHF
        what is the best optimizer for LLM pretraining?
        best arm identification
        best-of-both-worlds bandits
        best window selection for data pruning
        papers like dpo but without a reference model
        something like dpo without a reference model
        like lora but for pretraining
        does code data help llm reasoning?
        when does generated data help contrastive learning
        can llms help with theorem proving
        helping attention heads do nothing
        how free is parameter-free optimization?
        why do deep ensembles work
        why do vaes promote disentanglement
        why large batch sizes work for dp-sgd
        what matters for calibrating vision-language models
        what needs to go right for an induction head
        can gaussian sketching converge faster
        can transformers learn to search?
        language models teaching themselves to use tools
        finding order in chaos: time series augmentation
        top-k adversarial attacks
        top-down feedback learning
        last-iterate convergence in games
        get more with less: kv cache compression
        more data-efficient diffusion training
        less specialization and more generalization in fine-tuning
        are vision transformers more data hungry than newborns?
        how to turn knowledge graph embeddings into generative models
        show me where transformers fail at length generalization
        find papers comparing causal frameworks
        comparison of autoregressive and masked pretraining
        mechanism comparison in differential privacy
        comparing abstaining classifiers
        refining diffusion samples
        self-refine for llms
        iterative refinement in protein design
        search over programs with llms
        tree search for reasoning
        previous-token heads
        prior work on jailbreak defenses
        open questions in grokking
        open problems in rl theory
        can you find papers on kv cache compression?
        can you find me work on mixture of experts routing
        can you search for diffusion policies
        do you know any papers on model merging?
        do you know any work on machine unlearning?
        what can transformers not do?
        what can llms do with tables
        what can a single attention layer learn
        how do i fine-tune llms with limited memory
        how do i make rl more sample efficient
        how to evaluate llm agents
        how to compare generative models fairly
        evaluation metrics for comparing image generators
        ways to measure similarity between neural networks
        what is the best way to quantize llms?
        which is the best sampler for diffusion models
        is sgd better than adam for vision?
        does more data always help?
        more layers or more heads?
        why does in-context learning work?
        what makes a good prompt
        the open problems of rlhf
        a survey comparing graph neural network benchmarks
        help or hindrance: pretraining on synthetic data
        self-help for llms: self-correction
        helpfulness vs harmlessness tradeoff
        how helpful are explanations to users
        can chatbots replace search engines?
        how do people use chatbots
        user studies of ai assistants
        bots that play diplomacy
        greedy search versus sampling in decoding
        compare-and-swap for parallel sgd
        similar-looking objects in few-shot detection
        open-domain dialogue
        next-gen reservoir computing
        next-frame video prediction
        first-person video understanding
        second-opinion models for medical diagnosis
        last-layer laplace approximation
        the top eigenvalue of the hessian
        thankful or not: politeness in llm prompts
        what is the best tokenizer for code?
        what's the best way to do model merging
        best way to learn from noisy labels
        how to do retrieval for long documents
        how can we detect ai-generated text?
        how can we make diffusion sampling faster?
        how do neural networks generalize?
        how does batch norm help optimization?
        how are reward models trained
        how are llms evaluated on math
        what do vision transformers attend to?
        what do llms know about time?
        why do llms hallucinate?
        can language models plan?
        can llms self-correct?
        do llms understand causality?
        do transformers learn shortest paths?
        is attention all you need for time series?
        are emergent abilities a mirage?
        is scale all you need for robotics?
        """
    ),
}
# What a user asks how to do, what they ask the bot whether it can do, venues they ask about.
HELP_ACTIONS = [
    "compare two papers",
    "compare papers",
    "get more results",
    "see more results",
    "find similar papers",
    "open a paper by id",
    "open a paper",
    "filter by venue",
    "filter by year",
    "filter to one conference",
    "search only neurips",
    "page through results",
    "go to the next page",
    "export results",
    "export to bibtex",
    "save a paper",
    "save my results",
    "see my saved papers",
    "watch a topic",
    "stop watching a topic",
    "list my watches",
    "get notified about new papers",
    "ask about a paper",
    "ask a question about a paper",
    "see the abstract",
    "get the pdf link",
    "get the code link",
    "exclude a word",
    "search an exact phrase",
    "search by title",
    "search by author",
    "reset filters",
    "remove a filter",
    "start a new search",
    "go back to the previous results",
    "refer to a result",
    "use ids",
    "pick a result by number",
    "narrow down my results",
    "refine a search",
    "sort by year",
    "switch collections",
    "see what's loaded",
    "use the bot in dms",
    "use this",
    "use paperbot",
    "talk to you",
    "get the first page again",
    "see the last results again",
]
HELP_CAPABILITIES = [
    "summarize papers",
    "summarise a paper",
    "explain papers",
    "answer questions about papers",
    "read full pdfs",
    "recommend papers",
    "compare papers",
    "find similar papers",
    "export citations",
    "make bibtex",
    "search arxiv",
    "search the web",
    "translate abstracts",
    "remember what i searched",
    "open papers by id",
    "filter by year",
    "watch topics for me",
    "send me alerts",
    "search by author",
    "show more than 3 results",
    "understand typos",
    "save papers",
    "page through results",
]
HELP_VENUES = [
    "ICLR",
    "iclr 2024",
    "neurips",
    "NeurIPS 2024",
    "ICML 2026",
    "icml",
    "cvpr",
    "ACL",
    "EMNLP",
    "arxiv",
    "AAAI",
    "COLT",
    "AISTATS",
    "ICCV",
    "KDD",
    "TMLR",
    "JMLR",
    "2025 papers",
]
HELP_THAT = ["that", "this", "these", "those papers", "that paper", "this result", "me that one"]
EXTRA_TEMPLATES: dict[str, list[str]] = {
    "help": [
        "how do i {howto}?",
        "how can i {howto}",
        "how to {howto}",
        "is there a way to {howto}?",
        "can i {howto} here?",
        "what's the command to {howto}",
        "help me {howto}",
        "i want to {howto}, how?",
        "how would i {howto}",
        "hlep: how do i {howto}",
        "quick question, how do i {howto}?",
        "no idea how to {howto}",
        "can you {cap}?",
        "are you able to {cap}?",
        "is it possible for you to {cap}?",
        "do you know about {venue}?",
        "do you have {venue} papers?",
        "is {venue} loaded?",
        "do you cover {venue}?",
        "why did you show {that}?",
        "why did you show me {that}",
    ],
    "search": [
        "{qtitle}",
        "{qtitle}",
        "{qtitle}",
        "studies comparing {kw} with {kw2}",
        "comparison between {kw} and {kw2}",
        "how does {kw} compare to {kw2}?",
        "{kw} compared with {kw2}",
        "does {kw} help {kw2}?",
        "when does {kw} help?",
        "can {kw} help with {kw2}?",
        "how can {acr} help with {kw}?",
        "more data-efficient {kw}",
        "more faithful {kw}",
        "making {kw} more robust",
        "more scalable {kw}",
        "similarity learning for {kw}",
        "similarity-based {kw}",
        "{kw} similarity",
        "open-vocabulary {kw}",
        "open-world {kw}",
        "open-weight {kw}",
        "open-ended {kw}",
        "first-order methods for {kw}",
        "second-order methods for {kw}",
        "second-order {kw}",
        "next-token prediction for {kw}",
        "beyond next-token prediction in {kw}",
        "how do transformers learn {kw}?",
        "how do neural networks learn {kw}?",
        "how do llms {verb} {kw}?",
        "how are we supposed to evaluate {kw}?",
        "how should we evaluate {kw}?",
        "how to evaluate {kw}",
        "question answering over {kw}",
        "question answering with {kw}",
        "best practices for {kw}",
        "what is the best {kw} method?",
        "what's the best approach to {kw}?",
        "papers like {acr} but for {kw}",
        "something like {acr} but without {kw}",
        "like {acr} but for {kw}",
        "thanks to {kw}",
        "hello world of {kw}",
        "can you find papers on {topic}?",
        "can you search for {kw}?",
        "do you know any papers on {topic}?",
        "do you know any work about {kw}?",
        "what can {kw} do?",
        "what do we know about {kw}?",
        "top-k {kw}",
        "refining {kw} with feedback",
        "self-refinement for {kw}",
        "why does {kw} work?",
    ],
}
QUESTION_TITLE = re.compile(
    r"^(?:how|what|why|when|which|can|do|does|is|are|should|will|where)\b", re.IGNORECASE
)


def _question_titles(titles: list[str]) -> list[str]:
    """Real titles phrased as a question, as typed: "how free is parameter-free optimization?"."""
    out = []
    for title in titles:
        text = title.split(": ")[0] if title.split(": ")[0].endswith("?") else title
        if QUESTION_TITLE.match(text) and len(text.split()) <= 12 and "$" not in text:
            out.append(text.lower() if len(out) % 2 else text)
    return out


def _extra_values(slots: Slots, questions: list[str]) -> dict[str, str]:
    rng = slots.rng
    values = slots.values()
    values.update(
        kw2=rng.choice(slots.keywords),
        qtitle=rng.choice(questions),
        howto=rng.choice(HELP_ACTIONS),
        cap=rng.choice(HELP_CAPABILITIES),
        venue=rng.choice(HELP_VENUES),
        that=rng.choice(HELP_THAT),
    )
    return values


def _extra_from_templates(
    intent: str, slots: Slots, questions: list[str], seen: set[str], wanted: int
) -> list[str]:
    """Like `_from_templates`, over `EXTRA_TEMPLATES` and its extra slots."""
    templates = EXTRA_TEMPLATES[intent]
    made: Counter[int] = Counter()
    out: list[str] = []
    stalls = 0
    while len(out) < wanted and stalls < 40 * len(templates):
        index = slots.rng.randrange(len(templates))
        if made[index] >= TEMPLATE_CAP:
            stalls += 1
            continue
        text = templates[index].format(**_extra_values(slots, questions))
        if slots.rng.random() < 0.6:
            text = noisy(text, intent, slots.rng)
        key = fold(text)
        if not key or key in seen:
            stalls += 1
            continue
        seen.add(key)
        made[index] += 1
        out.append(" ".join(text.split()))
    return out


def build_extra(titles: list[str], seen: set[str]) -> list[dict[str, str]]:
    """The second batch: `EXTRA_TARGETS` new messages per intent, none already in `seen`."""
    slots = Slots(random.Random(EXTRA_SEED), titles)
    questions = _question_titles(titles)
    rows: list[dict[str, str]] = []
    for intent, target in EXTRA_TARGETS.items():
        messages: list[str] = []
        for text in EXTRA_HAND[intent]:
            if fold(text) not in seen:
                seen.add(fold(text))
                messages.append(text)
        # A noisy copy of about half of them: typos and casing on the hand-written ones too.
        for text in EXTRA_HAND[intent]:
            if len(messages) >= target * 3 // 4:
                break
            if slots.rng.random() < 0.5:
                variant = noisy(text, intent, slots.rng)
                if fold(variant) not in seen:
                    seen.add(fold(variant))
                    messages.append(variant)
        messages = messages[:target]
        messages += _extra_from_templates(intent, slots, questions, seen, target - len(messages))
        rows.extend({"text": text, "intent": intent} for text in messages)
    return rows


# ---------------------------------------------------------------- third batch (issue 24)
# One- and two-word searches: a technical word, an acronym, or a misspelled topic word
# ("routng", "qlora", "diffusion distilation"). Without them a short message with words the
# model never saw looked like chit-chat (an `/ask` of "routng" got a small-talk reply).
SHORT_SEED = SEED + 2
SHORT_TARGET = 600
_CHAT_WORDS = frozenset(
    [
        "hello",
        "thanks",
        "thank",
        "help",
        "more",
        "next",
        "similar",
        "compare",
        "great",
        "nice",
        "cool",
        "good",
        "bad",
        "open",
        "show",
        "what",
        "which",
        "when",
        "where",
        "your",
        "this",
        "that",
        "with",
        "from",
        "into",
        "over",
        "under",
        "about",
    ]
)


def build_short_searches(titles: list[str], seen: set[str], chat: set[str]) -> list[dict[str, str]]:
    """`SHORT_TARGET` one- and two-word searches; no word of them is a word of a chit-chat or
    help message (a one-word "wow" or "interesting" must stay chit-chat)."""
    rng = random.Random(SHORT_SEED)
    words = sorted(
        {
            word.strip(",.:;()?!").lower()
            for title in titles
            for word in title.split()
            if len(word.strip(",.:;()?!")) >= 4 and word.strip(",.:;()?!").isalpha()
        }
        - _CHAT_WORDS
        - chat
    )
    acronyms = sorted(
        {
            word.strip(",.:;()?!")
            for title in titles
            for word in title.split()
            if 2 <= len(word.strip(",.:;()?!")) <= 8
            and sum(c.isupper() for c in word) >= 2
            and word.strip(",.:;()?!").isalnum()
        }
    )
    messages: list[str] = []
    attempts = 0
    while len(messages) < SHORT_TARGET and attempts < SHORT_TARGET * 20:
        attempts += 1
        shape = rng.random()
        if shape < 0.4:
            text = rng.choice(words)
        elif shape < 0.7:
            text = f"{rng.choice(words)} {rng.choice(words)}"
        else:
            text = rng.choice(acronyms) if shape < 0.85 else rng.choice(acronyms).lower()
        if rng.random() < 0.4:
            text = _typo(text, rng)
        if fold(text) in seen:
            continue
        seen.add(fold(text))
        messages.append(text)
    return [{"text": text, "intent": "search"} for text in messages]


# ---------------------------------------------------------------- fourth batch (issue 24, later)
# Help and small talk were the weakest intents: more ways to ask how the bot works (indirect,
# frustrated, half-sentences, about one feature) and more chit-chat (acknowledgements, reactions,
# questions about the bot, off-topic requests, moods), each with a noisy copy for about half.
# Written fresh for this batch; own random stream, so the earlier batches are unchanged.
FOURTH_SEED = SEED + 3
FOURTH_HAND = {
    "small_talk": _block(
        """
        ok cool
        okay cool thanks bot
        alright
        alright then
        aight
        sounds good
        fair enough
        makes sense
        got it 👍
        gotcha
        noted
        sure thing
        right right
        yeah ok
        yep
        yup
        mhm
        hmm ok
        oh ok
        ah i see
        i see
        oh nice
        nice one
        sweet, ok
        whoa that's a lot
        wow that's a lot of papers
        damn
        oof
        yikes
        lol ok
        haha nice
        😅
        🤯
        🙃
        😎
        ❤️
        :D
        xD
        hm.
        cool cool cool
        you're pretty smart
        smart bot
        clever bot 🤖
        you rock
        love this bot
        i love you paperbot
        you're the best
        you suck
        dumb bot
        this bot is trash
        meh
        not impressed
        boring
        how r u
        how are u doing
        hows ur day going
        how is your day
        how have you been
        u good?
        you ok?
        what's up
        wassup
        sup bot
        yo what's good
        how's life
        how do you feel today
        are you having a good day
        do you sleep
        do you ever get tired?
        do you dream
        are you sentient
        are you alive
        are you conscious?
        do you have feelings
        what's your favorite paper
        what's your favourite conference
        do you like math
        do you read the papers yourself
        how old are you
        where do you live
        where are you hosted
        what language are you written in
        which model are you
        are you gpt-4
        are you smarter than chatgpt
        who is your creator
        who programmed you
        what's your purpose in life
        tell me a joke
        tell me something funny
        know any jokes?
        sing me a song
        what time is it
        what day is it today
        what's the weather like today
        is it going to rain tomorrow
        who won the game last night
        recommend a movie
        what should i eat for lunch
        can you order me a pizza
        what's 2+2
        what is the meaning of life
        do you believe in god
        flip a coin
        i'm bored
        i'm so tired
        long day today
        this is fun
        i'm procrastinating lol
        just testing you
        testing testing
        test
        is this thing on?
        anyone there?
        hello? are you working
        you there?
        nvm
        never mind
        forget it
        ignore that
        oops wrong chat
        sorry, typo
        my bad
        brb
        hold on
        one sec
        wait
        lemme think
        hmm let me think about it
        good to know
        that's cool
        that's interesting
        huh, interesting
        neat stuff
        whatever
        ok whatever
        lmk
        k thx bye
        """
    ),
    "help": _block(
        """
        how does this thing work
        how do i talk to you
        what am i supposed to type here
        what kind of questions can i ask?
        what are you good for
        what can this bot actually do
        what features do you have
        list your commands
        show me the commands
        commands?
        usage?
        options?
        menu
        faq
        manual pls
        is there a tutorial
        any docs?
        where do i start
        first time here, what do i do
        i'm new, how does this work?
        explain how to use you
        give me some examples of what to ask
        example questions?
        can you show an example query
        i'm lost
        i'm confused
        i don't get how this works
        i dont understand what to do
        you didn't understand me
        that's not what i meant, how should i phrase it
        why didn't that work
        why do i get no results?
        why does it say no paper matches
        how do i ask better questions
        how do i get more results
        how do i see the next page
        how do i go back to the previous results
        how do i open a paper
        how do i read the full abstract
        how can i see the whole abstract of a result
        how do i pick a result from the list
        what does the number in front of each result mean
        what do the ids like icml2024-12 mean
        how do i compare two papers
        can i compare papers side by side?
        how do i find similar papers
        how does "more like this" work
        how do i search only one conference
        how do i filter by venue
        can i limit it to iclr?
        how do i search a specific year
        how do i exclude a word
        how do i search for an exact phrase
        what is the query syntax
        does it support quotes and minus
        what does in: do
        which conferences do you have
        which collections are loaded
        what papers do you have
        how many papers are in here
        how big is your database
        how recent are your papers
        do you have arxiv papers
        can you search full text or just abstracts
        can you summarize a paper?
        can you tell me the authors of a paper
        can i save papers for later
        how do i save a paper
        how do i see my saved list
        can i export my list
        how do i export to bibtex
        how do watches work
        how do i get notified about new papers
        how do i stop a watch
        how do i reset the conversation
        how do i start over
        can i ask follow up questions
        what does "it" refer to
        how do references like "the second one" work
        do you remember what we talked about
        what's the difference between /ask and /search
        how do slash commands work here
        do i have to mention you
        can i dm you
        how do i use you in a channel
        hlep pls
        halp me
        hepl??
        help meee
        heeelp
        hhelp
        help 🙏
        help?? 😭
        sos how does this work
        wat do
        wut can u do
        wat r the commands
        how 2 use
        how2use
        how do u work
        hw do i use this
        how do i serch
        how do i filtr by conference
        how to compair papers
        explain the comands
        """
    ),
}


def build_fourth(seen: set[str]) -> list[dict[str, str]]:
    """The fourth batch: every `FOURTH_HAND` message not already labelled, and a noisy copy of
    about half of them."""
    return _hand_batch(FOURTH_HAND, FOURTH_SEED, seen)


# ---------------------------------------------------------------- fifth batch (issue 24, blind)
# On blind data the weakest intents were small_talk, question, compare and help, then refine.
# This batch is chat the way researchers type in Discord: terse, elliptical questions about the
# open paper (fragments, no question mark, lowercase method and benchmark names, follow-ups),
# comparisons with and without positions, reactions and meta remarks, indirect how-to questions
# about the bot's features, refines with varied verbs, and searches that borrow those intents'
# words ("limitations of rlhf", "small talk generation"). Written fresh; own random stream, so
# the earlier batches are unchanged.
FIFTH_SEED = SEED + 4
FIFTH_HAND = {
    "question": _block(
        """
        so what's the catch
        whats the catch here
        catch?
        downsides?
        any downsides
        weaknesses
        main weakness?
        where does it fail
        failure cases?
        when does this break
        does it break on long inputs
        what doesn't it handle
        limits of this one
        any ablations
        ablations?
        did they ablate the loss
        which ablation matters most
        what happens without the pretraining
        model size?
        how many params
        # params
        param count
        how many gpus
        compute budget?
        how long did training take
        training cost
        gpu hours?
        and on imagenet?
        and on coco
        what about cifar-100
        results on mmlu?
        mmlu score
        how does it do on gsm8k
        gsm8k numbers
        any results on swe-bench
        humaneval?
        did they test on squad
        glue results
        what's the sota they beat
        what baselines
        baselines?
        which baselines did they use
        do they compare against lora
        is it better than dpo
        better than ppo or not
        beats llama?
        how much better than the baseline
        by how much
        margin over prior work
        improvement size?
        is the gain significant
        error bars?
        how many seeds
        variance across runs
        datasets used
        which data
        what data did they train on
        trained on what
        eval set?
        what benchmark
        what benchmarks do they report
        what metric
        metric?
        they use bleu or rouge
        main result
        headline number
        key finding
        tldr
        gist?
        in one sentence?
        what's new here
        what's the novelty
        contribution?
        main contribution
        what problem does it solve
        problem?
        motivation
        what's the idea
        core idea
        how does it work
        method in short
        how do they do it
        the approach?
        architecture?
        is it a transformer
        uses diffusion?
        does it use rl
        any rlhf in there
        objective function
        what optimizer
        learning rate they used
        code available
        github link
        is the code out
        repo?
        weights released?
        open source?
        who are the authors
        which lab
        is this from deepmind
        first author?
        where was it published
        venue
        which conference
        accepted where
        what year
        when was this published
        scaling behaviour?
        does it work for small models too
        works on non-english?
        multilingual?
        any theory or just experiments
        any proofs
        is there a theorem
        assumptions?
        what assumptions do they make
        did anyone reproduce it
        limitations section says what
        what do they say about limitations
        future work?
        what's left open
        how is this different from prior work
        related work?
        what does it build on
        is it a follow-up of something
        what's the dataset size
        how many examples
        how much data
        zero-shot or fine-tuned
        few-shot results
        inference speed
        latency?
        is it faster
        memory footprint
        how much memory does it need
        runs on a single gpu?
        real world eval or only synthetic
        human eval?
        did they do a user study
        any qualitative examples
        what's figure 1 about
        what do they mean by alignment here
        what is their definition of robustness
        does it handle noise
        and for vision?
        and for text
        and with fewer samples?
        what if the data is noisy
        ok but does it generalize
        ood results
        out of distribution?
        hmm and the training data
        wait what's the baseline
        so is it better or not
        worth reading?
        is it any good
        should i trust these numbers
        how big is it
        size of the network?
        the result in a nutshell
        one-line summary pls
        why should i care
        which loss
        code anywhere
        did they release code
        who's behind it
        any big names on it
        was it at a workshop or main track
        does it scale up
        scales to 70b?
        can i reproduce it
        reproducible or not
        bottom line?
        what's the punchline
        so did it work
        any negative results
        what didn't work
        how sensitive to hyperparameters
        hyperparams?
        did they tune the baselines fairly
        eval protocol
        what's the test split
        how long is the context
        context length they use
        what tokenizer
        what backbone
        resnet or vit
        pretrained on what
        what's the student model
        teacher model size?
        """
    ),
    "compare": _block(
        """
        this vs that
        this one vs the last one
        this vs #2
        diff between 2 and 3
        difference between 1 and 4
        whats the diff between the top two
        how do 3 and 5 differ
        2 or 3?
        1 or 2, which is better
        which is better
        which one is better
        which is stronger
        which one wins
        who wins, 1 or 4
        which one should i read first, 2 or 6
        which is more recent
        which one is newer
        which is more cited
        which has better results
        how does it stack up against the first
        how does this stack up vs #3
        how does the second hold up against the first
        stack 1 against 2
        put 2 and 3 side by side
        side by side 1 2
        side-by-side of the top three
        1 vs 2 vs 3
        2 vs 5 pls
        #3 v #4
        first two, compared
        contrast 1 and 2
        contrast the two
        contrast these
        pit 1 against 3
        weigh 2 against 4
        how is 4 different from 1
        what sets 2 apart from 3
        what does 3 do that 1 doesn't
        anything 2 has that 1 lacks
        are 1 and 2 basically the same
        do 1 and 3 overlap
        overlap between 2 and 4?
        same idea as #1?
        is this the same as the first one
        is it just #2 again
        how similar are 1 and 2
        tradeoffs between the two
        which of the two is cheaper
        which of these is faster
        which of the three is simplest
        which of them has code
        which is more practical
        rank the top 3
        rank these
        which is the best of these
        best one here?
        which one would you pick
        pick between 1 and 2
        between 2 and 3 which
        compare w/ the previous one
        compare with the last one
        compare to #1
        compare against 4
        compare the last two
        compare all of them
        compare em
        cmp 3 and 4
        vs #2?
        versus the first?
        and vs the third?
        how about vs 5
        now compare 2 and 6
        compare these two on datasets
        compare their results
        which reports better numbers, 1 or 3
        do 2 and 3 use the same benchmark
        same dataset in 1 and 2?
        which is more general, 1 or 2
        is 2 an improvement over 1
        does 3 beat 1
        does the first outperform the second
        1 better than 2?
        is #4 better than #2
        how do the top results compare
        how do these compare
        how do they compare to each other
        pros/cons 2 vs 4
        cmp 2 3
        1 and 2: which is newer
        is the third one better than the second
        what's the difference between these two
        how far apart are 1 and 5 in results
        which is the stronger paper, 2 or 3
        do 1 and 4 agree
        do they disagree
        same conclusions in 2 and 3?
        which one's approach is simpler, 1 or 2
        line up 1, 2 and 3
        """
    ),
    "small_talk": _block(
        """
        haha wow
        bro what
        welp
        ugh reviewers
        rip my deadline
        deadline in 3 days send help
        neurips deadline is killing me
        i haven't slept
        need coffee
        back
        afk a sec
        gtg
        ok bye for now
        huh, weird
        wild
        crazy
        insane results tbh
        too good to be true lol
        sounds like hype
        another llm paper lol
        everything is transformers now
        not another benchmark
        attention is all you need, apparently
        lol every paper is sota
        these titles are getting ridiculous
        who names these things
        great, more reading
        my reading list is infinite
        so many papers so little time
        i'll never catch up
        my advisor would love this
        sending this to my advisor lol
        reviewer 2 would hate this
        that's a weird result
        those numbers look off
        results look sus
        hmm not what i expected
        pretty good actually
        meh results
        underwhelming
        fair
        true
        facts
        agreed
        relatable
        wrong channel sorry
        typo, ignore
        just testing
        testing 1 2 3
        you awake bot
        bot is slow today
        that took forever
        you're fast
        bot pls
        why are you like this
        are you an llm
        do you dream of papers
        make me laugh
        friday vibes
        happy monday i guess
        🔥
        💀
        👀
        😂😂
        bruhhh
        ugh mondays
        caffeine needed
        very nice
        ooh fun
        fascinating
        hm interesting
        heh
        this is wild
        kinda impressive
        ok that's neat
        same tbh
        big mood
        whoops
        my mistake
        scratch that
        disregard
        hello? anyone home
        naughty bot
        which llm are you
        say something funny
        so bored rn
        🫠
        🤷
        this made my day
        i'm procrastinating
        back to writing i guess
        """
    ),
    "help": _block(
        """
        how do i only see iclr stuff
        is there a way to see only one conference
        can i filter by year somehow
        how do i restrict to 2024
        where do i put the year
        how do i get the next page
        how do i see more than 5
        can i change how many results i get
        how to set page size
        can you show 20 at a time
        how many results per page
        how do i look at one result in detail
        how do i open #3, what do i type
        how does comparing work
        can i compare two papers
        what's the syntax for compare
        how do i compare papers from different searches
        can you watch a topic for me
        is there a way to get notified about new papers
        can i subscribe to a topic
        can i export results
        export to csv possible?
        can i save a search
        is there a reading list feature
        can i exclude a conference
        how do i leave out neurips
        can i search without a year
        can i search across all years
        does it support boolean queries
        can i use quotes
        can i search by author
        how do i find papers by an author
        can i search by title
        how do i find related papers
        what can i ask about a paper
        can i ask questions about the paper
        what kind of questions do you answer
        what do you know about each paper
        is it only abstracts or full text
        do you read the pdf
        what years are covered
        how up to date is the data
        can i undo a filter
        how do i clear the filters
        is there a slash command
        do i need to mention you
        do i have to @ you
        does it work in threads
        any tips for better searches
        how should i phrase a query
        why do i get weird results
        why didn't it find anything
        what do the numbers next to results mean
        how are results ranked
        how does the ranking work
        is it keyword or semantic search
        wait how do i
        how does this bot even work
        so what can it do exactly
        not sure how to use the filters
        i don't get how paging works
        confused about the commands
        how can i peek at a single paper
        show me how to read an abstract here
        what's the trick for watches
        how to unsubscribe from a watch
        which watches do i have, how do i check
        bibtex export how
        where did my saved stuff go
        exact phrase search how
        how to search for papers similar to one i like
        what data do you have loaded
        how to get back to the last list
        how do i wipe the filters
        tell me the commands
        can i talk to you in private messages
        documentation?
        is the score a similarity or what
        how does one page through results
        any way to see 10 per page
        is there a max number of results
        """
    ),
    "refine": _block(
        """
        limit it to 2024
        limit that to neurips 2023
        restrict to icml
        restrict to 2025 only
        narrow to neurips
        narrow it down to 2024
        narrow down to icml 2026
        narrow that to iclr please
        switch to 2023
        switch over to neurips
        switch the conference to icml
        now 2024 only
        now just neurips
        only 2025
        only from icml
        only last year's
        just 2024
        just iclr 25
        just neurips pls
        keep only iclr
        keep just the 2024 ones
        keep neurips only
        back to icml
        back to 2024
        go back to neurips
        back to all conferences
        all years again
        drop the year filter
        drop neurips
        exclude iclr
        minus icml
        no iclr
        skip neurips
        leave out 2023
        not from icml please
        except neurips
        everything but iclr
        same for 2025
        same thing in 2023
        same query but 2024
        same search, iclr this time
        try neurips instead
        try it on icml
        try 2026
        how about iclr
        how about 2023
        and 2024?
        what about last year
        in neurips instead
        in iclr?
        from 2025 then
        neurips 23 instead
        iclr only this time
        make it icml
        change year to 2024
        change it to neurips
        set year 2025
        filter to iclr
        filter that by 2024
        same but drop icml
        limit to neurips only
        restrict to iclr 2025
        switch it to icml
        now for icml 24
        without icml this time
        constrain to 2024
        narrow the year to 2023
        iclr 2025 instead
        only the 2026 ones
        just give me the neurips ones
        """
    ),
    "search": _block(
        """
        help-seeking behaviour in llm agents
        when should an agent ask for help
        learning to ask for help in robotics
        comparison of optimizers for vision transformers
        a comparison of tokenizers for multilingual models
        comparing fine-tuning methods for llms
        systematic comparison of graph neural networks
        limitations of rlhf
        fundamental limitations of alignment
        the limits of in-context learning
        small talk generation in dialogue systems
        chit-chat and task-oriented dialogue
        open-domain chit chat models
        humor generation with language models
        joke understanding in llms
        sarcasm detection
        emoji prediction
        refining reward models
        iterative refinement for text generation
        self-refine with feedback
        query refinement for retrieval
        narrowing the generalization gap
        switching linear dynamical systems
        mixture of experts switch transformer
        restricted boltzmann machines
        restricted isometry property compressed sensing
        filter pruning for cnns
        learned bloom filters
        kalman filter deep learning
        catch-up distillation
        what makes a good benchmark
        benchmark contamination
        ablation studies in deep learning
        automated ablation
        scaling laws for model size
        how big should a language model be
        efficient training on a single gpu
        code generation benchmarks
        code llms
        authorship attribution
        venue recommendation for papers
        reviewer assignment
        peer review with llms
        paper recommendation systems
        citation recommendation
        question answering over scientific papers
        which tokens matter for reasoning
        why do transformers fail at length generalization
        does rlhf reduce diversity
        is attention explanation
        are emergent abilities a mirage
        can llms self-correct
        do vision transformers see like cnns
        better than ppo policy optimization
        dpo vs ppo
        lora vs full fine-tuning
        sgd versus adam generalization
        contrastive learning vs masked modeling
        head-to-head evaluation of chatbots
        pairwise comparison for ranking
        side-by-side human evaluation
        bradley-terry preference models
        paging attention for llm serving
        pagedattention memory management
        exporting models to onnx
        watching videos to learn robot skills
        saving memory in transformer training
        greetings detection in speech
        thank-you notes and politeness in nlg
        boredom and curiosity in reinforcement learning
        coffee break speech dataset
        deadline-aware scheduling
        when to ask for help: uncertainty in agents
        limitations of chain-of-thought prompting
        small-talk detection in conversational agents
        questions about dataset documentation
        """
    ),
}


def _hand_batch(hand: dict[str, list[str]], seed: int, seen: set[str]) -> list[dict[str, str]]:
    """Every message of `hand` not already labelled, and a noisy copy of about half of them."""
    rng = random.Random(seed)
    rows: list[dict[str, str]] = []
    for intent, texts in hand.items():
        messages: list[str] = []
        for text in texts:
            if fold(text) not in seen:
                seen.add(fold(text))
                messages.append(text)
        for text in texts:
            if rng.random() < 0.5:
                variant = noisy(text, intent, rng)
                if fold(variant) not in seen:
                    seen.add(fold(variant))
                    messages.append(variant)
        rows.extend({"text": text, "intent": intent} for text in messages)
    return rows


def build_fifth(seen: set[str]) -> list[dict[str, str]]:
    """The fifth batch: every `FIFTH_HAND` message not already labelled, and a noisy copy of
    about half of them."""
    return _hand_batch(FIFTH_HAND, FIFTH_SEED, seen)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abstracts", type=Path, default=DEFAULT_ABSTRACTS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    rows = build(_load_titles(args.abstracts), _dev_keys())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts = Counter(row["intent"] for row in rows)
    total = len(rows)
    print(f"wrote {total} messages to {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
    for intent in INTENTS:
        print(f"  {intent:<11} {counts[intent]:>5}  {100 * counts[intent] / total:5.1f} %")
    short = [intent for intent in INTENTS if intent != "search" and counts[intent] < 200]
    share = counts["search"] / total
    ok = not short and 0.35 <= share <= 0.50 and 4000 <= total <= 9000
    print("verdict:", "OK" if ok else f"NOT OK (under 200: {short}, search {share:.1%})")


if __name__ == "__main__":
    main()
