"""What a question asks, decided once, before anything is retrieved: its kind (a list of papers,
a figure, a summary, a follow-up ...), the papers it names, the conditions a listed paper must
meet, the papers a follow-up refers back to. Every other module reads the `Intent`; none parses
the question again. The classification's regular expressions live here and, for the shape
of answer it asks for, in `rag.answer.shapes`."""

import itertools
import re
from enum import StrEnum

from pydantic import BaseModel

from rag.answer.language import not_english
from rag.answer.shapes import LIST_START, SHAPE_FRAME, shape_of
from rag.answer.wording import spelled
from rag.figures import asked_figure, figure_scope
from rag.sentences import stem_list, stems
from rag.tuning import AnswerTuning

DEFAULT = AnswerTuning()

# Plural only: "which paper ..." asks for one, and "studies"/"works" are usually verbs.
LIST_QUESTION = re.compile(
    r"^\s*(which|what|list|name|are there|do any|find|show)\b[^?]{0,40}?"
    r"\b(papers|articles|publications|abstracts)\b"
    r"|\bwhich (ones|of (those|these|them|the papers))\b"
    r"|^\s*list\b"
    # "papers on X?", "any works about X", "I'm looking for papers that ..."
    r"|^\s*(any |some |other )?(papers|works|articles|publications)\b"
    r"|\b(looking for|recommend|suggest|need|want)\b[^?]{0,20}?\b(papers|works|articles)\b"
    # as typed: "federated learning papers", "anything on X?", "which ones ...", "X stuff in here"
    r"|\b(papers|works|articles|abstracts|publications)\b(?![-\w])"
    r"|^\s*(is there )?(anything|something|any work|any research|stuff)\b"
    r"|\bwhich ones\b|\bstuff\b|\bin here\b|\bused anywhere\b"
    r"|[,;:-]\s*(anything|any papers?|any works?)\b[\w ]{0,15}\??\s*$",  # "X w/ Y, anything?"
    re.IGNORECASE,
)
# A fragment of a few words that asks nothing ("spectral bias", "graph attacks defense?") is a
# search for the papers on it.
ASKS = re.compile(
    r"^\s*(what|what's|whats|how|why|who|whom|whose|when|where|which|is|are|was|were|does|do|"
    r"did|can|could|should|would|will|has|have|explain|describe|summari[sz]e|compare|tell|give|"
    r"define|list|show|find|name|tl;?dr)\b",
    re.IGNORECASE,
)
# The frame of a list question, removed before its conditions are read.
LIST_FRAME = re.compile(
    r"^\s*(which|what|list|name|are there|do any|find|show|any|some)\b[^?]{0,40}?"
    r"\b(papers|articles|publications|works)\b",
    re.IGNORECASE,
)
# The frame of a follow-up ("Which of those are about ..."), removed too: a condition is what a
# paper must meet, never the question itself.
FOLLOW_UP_FRAME = re.compile(
    r"^\s*(which|what)\s+(of\s+(those|these|them|the\s+above)|ones?)\b(\s+(is|are)\b)?"
    r"(\s+(about|on)\b)?",
    re.IGNORECASE,
)
# Each part of a list question ("continual learning" / "autonomous driving perception", split at
# these words, not within a compound: "text-to-image", "in-context") with two or more content
# words is a condition a listed paper must meet.
CONDITION_SPLIT = re.compile(
    r"(?<![\w-])(?:for(?! example| instance)|on|to|with|in|using|via|against)(?![\w-])|\?",
    re.IGNORECASE,
)
# "Which paper shows X?", "Is there a work on X?", "Which papers ...": the answer is papers; with
# the noun singular, one paper.
PAPERS = re.compile(
    r"\b(which|what|is there|are there|any)\b[^?]{0,40}?\b(papers?|works?|ones?|articles?)\b",
    re.IGNORECASE,
)
ONE_PAPER = re.compile(
    r"\b(which|what|is there|any|has anyone)\b[^?]{0,40}?\b(paper|work|study|article|one)\b(?![-\w])",
    re.IGNORECASE,
)
# "Contrast X with Y", "compare and contrast": the verb frames the question; "contrastive
# learning" (the same stem) is a topic.
CONTRAST = re.compile(r"^\s*contrast\b|\bcompare\s+and\s+contrast\b", re.IGNORECASE)


# How central the topic must be to a paper ("where it's the main focus", "the ones with methods
# built for it, not just tested on it", "either as the main subject or as a component of ..."):
# the decision already asks that the paper be about the topic; these words are no topic.
FOCUS = re.compile(
    r"\(?\b(?:where|when|in which)\s+(?:it'?s|its|it is|they'?re|theyre|they are|that'?s|thats)"
    r"\s+(?:actually\s+|really\s+)?(?:the\s+)?(?:main\s+|primary\s+|central\s+|core\s+)?"
    r"(?:focus|subject|topic|point)\)?"
    r"|\b(?:the\s+)?ones?\s+(?:with|that have|having)\s+(?:methods?|approaches?|algorithms?)\s+"
    r"(?:built|designed|made|developed|tailored)\s+for\s+(?:it|them|this)\b"
    r"|,?\s*\(?\bnot\s+(?:just|only|merely|simply)\s+(?:tested|evaluated|applied|used|benchmarked)"
    r"\s+(?:on|in|for|with)\s+(?:it|them|this)\)?"
    r"|,?\s*\b(?:either\s+)?as\s+(?:the|a|their)\s+(?:main|primary|central|core)\s+"
    r"(?:subject|focus|topic)\b(?:\s+or\s+as\s+(?:a|one)\s+(?:component|part)\s+of\b[^?]*)?"
    # how long the answer should be: "in a sentence", "in a nutshell", "briefly"
    r"|,?\s*\b(?:in\s+(?:a|one|two|a\s+few|few|simple|plain)\s+(?:sentences?|words?|lines?|terms|"
    r"english)|in\s+a\s+nutshell|in\s+short|briefly)\b",
    re.IGNORECASE,
)


def unframed(text: str) -> str:
    """The question without its list frame ("which papers"; not when the frame holds the topic:
    "any pinn papers"), a framing "contrast", or how central its topic must be (FOCUS)."""
    listed = LIST_FRAME.sub(" ", text)
    listed = listed if stems(listed) - FRAME else text
    return FOCUS.sub(" ", CONTRAST.sub(" ", listed))


# The second question of two: "What does X introduce, and how do they make it scalable?", "why
# does X need P, and how does it avoid Q?".
SECOND_PART = re.compile(
    r",?\s+and\s+(?:how|what|which|why|where|when|does|do|did|is|are|can|could)\b(?P<rest>[^?]+)",
    re.IGNORECASE,
)


# Follow-ups: words that point back at the conversation.
# "the rl one", "the microscopy one": a paper of an earlier answer, described by a few words.
DESCRIBED_ONE = r"\bthe ((?:[\w&/-]+ ){0,3}?[\w&/-]+) ones?\b"
REFERS_BACK = re.compile(
    r"\b(those|these|them|they|their|it|its|the above|that paper|this paper|which of|"
    r"the first|the second|the last|the former|the latter|each of|which one|the two|the authors)\b"
    r"|\b(?:that|this) (?:one|approach|method|work|model|framework|algorithm|study|idea)\b"
    # ^ "how does that approach work", "tldr of that one"
    r"|\b(?:does|did|would) (?:that|this) (?:compare|stack|differ)\b"  # "how does that compare"
    r"|\b(?:is|was|are|how['’]?s) (?:that|this) (?:one )?(?:different|similar|related|better|"
    r"worse|faster|slower|like|unlike)\b"  # "how is that different from ...", "hows that ..."
    r"|\bthe (?:method|approach|framework|algorithm|idea|technique)(?: (?:works?|does|do))?"
    r"\s*[?.!]*\s*$"  # "how does the method work?", "what are the limits of the approach?"
    r"|\b(?:than|to|from|with|vs\.?|versus) (?:that|this)(?: one)?\s*[?.!]*\s*$"  # "... compare to that?"
    rf"|{DESCRIBED_ONE}",
    re.IGNORECASE,
)
# Leans on the conversation without narrowing it to the papers named before.
CONTINUES = re.compile(
    r"^\s*(and|what about|how about)\b|\b(another|also|the same|as well)\b"
    r"|\btoo\s*(?=[?.!,;]|$)",  # "does the proof cover other optimizers too?"
    re.IGNORECASE,
)
# "Which one ...", "which of those ...": a choice among several papers.
CHOOSES = re.compile(r"\bwhich (one|of)\b", re.IGNORECASE)
# Lists of words below are written from the kinds of question researchers type (framing verbs,
# details abstracts leave out), not fitted to any question set.
# Words that frame a question rather than say what it is about ("anything on X?", "papers that
# deal with X", "tell me about X"), as stems; with rag.sentences.GENERIC they are no topic.
FRAME = set(
    """anyth someth deal involv discuss focus concern cover mention explor investig examin look
tell know want need find search topic interest help give explain describ summar overview here
corpus collect abstract articl public thing stuff pleas kind sort exist compar versus differ what
between tldr wrote written author explicit anywher specif actual realli mainli particular current
exact abt make algorithm algo techniqu analyz tri attempt reli take run experi prove obtain
establish deriv provid form type core part style way like evalu report result one dataset
variant main primari bound guarante consid address tackl touch handl etc either neither too
have each distinguish common gist mani much""".split()
)


# "Who wrote ...", "authors of ...": answered from the paper's metadata.
AUTHORS = re.compile(
    r"\b(who (wrote|writes|authored|are the authors|is the author|did)|authors? (of|for|behind)|"
    r"written by|whose (paper|work)|who'?s behind)\b",
    re.IGNORECASE,
)
# "At which venue did X appear?", "where was X published?": answered from the metadata too.
VENUE = re.compile(
    r"\b((which|what) (venue|conference)|venue (of|for|is)|published (at|in|where)|where (was|is|did)"
    r"\b[^?]{0,60}\b(published|appear\w*|presented))\b",
    re.IGNORECASE,
)
# "Which papers link to their code?", "papers with code on github": papers whose abstract gives
# a link (CODE_LINK); the words that ask for it (CODE_WORDS, stems) are no topic.
CODE_ASK = re.compile(
    r"\bgithub\b|\b(code|implementation)s?\b[^?]{0,30}\b(available|released?|public|online|"
    r"links?|repo(sitor(y|ies))?|shared?)\b|\b(software|package|library|toolkit)s?\b[^?]{0,30}"
    r"\b(available|released?|public|online)\b|\b(release|share|publish|link to)\w*\b[^?]{0,20}"
    r"\b(code|implementation|software|package|library|toolkit)s?\b|\bopen[- ]sourced?\b"
    r"|\b(code )?repo(sitor(y|ies))?\b",
    re.IGNORECASE,
)
CODE_WORDS = set(
    """github code implement link repositori repo avail releas public publicli open sourc share
publish onlin includ url give softwar packag librari toolkit say""".split()
)
CODE_LINK = re.compile(r"https?://|\bgithub\.com\b|\bwww\.", re.IGNORECASE)


def links_code(abstract: str) -> bool:
    """Whether the abstract gives a link (to its code, as abstracts do)."""
    return bool(CODE_LINK.search(abstract))


# Details researchers ask about a paper that abstracts rarely state, as stems ("What GPU ...",
# "Under what license ...", "How long did training take, wall clock?"): asked of a paper whose
# abstract never uses the word, the answer is that it does not state it.
DETAILS = set(
    """gpu gpus hardwar licens licenc batch epoch wall clock hour minut day week cost dollar budget
affili institut univers uni compani fund grant sponsor repositori email review score paramet
seed""".split()
)


# "... and at what cost in error?" asks a trade-off, not a price: removed before DETAILS is
# matched, whose "cost" would take it for a detail the abstract does not state.
AT_WHAT_COST = re.compile(r"\bat (?:what|the|a|any|no) (?:\w+ )?cost\b", re.IGNORECASE)


# Details asked in a phrase, each with how an abstract would state it: "What learning rate did
# FIRE use?", "lr for care-bn", "how long does it take to train X", "what language is the code
# written in". Asked of a paper whose abstract does not state them, the answer is that it does not.
DETAIL_PHRASES = {
    "learning rate": (r"\blearning[- ]rates?\b|\blr\b", r"\blearning[- ]rates?\b"),
    "training time": (
        r"\bhow long\b[^?]{0,40}\btrain|\btraining (time|duration)\b|\btime to train\b",
        r"\b(hours?|days?|minutes?|seconds|wall[- ]?clock|training time)\b",
    ),
    "optimizer": (
        r"\boptimi[sz]ers?\b",
        r"\boptimi[sz]ers?\b|\b(adam\w*|sgd|momentum|lamb|lion)\b",
    ),
    "programming language": (
        r"\b(language|framework)\b[^?]{0,40}\b(written|implemented|coded)\b|\bwritten in\b",
        r"\b(python|c\+\+|pytorch|jax|tensorflow|julia|rust|cuda|java)\b",
    ),
}


def asked_details(text: str) -> set[str]:
    """The details the question asks in a phrase (DETAIL_PHRASES)."""
    return {d for d, (asks, _) in DETAIL_PHRASES.items() if re.search(asks, text, re.IGNORECASE)}


def states_detail(detail: str, text: str) -> bool:
    """Whether the text states the detail (DETAIL_PHRASES)."""
    return bool(re.search(DETAIL_PHRASES[detail][1], text, re.IGNORECASE))


class Kind(StrEnum):
    """What shape the answer takes (reported per question by `rag eval`)."""

    PROSE = "prose"
    LIST = "list"
    FIGURE = "figure"
    SUMMARY = "summary"
    CONTRIBUTION = "contribution"
    NAMES = "names"
    COMPARISON = "comparison"
    FOLLOW_UP = "follow_up"


class Intent(BaseModel):
    """A question, classified."""

    question: str  # as asked
    text: str  # what is searched and checked: the question made standalone
    named: set[str] = set()  # ids of the papers the question, as asked, names
    scope: set[str] | None = None  # a follow-up's papers: those the previous answer named
    summary: bool = False
    is_list: bool = False
    asks_for_papers: bool = False  # "Which paper(s) ...?"
    asks_for_one_paper: bool = False  # "Which paper ...?"
    figure: set[str] | None = None  # what a figure question counts (empty: any figure)
    figure_scope: set[str] = set()  # what it asks the figure of ("on imagined speech")
    conditions: list[str] = []  # what every listed paper must meet
    topic: set[str] = set()  # the stems of what it is about: its content words, frame aside
    pairs: set[str] = set()  # its neighbouring topic stems, "continu learn"
    alternatives: list[str] = []  # other readings a paper may answer alone (alternatives_of)
    asks_authors: bool = False
    asks_venue: bool = False
    asks_code: bool = False  # for the papers whose abstract links to their code (CODE_ASK)
    details: set[str] = set()  # details abstracts rarely state (DETAILS, DETAIL_PHRASES)
    shape: str | None = None  # "summary", "contribution", "comparison", "names" (shape_of)

    @property
    def query(self) -> str:
        """What is searched and gated: the text, without what only asks for a shape ("Can you
        summarize the paper that recovers ..." searches "recovers ..."); a question naming its
        paper is searched as asked (its name is what finds it)."""
        subject = SHAPE_FRAME.sub("", self.text) if self.shape and not self.named else self.text
        return spelled(subject if len(subject.split()) >= 2 else self.text)

    def readings(self) -> list[tuple[set[str], set[str], list[str]]]:
        """Its topic stems, neighbouring topic stems and topic words as written, then those of
        each of its alternatives: a paper answers it when it answers one of them."""
        return [(self.topic, self.pairs, topic_words(self.text))] + [
            (topic_of(text), pairs_of(unframed(text), FRAME), topic_words(text))
            for text in self.alternatives
        ]

    @property
    def asks_metadata(self) -> bool:
        """Whether the metadata answers it: who wrote the paper, where it appeared."""
        return self.asks_authors or self.asks_venue

    @property
    def scoped(self) -> bool:
        return bool(self.scope)

    @property
    def rewritten(self) -> str | None:
        return self.text if self.text != self.question else None

    @property
    def kind(self) -> Kind:
        if self.summary or self.shape == "summary":
            return Kind.SUMMARY
        if self.shape:
            return Kind(self.shape)
        if self.scoped:
            return Kind.FOLLOW_UP
        if self.is_list:
            return Kind.LIST
        return Kind.FIGURE if self.figure is not None else Kind.PROSE


# "what is RLAF?", "whats G&C exactly": a name asked after, nothing else.
WHAT_IS = re.compile(
    r"^\s*(?:so\s+|and\s+|ok\s+)?(?:wh?at(?:'?s|\s+is|\s+are)|whats)\s+(?:the\s+)?[\w&.+-]+"
    r"(?:\s+(?:paper|method|framework|approach|algorithm|model|exactly|again))?\s*\??\s*$",
    re.IGNORECASE,
)


# What asks of a paper as a whole, not of a topic in it: "what does ARADMM achieve", "what is
# proven about SAQNN", "marsden & hazan paper - whats the contribution".
WHAT_IT_DOES = stems(
    """achieve accomplish bring contribution contribute result outcome finding find show prove
    proven establish demonstrate claim theorem theoretical theory empirical main key core central
    headline big novel new novelty idea point takeaway gist purpose goal aim do doing offer
    propose introduce present deliver solve tackle address give provide paper work study method
    approach"""
)


def asks_what_it_does(intent: Intent, own: set[str]) -> bool:
    """Whether a question about one paper asks only what the paper does: its topic words are
    the paper's `own` (its title's, its authors', the names that name it) or WHAT_IT_DOES;
    not a list, a figure, its metadata or a detail."""
    asks_other = (
        intent.is_list
        or intent.asks_for_papers
        or intent.figure is not None
        or intent.asks_metadata
        or intent.asks_code
        or intent.details
    )
    return bool(intent.topic) and not asks_other and not intent.topic - own - WHAT_IT_DOES


def classify(
    question: str,
    text: str | None = None,
    named=(),
    scope=None,
    summary: bool = False,
    tuning: AnswerTuning = DEFAULT,
) -> Intent:
    """The intent of `question`, whose standalone form is `text` (the question itself when it
    stands alone)."""
    text = text or question
    written = spelled(text)  # "rl" as "reinforcement learning": stemming drops two letters
    shape = shape_of(question) or (None if ASKS.search(question) else shape_of(text))
    if not shape and len(named) == 1 and WHAT_IS.match(question):
        shape = "contribution"  # "what is RLAF": what the paper that names it proposes
    # "neural collapse papers - how do the optimizer one and the multi-task one differ" compares
    # two of them, "which papers compare X with Y" lists
    compares = shape == "comparison" and not LIST_START.match(text)
    chosen = bool(scope) and len(scope) == 1 and chooses(text)  # "which of those is the rl one"
    names_of_one = shape == "names" and len(named) == 1  # "list the 5 datasets X uses"
    return Intent(
        question=question,
        text=text,
        named=set(named),
        scope=set(scope) if scope else None,
        summary=summary,
        is_list=not (compares or chosen or names_of_one)
        and (bool(LIST_QUESTION.search(text)) or is_search(text, named, tuning)),
        asks_for_papers=bool(PAPERS.search(text)),
        asks_for_one_paper=bool(ONE_PAPER.search(text)),
        figure=asked_figure(text),
        figure_scope=figure_scope(text),
        conditions=conditions_of(written),
        topic=topic_of(written),
        pairs=pairs_of(unframed(written), FRAME),
        alternatives=alternatives_of(written),
        asks_authors=bool(AUTHORS.search(text)),
        asks_venue=bool(VENUE.search(text)),
        asks_code=bool(CODE_ASK.search(text)),
        details=stems(AT_WHAT_COST.sub(" ", text)) & DETAILS | asked_details(text),
        shape=shape,
    )


def topic_of(text: str) -> set[str]:
    """The stems of what the question is about: its content words without a list frame
    ("which papers"), question words or framing verbs ("deal with", "anything on"); a
    hyphenated compound counts as one word too ("trade-off" is "tradeoff")."""
    text = unframed(text)
    return ((stems(text) | joined_compounds(text)) - FRAME) | headed(text)


# A frame word that heads a compound names a topic: "neural architecture search", "tree search"
# (not "search for papers on ..." nor "anything on search").
HEADS = re.compile(r"\b([a-z]+)\s+(search)\b", re.IGNORECASE)


def headed(text: str) -> set[str]:
    """The stems of the frame words the text uses as the head of a compound."""
    heads = [head for before, head in HEADS.findall(text) if stems(before) - FRAME]
    return stems(" ".join(heads))


def pairs_of(text: str, leave_out=frozenset(), skip: bool = False) -> set[str]:
    """Neighbouring content stems of the text ("continual learning" -> "continu learn"), so that
    a phrase is matched as a phrase, not as two words anywhere ("continuous ... learning");
    with `skip`, also those one word apart, as a paper's pairs ("spiking neural networks" has
    the "spiking networks" a question asks about)."""
    pairs = set()
    for part in ALTERNATIVES.split(text):  # "adam / adamw", "x or y", "a, b": not a phrase
        words = [w for w in stem_list(part) if w not in leave_out]
        apart = zip(words, words[2:]) if skip else ()
        pairs |= {f"{a} {b}" for a, b in [*itertools.pairwise(words), *apart]}
    return pairs


# What separates alternatives or items of a list: words on either side make no phrase.
ALTERNATIVES = re.compile(r"[/,;()?]|\bor\b", re.IGNORECASE)


HYPHENATED = re.compile(r"\b[A-Za-z]+(?:[-‐‑–][A-Za-z]+)+\b")
# What separates alternatives a paper need meet only one of: "sharpness / flat minima", "pricing
# or assortment", "continual learning, i.e. learning tasks in sequence", "e.g.", "such as" (not
# the "/" of "w/").
DISJUNCTION = re.compile(
    r"(?<!\bw)/|\bor\b|\b(?:e\.\s?g|i\.\s?e)\b\.?|\bsuch as\b|\bfor (?:example|instance)\b",
    re.IGNORECASE,
)
# "biology, medicine, or neuroscience", "bayesian inference, bayesian optimization, ... etc": a
# series whose items are alternatives too.
SERIES = re.compile(r"\b(?:or|etc)\b", re.IGNORECASE)
# Alternatives after a negation are what a paper must not be ("not imitation learning or
# bandits", "without backpropagation or gradient descent"): none is a reading.
NEGATED = re.compile(
    r"\b(not|no|without|except|excluding|rather than|instead of|other than)\b", re.IGNORECASE
)


def alternatives_of(text: str) -> list[str]:
    """The question's readings besides itself: each of its alternatives ("sharpness / flat
    minima papers" -> "sharpness", "flat minima papers"), those a negation governs aside, and
    the question with its hyphenated compounds closed up ("stability-plasticity trade-off" ->
    "stabilityplasticity tradeoff", as some abstracts write it)."""
    parts, asked = [], unframed(FOLLOW_UP_FRAME.sub(" ", text))
    for part in distributed(asked) or examples(asked) or DISJUNCTION.split(asked):
        if stems(part) - FRAME:
            parts.append(part.strip(" ,;.?"))
        if NEGATED.search(part):
            break  # what follows is under the negation
    parts = parts if len(parts) > 1 else []
    closed = [closed_up(part) for part in [text, *parts] if closed_up(part) != part]
    return list(dict.fromkeys(parts + closed))


SLASH = re.compile(r"(?<!\bw)/")  # not the "/" of "w/"


def distributed(text: str) -> list[str]:
    """A "/" series of single words ("query an expert / oracle / human while learning") as the
    phrases it stands for: what comes before its first word goes with each ("query an oracle",
    "query an human while learning"); empty when the text has no such series."""
    parts = [part.split() for part in SLASH.split(text)]
    if len(parts) < 3 or any(len(middle) != 1 for middle in parts[1:-1]) or len(parts[0]) < 2:
        return []
    before = " ".join(parts[0][:-1])
    return [" ".join(parts[0])] + [f"{before} {' '.join(part)}" for part in parts[1:]]


# "ideas from neuroscience - synapses, hebbian rules, hippocampus, spiking neurons etc": a topic,
# then examples of it ending in "etc", each an alternative.
ETC = re.compile(r"\betc\b\.?", re.IGNORECASE)
EXAMPLES = re.compile(r"[,?]|\s[-–—:]\s|\betc\b\.?|\bor\b|(?<!\bw)/", re.IGNORECASE)


def examples(text: str) -> list[str]:
    """The topic and each example of a series ending in "etc"; none without one."""
    return EXAMPLES.split(text) if ETC.search(text) and "," in text else []


def closed_up(text: str) -> str:
    """The text with its hyphenated compounds written as one word."""
    return HYPHENATED.sub(lambda m: re.sub(r"[-‐‑–]", "", m.group()), text)


def joined_compounds(text: str) -> set[str]:
    """The stems of the text's hyphenated compounds written as one word: "trade-off" ->
    "tradeoff", "physics-informed" -> "physicsinform"."""
    return stems(" ".join(closed_up(m) for m in HYPHENATED.findall(text)))


def is_search(text: str, named, tuning: AnswerTuning) -> bool:
    """A fragment that searches for papers: not one about a single paper it names ("clvs gain
    on imagenet-100?", "batch size for clvs") nor one asking for a shape ("eugens summary")."""
    about_one = len(named) == 1 or bool(stems(text) & DETAILS)
    return is_fragment(text, tuning.fragment_words) and not shape_of(text) and not about_one


def is_fragment(text: str, most_words: int) -> bool:
    """A few words that ask nothing: a topic typed into a search box."""
    return len(text.split()) <= most_words and not ASKS.search(text)


def in_english(question: str, tuning: AnswerTuning = DEFAULT) -> bool:
    """Whether the embedding model can read the question (see rag.answer.language)."""
    return not not_english(question, tuning.non_latin_share)


def conditions_of(question: str) -> list[str]:
    """The conditions a list question sets: its parts with two or more content words, framing
    words aside ("gnn stuff" sets none)."""
    parts = CONDITION_SPLIT.split(unframed(FOLLOW_UP_FRAME.sub(" ", question)))
    return [part.strip() for part in parts if len(stems(part) - FRAME) >= 2]


def topic_words(text: str) -> list[str]:
    """The question's topic words as written, lower case ("federated", "learning"): those
    whose stems are its topic."""
    topic = topic_of(text)
    words = re.findall(r"[a-z0-9]+", unframed(text).lower())
    return [w for w in dict.fromkeys(words) if stems(w) and stems(w) <= topic]


def asks_for_papers_on(question: str) -> bool:
    """Whether the question asks for papers on a topic it states ("federated learning papers",
    "anything on sharpness?"), not on one it leaves to the conversation."""
    return bool(LIST_QUESTION.search(question)) and bool(topic_of(question))


# "the hyperparameter trajectory inference paper - what is it about": the "it" is the paper the
# question has just described, not one of the conversation's.
ABOUT_ITSELF = re.compile(
    r"^\s*(?:(?:that|this|the)\s+)?(?P<what>\S.{2,}?)\s*(?:[-–—:,]+|\s)\s*(?:so\s+)?"
    r"what(?:'?s| is)\s+it\s+(?:all\s+)?about\s*\??\s*$",
    re.IGNORECASE,
)


def about_itself(question: str) -> str:
    """The question with a described paper's "- what is it about" asked of that paper: "what is
    the X paper about?"; any other question as it is."""
    match = ABOUT_ITSELF.match(question)
    return f"what is the {match.group('what')} about?" if match else question


def refers_back(question: str) -> bool:
    """Whether the question points at papers named before ("those", "it", "which one")."""
    return bool(REFERS_BACK.search(question))


def carries_on(question: str) -> bool:
    """Whether the question leans on the conversation without narrowing it ("What about ...",
    "also")."""
    return bool(CONTINUES.search(question))


def continues(question: str, short_words: int) -> bool:
    """Whether the question leans on the conversation so far (pronouns, "which one", "also", or
    too short to stand alone)."""
    return refers_back(question) or carries_on(question) or len(question.split()) <= short_words


def chooses(question: str) -> bool:
    """Whether the question chooses among several papers ("which one", "which of")."""
    return bool(CHOOSES.search(question))
