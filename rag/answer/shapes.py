"""The shape of answer a question asks for (`shape_of`: a summary, a contribution, a comparison,
or the names it uses) and the papers a comparison sets side by side (`compared_parts`,
`compared_group`); rag.answer.roles composes the answer of that shape."""

import re

# What the answer's shape is when the question asks for one (rag.answer.roles composes it).
# A word that asks for a summary whatever else the question asks ("in a nutshell, what does X do?").
SUMMARY_WORDS = (
    r"summari[sz]\w*|summary|summaries|sum+[ae]?ry|eli5|overview|tl;?\s?dr|gist|in a nutshell"
)
SUMMARY_WORD = re.compile(rf"\b({SUMMARY_WORDS})\b", re.IGNORECASE)
# "What problem does LEGACY address?": the paper's problem, what it does about it and its result,
# as a summary gives them (not the sentence closest to "problem"); not a part's ("What problem
# does the ICSR module in IR4Net address?": the module's sentence).
PROBLEM_ASK = re.compile(
    r"^\s*(?:so\s+|and\s+|ok\s+)?(?:what|which)\s+(?:\w+\s+)?(?:problems?|challenges?|issues?|"
    r"gaps?|bottlenecks?|limitations?)\s+(?:does|do|did|is|are)\b"
    r"(?![^?]*\b(?:modules?|components?|blocks?|layers?|loss|terms?|steps?|mechanisms?|stages?|"
    r"parts?)\b)[^?]*?\b(?:address|solv|tackl|target|overcom|fix|attack)\w*",
    re.IGNORECASE,
)
SUMMARY_ASK = re.compile(
    rf"\b({SUMMARY_WORDS}|outline (the|this) (paper|work)|high[- ]level|main points?)\b"
    r"|^\s*(what('?s| is| are)|tell me)\b[^?]{0,120}\babout\s*(\?|$|[,;(—–-])"  # "X about, the one w/"
    r"|^\s*tell me (more )?about\b"
    r"|\bwhat('?s| is)\s+(it|this|that|the (paper|work|study))\s+(all\s+)?about\s*(\?|$)"
    r"|\b(explain|describe|break ?down)\b[^?]{0,30}\b(paper|work|article)\b"
    r"|^\s*(explain|describe)\s+\S+(\s+(pls|please|briefly|simply|in (a few|short|brief|simple|"
    r"plain)\b.*))?\s*\??$",
    re.IGNORECASE,
)
CONTRIBUTION_ASK = re.compile(
    r"\bwh?at (does|did|do|is)\b[^?]{1,60}?\b(propos\w*|introduc\w*|present\w*|contribut\w*|"
    r"offer\w*|develop\w*|do|doing|suggest\w*|show\w*|prove\w*)\s*\??\s*$"
    r"|\bwh?at( \w+){0,3} (does|did|do)\b[^?]{1,120}?\b(propose|proposes|introduce|introduces|"
    r"contribute|contributes|show|shows|prove|proves|establish|establishes|demonstrate|"
    r"demonstrates)\b|\bwhat (does|did)\b[^?]{1,60}?\bdo for\b|\bwhat('?s| is) new\b"
    r"|\bwh?at('?s| is| was| are| were) (being )?(proposed|introduced|presented|contributed)\b"
    r"|\b(main |key |core )?(contributions?|contribs?|idea|novelty) (of|in|behind)\b"
    r"|\b(main|key|core|big|new) (contributions?|idea|novelty)\s*\??\s*$"
    r"|\bwh?at('?s| is| are| were)( the| its| their)? (contributions?|contribs?|novelty)\b"
    r"|\bwh?at('?s| is)\b[^?]{0,60}\b((new|main|key|core|big) idea|trick)\b"
    r"|\b(main|key|core|central|headline) (results?|findings?|theorem|claim)\b",
    re.IGNORECASE,
)
# A contribution question asking what the paper found: its result sentence says that too.
RESULT_ASK = re.compile(
    r"\b(show|shows|showed|prove|proves|proved|proven|establish\w*|demonstrat\w*|find|finds|found|"
    r"results?|findings?|theorems?|claims?)\b",
    re.IGNORECASE,
)
# "What datasets does X use?", "which benchmarks ...": the answer is the names the abstract gives.
NAMES_ASK = re.compile(
    r"^(?!.*\bhow many\b).*\b(what|which|on what|any)\s+(datasets?|benchmarks?|data ?sets?|"
    r"environments?|games?|baselines?)\b"
    r"|^(?!.*\bhow many\b).*\b(datasets?|benchmarks?|baselines?|envs?)\b[^?]{0,40}\b(used?|uses|"
    r"evaluat\w*|test\w*|tried|validat\w*|run|ran|trained|benchmark\w*|experiment\w*)\b"
    # "which other optimizers besides Adam does X cover"
    r"|\b(what|which)\s+(other\s+)?(models?|architectures?|archs?|backbones?|optimi[sz]ers?)\s+"
    r"((besides|other than|apart from|except)\s+[\w-]+\s+)?(does|do|did|is|are|was|were)\b"
    r"|\b(what|which)\s+([\w-]+\s+)?(architectures|archs|backbones)\b"  # "which model archs"
    # "which existing permutation sgd algos does X cover" (not "which methods do papers use")
    r"|^(?!.*\b(?:papers|works|studies|ones|how many)\b).*\b(what|which)\s+(?:[\w-]+\s+){0,3}?"
    r"(algorithms|algos|methods|optimi[sz]ers|variants)\s+(does|do|did)\b"
    r"|^(?!.*\bhow many\b).*\b(models?|architectures?|archs?|llms?|backbones?)\s*(and|n|\+|&|/)\s*"
    r"(datasets?|benchmarks?|tasks?)\b"
    r"|\b(names? of|which specific|(which|what)( (were|are|was|is) the)? (two|three|four|five|six|"
    r"\d+))\b[\w -]{0,30}?"
    r"\b(datasets?|benchmarks?|tasks?|environments?|games?|categories|baselines?)\b",
    re.IGNORECASE,
)
COMPARISON_ASK = re.compile(
    r"\b(compar(e|ing|ison)|(?<!by )(?<!in )contrast|differ|differs|differences?|vs\.?|versus)\b"
    r"|\bsimilarit(y|ies) between\b|\b(have|has|share) in common\b|\brelate to each other\b"
    r"|\bdifferent(ly)? from\b|"
    r"\band\b[^?]{1,100}\beach\s+(?!of\b|other\b)[a-z]+|"  # "how do A and B each deal with X"
    r"\bdistinguish\w*|\bhow (are|is|were|was|r)\b[^?]{0,60}\bdifferent\b"  # "how r they"
    r"|\bhow (does|do|did)\b[^?]{0,120}\brelates? to (the|that|this)\b[^?]{0,80}"
    r"\b(paper|work|one)\b",  # "how does the X paper relate to the Y paper"
    re.IGNORECASE,
)


# A comparison of papers the question describes as a group: "how do the two quantum papers
# differ", "compare the pruning papers" (not "which papers compare X with Y", a list).
GROUP = re.compile(
    r"\b(?:the|both|these)\s+(?:(?P<count>two|three|four|[234])\s+)?(?P<what>(?:[\w-]+\s+){0,5}?"
    r"(?:papers|works|studies))\b",
    re.IGNORECASE,
)
# A question that starts asking for papers: "which papers compare X with Y" is a list.
LIST_START = re.compile(
    r"\s*(which|list|name|find|show|are there|any|(some |other )?(papers|works|articles|studies))\b",
    re.IGNORECASE,
)
NUMBERS = {"two": 2, "three": 3, "four": 4, "2": 2, "3": 3, "4": 4}


def compared_group(text: str) -> int | None:
    """How many papers a comparison of a described group compares ("the two quantum papers":
    2; "the pruning papers": up to 3); None when it names no group or asks for a list."""
    match = GROUP.search(text)
    if not match or LIST_START.match(text):
        return None
    return NUMBERS.get((match.group("count") or "").lower(), 3)


# The two papers a comparison describes: "model folding vs transposable N:M masks, how do
# they differ", "how do the pricing paper and the bandit paper differ in ...", "compare the
# sharpness paper with the bilevel one".
COMPARED_PARTS = (
    re.compile(
        r"^\s*(?:compare\s+)?(?P<a>[^,?;]+?)\s+(?:vs\.?|versus)\s+(?P<b>[^,?;]+?)"
        r"(?=\s*(?:[,?;]|:\s)|\s+-\s|\s+(?:how|what|which|in terms|on|for)\b|\s*$)",
        re.IGNORECASE,
    ),
    re.compile(
        r"\bhow (?:do|does|did)\s+(?P<a>[^,?]+?)\s+and\s+(?P<b>[^,?]+?)\s+(?:differ|compare)\b",
        re.IGNORECASE,
    ),
    re.compile(
        r"^\s*compare\s+(?P<a>[^,?:]+?)\s+(?:and|with|to)\s+(?P<b>[^,?:]+?)"
        r"(?=\s*[,?:]|\s+(?:in|on)\b|\s*$)",
        re.IGNORECASE,
    ),
)


VERSUS = re.compile(r"\b(?:vs\.?|versus)(?!\w)", re.IGNORECASE)
PAPER_WORD = re.compile(r"\b(?:papers?|works?|study|studies|articles?)\b", re.IGNORECASE)


def compared_parts(text: str) -> list[str]:
    """The descriptions of the two papers a comparison compares, as written; empty when it
    writes none apart."""
    match = next((m for pattern in COMPARED_PARTS if (m := pattern.search(text))), None)
    return [match.group("a"), match.group("b")] if match else []


# What asks for the shape, not what it is about: "Can you summarize the paper that ...".
SHAPE_FRAME = re.compile(
    r"^\s*((can|could|would) you |please |pls )?(summari[sz]e|give( me)? (an? )?(overview|summary|"
    r"tl;?\s?dr) of|tl;?\s?dr( of)?|explain|describe|compare)\s+((the|this) (paper|work|article)s?"
    r"\s*)?((that|which|on|about|where)\s+)?",
    re.IGNORECASE,
)


# "the folding vs pruning study", "the folding-versus-pruning study", "the paper comparing folding
# with pruning": one paper about two things, no comparison of papers.
ONE_ABOUT_TWO = re.compile(
    r"^(?:(?!\b(?:paper|study|work|one)\b).)*\b(?P<vs>vs\.?|versus)(?:\s+|-)[\w-]+(?:\s+[\w-]+)?\s+"
    r"(?:study|paper|work|analysis)\b"
    r"|\b(?:paper|study|work|article)\s+(?P<ing>(?:that|which)\s+(?:compares|contrasts)|comparing|"
    r"contrasting)\b",
    re.IGNORECASE,
)


# "Which EEG datasets did they test on?", "what backbone does X use": asks for the names of
# things of a kind. Words written from the kinds of names abstracts give, not from any question;
# not "models" or "tasks", words abstracts use for much besides the things they name ("model
# folding").
KINDS = (
    r"(?:datasets?|benchmarks?|games?|environments?|baselines?|backbones?|architectures?|"
    r"languages?|species|metrics?|llms?|gpus?|solvers?|simulators?|categor(?:y|ies)|classes)"
)
# "Which two control tasks were used to compare X against Y?": the names of things it counts, of
# a kind that has names (KINDS, and the words abstracts also use for other things, which a count
# makes a kind: "two control tasks"); not "which two papers ...", nor "what two components".
COUNTED = re.compile(
    r"^\s*(?:so\s+|and\s+)?(?:which|what|list|name)\s+(?:(?:were|are)\s+)?(?:the\s+)?(?:\d+|two|"
    r"three|four|five|six|seven|eight|nine|ten)\s+(?:[\w-]+\s+){0,2}?(?:" + KINDS + r"|data ?sets?|"
    r"tasks?|models?|domains?|networks?|optimi[sz]ers?|algorithms?|methods?|attacks?)\b",
    re.IGNORECASE,
)


def shape_of(text: str) -> str | None:
    """The answer shape the question asks for: comparison, contribution, summary, or the names
    it uses (datasets, benchmarks ...)."""
    if COUNTED.search(text):
        return "names"
    asked = COMPARISON_ASK.search(text)
    one = ONE_ABOUT_TWO.search(text)
    if asked and one and asked.start() in (one.start("vs"), one.start("ing")):  # describes one
        asked = COMPARISON_ASK.search(text, one.end())
    if (
        asked
        and asked.group(1)
        and asked.group(1).lower().startswith("v")
        and SUMMARY_ASK.search(text)
    ):
        return "summary"  # "tldr the paper about pure vs mixed states"
    if asked:
        return "comparison"
    for shape, ask in (
        ("summary", SUMMARY_WORD),
        ("summary", PROBLEM_ASK),
        ("names", NAMES_ASK),
        ("contribution", CONTRIBUTION_ASK),
        ("summary", SUMMARY_ASK),
    ):
        if ask.search(text):
            return shape
    return None
