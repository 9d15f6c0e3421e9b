"""What an abstract's sentences do: state the problem, say what the paper proposes, report its
results. Summaries ("summarize X", "tl;dr", "what is X about"), "what does X propose?" and
comparisons are answered with those sentences, as the abstract words them and cited: no model
writes them, so they name nothing the abstract does not.

The cues are the verbs abstracts use for each role, written from how abstracts are worded, not
fitted to any question set."""

import re

from pydantic import BaseModel

from rag.answer import citations as cite
from rag.answer.about import KIND_ASKED, either, unnamed, unstated
from rag.answer.draft import Draft, abstention
from rag.answer.intent import SECOND_PART
from rag.answer.naming import names_in
from rag.answer.premises import of_others
from rag.answer.shapes import RESULT_ASK
from rag.answer.verdict import Reason
from rag.figures import MATH, math_key
from rag.models import Answer, AnswerSentence, Source
from rag.sentences import NO_CONTENT, split_sentences, stems, title_name
from rag.text import defang

# "We propose ...", "This paper introduces ...", "To address this, we ...", "Our method ..."
SPEAKER = r"\b(we|this (paper|work|study|article)|our (work|paper|approach|method|framework))\b"
SPEAKS = re.compile(SPEAKER, re.IGNORECASE)
OURS = re.compile(rf"{SPEAKER}|^\s*our\b", re.IGNORECASE)  # "Our theory reveals that ..."
CONTRIBUTION = re.compile(
    SPEAKER + r"[^.;]{0,80}?\b(propos|introduc|present|develop|design|formulat|deriv|prov(e|es|ed|"
    r"ing)\b|establish|devis|construct|put forward|reformulat|settl|adapt(s|ed)?\b|extend(s|ed)?\b)"
    r"\w*"
    r"|\bour (main |key |primary )?(results?|contributions?) (is|are)\b",  # "Our main result is"
    re.IGNORECASE,
)
MAIN_RESULT = re.compile(
    r"\bour (main|key|primary) (result|contribution)s? (is|are)\b", re.IGNORECASE
)
# Weaker: what the paper studies or provides, when it proposes nothing ("This paper studies X").
STUDIES = re.compile(
    SPEAKER + r"[^.;]{0,80}?\b(stud(y|ies)|investigat|analy[sz]|consider|provid|offer|show|"
    r"characteri[sz]|aim|explor|examin|parameteri[sz])\w*",
    re.IGNORECASE,
)
OPENS_METHOD = re.compile(
    r"^\s*(to (address|this end|tackle|overcome|bridge|fill|solve|mitigate|remedy)|in this "
    r"(paper|work)|here,? we|specifically)\b",
    re.IGNORECASE,
)
# Where a paper looks, not what it brings: "In this paper, we focus on a class of ...".
SCOPES = re.compile(r"\bwe (focus|concentrate|consider|restrict)\b", re.IGNORECASE)
RESULT = re.compile(
    r"\b(experiments?|results?|empirical\w*|evaluations?|benchmarks?|we (show|demonstrate|find|"
    r"observe|confirm|validate|verify)|outperform\w*|achiev\w*|improv\w*|surpass\w*|validated|"
    r"evaluated on|"
    r"state-of-the-art|speedups?|reduc\w* .{0,30}by|\d+(\.\d+)?\s?(%|x|×))",
    re.IGNORECASE,
)
# A result stated as a measured gain ("surpass ... by 5.9%", "up to 27\\%", "outperforms"), the one a
# summary gives over a closing outlook ("our results highlight the potential of ...").
MEASURED = re.compile(
    r"\b(outperform\w*|surpass\w*|state-of-the-art|speedups?)\b|\d+(\.\d+)?[\s$}]*\\?(%|x\b|×)",
    re.IGNORECASE,
)
# A result stated as what was found ("we find that X converges to ..."), over one that only
# points at it ("we also provide the theoretical guarantee for our empirical findings").
FINDS = re.compile(
    r"\b(find|found|show|showed|shown|prove|proved|demonstrate|observe|reveal|establish|confirm|"
    r"finding|showing|proving|demonstrating|revealing|establishing)s?"
    r"\s+(?:[\w-]+[\s:]+){0,3}?that\b",  # "reveals a unique phenomenon: that"
    re.IGNORECASE,
)
# A closing sentence that sums the results up rather than stating one ("Together, these results
# constitute a theoretical foundation for ...", "These findings suggest ..."): a result only when
# the abstract states no other.
WRAP_UP = re.compile(
    r"^\s*(together|taken together|overall|in summary|in conclusion|collectively)\b"
    r"|^\s*(these|our) (findings|results) (suggest|highlight|position|underscore|point)",
    re.IGNORECASE,
)
PROBLEM = re.compile(
    r"\b(however|challeng\w*|problem\w*|limitation\w*|suffer\w*|remain(s|ed)?|struggl\w*|lack\w*|"
    r"difficult\w*|costly|bottleneck\w*|fail\w*|issue\w*|yet|despite|important|crucial|still|"
    r"unfortunately|hinder\w*|(under|un)explored|unclear|poorly understood|little is known)\b",
    re.IGNORECASE,
)
# A sentence saying what the paper was run on ("FIRE is evaluated on ...", "We benchmark ...").
EVALUATED = re.compile(
    r"\b(evaluat\w*|experiment\w*|benchmark\w*|datasets?|tested|tests|games?|"
    r"environments?|validat\w*|results? on|on (the )?[A-Z])",
)


# A sentence that goes on about what the one before proposed: "FIRE quantifies stability
# through ...", "It ...", "Specifically, ...", "Our method ...".
GOES_ON = re.compile(
    r"^\s*(it|its|this|these|such|our|the (proposed |resulting )?(method|approach|framework|model|"
    r"algorithm|solver|estimator)s?|specifically|concretely|in particular|to (do|achieve) "
    r"(so|this)|we (first|then|further|also|use|show|prove|find|derive|obtain|establish))\b",
    re.IGNORECASE,
)

# ... or names the paper's own method further on: "Exploiting speckle, our IR$^4$Net fuses ...".
OWN_METHOD = re.compile(
    r"\b[Oo]ur (?:proposed |novel |new )?(?:method|approach|framework|model|algorithm|system|"
    r"network|[A-Z])"
)


# A sentence leaning on the one before for what it means: "DeltaZero solves this problem",
# "We formally prove that this improves the regret", "This allows us to ..." (not "In this work").
LEANS_BACK = re.compile(
    r"\b(?:this|these|such)\s+(?:[\w-]+\s+)?(?:problems?|issues?|challenges?|gaps?|limitations?|"
    r"questions?|tasks?|settings?|difficult(?:y|ies)|bottlenecks?|shortcomings?|phenomen(?:on|a)|"
    r"observations?|conclusions?|assumptions?|beliefs?|claims?|findings?|insights?)\b"
    r"|\b(?:overcome|address|tackle|solve|mitigate|remedy|resolve)\s+(?:this|these|them|it)\b"
    r"|\bthat (?:this|these|it)\b|^\s*(?:this|these)\s+(?!paper|work|study|article)[a-z]+s\b",
    re.IGNORECASE,
)


def antecedent_of(sentences: list[str], at: int) -> str:
    """The sentence before the one at `at` when that one leans back on it ("Despite this
    problem, ..."; not "we propose a model and demonstrate that it ...", whose "it" is the
    model); empty otherwise."""
    leans = at > 0 and LEANS_BACK.search(sentences[at])
    proposed = leans and CONTRIBUTION.search(sentences[at], endpos=leans.start())
    own = proposed and re.fullmatch(r"that it", leans.group(0), re.IGNORECASE)
    return sentences[at - 1] if leans and not own else ""


def with_antecedent(sentences: list[str], at: int) -> str:
    """The sentence at `at`, after its antecedent when it has one."""
    return " ".join(filter(None, [antecedent_of(sentences, at), sentences[at]]))


class Roles(BaseModel):
    """An abstract's problem, contribution and result sentences (any may be empty), the
    sentence saying more of the contribution (`detail`), and the one before it that it leans
    on (`antecedent`: "... DeltaZero, that solves this problem")."""

    problem: str = ""
    background: str = ""  # the first sentence, when none before the contribution is a problem
    antecedent: str = ""  # the sentence before the contribution, when it leans back on it
    finding: str = ""  # what it shows before the contribution ("We show that by randomizing ...")
    contribution: str = ""
    result: str = ""
    detail: str = ""
    also: str = ""  # a second thing it proposes ("We further develop ...")
    asked: str = ""  # the sentence on what the question asks about beyond (`asked_sentence`)

    @property
    def more(self) -> str:
        """A summary's line after the contribution: a second proposal, else the detail ("...
        our IR$^4$Net fuses ...", where the contribution names no method)."""
        return self.also or (self.detail if self.detail != self.result else "")


def roles(paper, verb: str = "") -> Roles:
    """The sentence of the abstract that states the problem (before the contribution), the one
    that says what the paper proposes (the first "we propose / introduce ..." sentence, the
    first using the question's `verb` when it asks "what does X introduce", else the first
    naming its method, else the second), the one going on about it (`detail`), a second thing it
    proposes within the next three sentences (`also`: "We further develop ..."), and the last
    one reporting a result after it (a measured one, when there is one; else one saying what
    was found)."""
    sentences = [s for s in split_sentences(paper.abstract) if not NO_CONTENT.search(s)]
    if not sentences:
        return Roles()
    name = title_name(paper.title)
    at = _contribution_index(sentences, name, verb)
    before = [s for s in sentences[:at] if PROBLEM.search(s)]
    after = [s for s in sentences[at + 1 :] if RESULT.search(s) or FINDS.search(s)]
    after = [s for s in after if not WRAP_UP.search(s)] or after
    after = (
        [s for s in after if MEASURED.search(s)] or [s for s in after if FINDS.search(s)] or after
    )
    finding = next((s for s in sentences[:at] if FINDS.search(s) and OURS.search(s)), "")
    following = sentences[at + 1] if at + 1 < len(sentences) else ""
    names = {name, *names_in(sentences[at])} - {None}  # "RFT-Inf quantifies ..." goes on
    goes_on = (
        GOES_ON.search(following)
        or OWN_METHOD.search(following)
        or any(following.startswith(n) for n in names)
    )
    detail = following if goes_on and not PROBLEM.search(following) else ""
    if detail and at + 2 < len(sentences) and ENUMERATED.match(sentences[at + 2]):
        detail = f"{detail} {sentences[at + 2]}"  # "(1) a module ... (2) a mechanism ..."
    result = after[-1] if after else ""
    # a second proposal comes within two sentences of detail after the first (on the seeds,
    # sentences counted from 0: the bilevel paper's 3 -> 5, the microscopy paper's 3 -> 4, HTI's
    # 2 -> 4)
    also = [
        s
        for s in sentences[at + 1 : at + 4]
        if CONTRIBUTION.search(s) and s != result and s not in detail and not FINDS.search(s)
    ]
    return Roles(
        problem=with_antecedent(sentences, sentences.index(before[-1])) if before else "",
        background="" if before else " ".join(sentences[:at][:1]),
        antecedent=antecedent_of(sentences, at),
        finding=finding,
        contribution=sentences[at],
        result=result,
        detail=detail,
        also=also[0] if also else "",
    )


# The next item of an enumeration the sentence before began: "(2) a smoothed ...", "ii) ...".
ENUMERATED = re.compile(r"^\s*\(?(2|ii|b)\)\s", re.IGNORECASE)


# A proposal added to the main one: "Additionally, we propose ...", "We also introduce ...".
ADDED = re.compile(
    r"^\s*(additionally|furthermore|moreover|finally|besides|in addition)\b|\bwe (also|further)\b",
    re.IGNORECASE,
)


def _contribution_index(sentences: list[str], name: str | None, verb: str = "") -> int:
    """The first sentence saying what the paper proposes ("we propose ...", "In this work, we
    ..."; not one that only says where it looks: "In this paper, we focus on ..."), the first
    with the asked `verb` ("introduc") when there is one, else what it studies; a sentence
    saying "Our main result is ..." comes first."""
    if main := [i for i, s in enumerate(sentences) if MAIN_RESULT.search(s)]:
        return main[0]
    if verb and (
        hits := [
            i
            for i, s in enumerate(sentences)
            if CONTRIBUTION.search(s)
            and re.search(rf"\b{verb}\w*", s, re.IGNORECASE)
            and not ADDED.search(s)
        ]
    ):
        return hits[0]
    proposes = [
        i
        for i, s in enumerate(sentences)
        if CONTRIBUTION.search(s) or (OPENS_METHOD.search(s) and not SCOPES.search(s))
    ]
    studies = [i for i, s in enumerate(sentences) if STUDIES.search(s) or OPENS_METHOD.search(s)]
    if hits := proposes or studies:
        return hits[0]
    if name and (
        hits := [i for i, s in enumerate(sentences) if re.search(rf"\b{re.escape(name)}\b", s)]
    ):
        return hits[0]
    return min(1, len(sentences) - 1)


# A sentence naming one thing names what was used when it says what the thing is ("the infinite
# dSprites dataset"; not "three EEG datasets").
DATA_NOUN = re.compile(r"\b(dataset|benchmark|environment|suite|corpus)\b")


# A sentence that lists what something covers: "... adaptive gradient methods, including but
# not limited to RMSProp, Adam-mini, and Adalayer".
ENUMERATES = re.compile(r"\b(including|such as|e\.g\.)", re.IGNORECASE)


def naming_sentence(paper) -> str:
    """The abstract's sentence on evaluation naming the most things (datasets, benchmarks,
    models: "FIRE is evaluated on ... (CIFAR-10 with ResNet-18), ... (OpenWebText with GPT-0.1B)
    ..."), other than the paper's own name, when it names two, or one it calls a dataset or
    benchmark ("the infinite dSprites dataset"); else `listing_sentence`."""
    own = {title_name(paper.title)}
    sentences = [s for s in split_sentences(paper.abstract) if not NO_CONTENT.search(s)]
    counted = [(len(set(names_in(s)) - own), s) for s in sentences if EVALUATED.search(s)]
    count, sentence = max(counted, key=lambda pair: pair[0], default=(0, ""))
    if count >= 2 or (count and DATA_NOUN.search(sentence)):
        return sentence
    return listing_sentence(sentences, own)


def listing_sentence(sentences: list[str], own: set) -> str:
    """The sentence listing the most names (other than `own`) after "including", "such as" or
    "e.g." ("including RMSProp, Adam-mini, and Adalayer"), two at least; empty when none does."""
    listed = [  # the names after "including": what it lists, not what it says of them
        (len(set(names_in(s[found.end() :])) - own), s)
        for s in sentences
        if (found := ENUMERATES.search(s))
    ]
    count, sentence = max(listed, key=lambda pair: pair[0], default=(0, ""))
    return sentence if count >= 2 else ""


def things_in(sentence: str) -> set[str]:
    """The sentence's names and formulas: "the orthogonal group $O(n)$" names O(n)."""
    return set(names_in(sentence)) | {math_key(formula) for formula in MATH.findall(sentence)}


def naming_sentences(paper) -> list[str]:
    """The naming sentence (`naming_sentence`), with the next one after it that also says what
    it was run on and names something other than the paper and the first
    ("Experiments show that LLaMA3.2-8B with ..." after "... Wanda, SparseGPT and ALPS")."""
    best = naming_sentence(paper)
    if not best:
        return []
    own = {title_name(paper.title), *things_in(best)}
    sentences = [s for s in split_sentences(paper.abstract) if not NO_CONTENT.search(s)]
    after = sentences[sentences.index(best) + 1 :] if best in sentences else []
    more = next(  # "Experiments show ..." says what it was run on too
        (s for s in after if EVALUATED.search(s[:1].lower() + s[1:]) and things_in(s) - own),
        "",
    )
    return [best, more] if more else [best]


def shaped_papers(intent, sources: list[Source], described: float = 0.4) -> list[Source]:
    """The papers a summary, contribution or comparison question is about: those it names (or
    its follow-up refers to), in retrieval order; for a summary or contribution naming none,
    the most relevant paper. A comparison needs two distinct papers: those named, then the
    most relevant others at least `described` relevant (what the question describes: "the
    paper on X vs the one on Y"), else there are none."""
    named = [s for s in sources if s.named or (intent.scope and s.paper.paper_id in intent.scope)]
    if intent.shape == "comparison":
        if not intent.scope and len(named) < 2:  # "the paper on X vs the one on Y": two
            others = sorted(sources, key=lambda s: -s.relevance)
            named += [s for s in others if s not in named and s.relevance >= described][
                : 2 - len(named)
            ]
        return named[:3] if len(named) >= 2 else []
    if intent.shape == "names" and len(named) > 1:
        return []
    if len(named) == 1 or (not named and sources and not intent.is_list):
        return (named or sources)[:1]
    return []


# The question wants the names themselves, not what was run ("names of the datasets", "which
# specific benchmarks", "which two control tasks"): an abstract giving only a count does not say.
NAMES_ONLY = re.compile(
    r"\bnames? of\b|\bwhich specific\b|\bwhat are the names\b|\b(which|what) (two|three|four|five|"
    r"six|seven|eight|\d+)\b",
    re.IGNORECASE,
)


# Kinds of data a paper is evaluated on: named where the abstract says so.
DATA_KIND = re.compile(r"^(?:data ?sets?|benchmarks?|data)$", re.IGNORECASE)


def unnamed_data(draft: Draft, source: Source) -> str:
    """The kind of data a "what dataset does X evaluate on" question asks for, when the
    abstract never speaks of that kind and none of its sentences on evaluation names anything
    but the paper itself ("EvA"); empty otherwise."""
    asked = KIND_ASKED.search(draft.intent.text)
    if not asked or not DATA_KIND.match(asked.group("kind")):
        return ""
    kind, own = stems(asked.group("kind")), {title_name(source.paper.title)}
    for sentence in split_sentences(source.paper.abstract):
        if kind <= stems(sentence) or (
            EVALUATED.search(sentence) and set(names_in(sentence)) - own
        ):
            return ""
    return asked.group("kind")


def _named_things(source: Source, draft: Draft) -> Answer | None:
    """The paper's sentence naming what it uses, cited and shown as its evidence; None when it
    has none (the question takes the normal path)."""
    named = naming_sentences(source.paper)
    sentence = named[0] if named else ""
    if kind := unnamed(draft.intent, source):  # "which three EEG datasets": counted, not named
        text = f"The abstract of '{source.paper.title}' does not name the {kind[0]}."
        return abstention(draft, [source], Reason.NOT_STATED, text=text)
    if missing := unstated(draft.intent, source):  # "which Atari games" of a paper without any
        text = f"The abstract of '{source.paper.title}' never mentions {either(missing)}."
        return abstention(draft, [source], Reason.NOT_STATED, text=text)
    data = "" if sentence else unnamed_data(draft, source)
    if not sentence and (data or NAMES_ONLY.search(draft.intent.text)):
        them = f"the {data}" if data else "them"
        text = f"The abstract of '{source.paper.title}' does not name {them}."
        return abstention(draft, [source], Reason.NOT_STATED, text=text)
    if not sentence:
        return None
    first, *rest = [defang(s).rstrip(".") for s in named]
    lines = [_line(f"{defang(source.paper.title)}: {first}.", 1)]
    lines += [_line(f"{s}.", 1) for s in rest]
    return _answer(lines, [source], {source.paper.paper_id: named[0]}, draft)


def _answer(sentences, sources, evidence: dict, draft: Draft) -> Answer:
    citations = cite.renumber(sentences, sources)
    for citation in citations:
        citation.evidence = evidence.get(citation.paper_id)
    draft = draft.model_copy(
        update={"layout": "list", "writer_is_model": False, "ttft_s": draft.elapsed()}
    )
    return draft.answer(
        text=cite.render(sentences, "\n"), citations=citations, sentences=sentences, sources=sources
    )


def _line(text: str, number: int) -> AnswerSentence:
    return AnswerSentence(text=text, citations=[number], support=1.0, supported=True)


def compared_aspect(intent, sources: list[Source]) -> set[str]:
    """What a comparison asks about beyond the papers ("compare the regret bounds of A and B":
    regret, bound): its topic words, less the names it gives and the compared papers' title
    words (with which it describes them: "the neural collapse papers"); after the papers, all
    the words of what it asks "in how they obtain accelerated rates", title words or not."""
    described = " ".join([*names_in(intent.question), *(s.paper.title for s in sources)])
    asked = ASPECT.search(intent.text)
    own = stems(asked.group("aspect")) & intent.topic if asked else set()
    return own or intent.topic - stems(described)


# What a comparison asks about, after the papers: "... in how they obtain accelerated rates",
# "... in terms of their guarantees", "how do A and B each deal with spectral bias".
ASPECT = re.compile(
    r"\b(?:in (?:how|what|terms of|the way)|with respect to|regarding|when it comes to|each)\s+"
    r"(?P<aspect>[^?]+)",
    re.IGNORECASE,
)


# A sentence opening in the paper's own voice ("We formulate mask generation as optimal transport
# problems") says what it does, whatever problem words it uses.
OWN_VOICE = re.compile(r"\s*(?:we|our)\b", re.IGNORECASE)


def asked_sentence(paper, aspect: set[str], found: Roles) -> str:
    """The abstract's sentence using most of the comparison's `aspect` words (the first of
    those, at least one) among what the paper brings (from where it first speaks of itself,
    "We show that ...", or its contribution sentence on; no sentence in problem words unless it
    opens in its own voice: "We formulate ..."), other than the sentences the answer gives."""
    sentences = [s for s in split_sentences(paper.abstract) if not NO_CONTENT.search(s)]
    start = sentences.index(found.contribution) if found.contribution in sentences else 0
    start = next((i for i, s in enumerate(sentences[:start]) if SPEAKS.search(s)), start)
    scored = [  # most aspect words; on a tie, one without problem words, then the earliest
        (len(aspect & stems(s)), not PROBLEM.search(s), -place, s)
        for place, s in enumerate(sentences[start:])
        if (not PROBLEM.search(s) or OWN_VOICE.match(s))  # "We formulate ... as OT problems"
        and not of_others(s)
        and s not in (found.contribution, found.result)
    ]
    count, _, _, sentence = max(scored, default=(0, True, 0, ""))
    return sentence if count else ""


# The verb a "what does X introduce / propose / prove" question asks with.
ASKED_VERB = re.compile(
    r"\b(propos|introduc|develop|prove|present|design|deriv|establish)\w*", re.IGNORECASE
)


def asked_verb(question: str) -> str:
    """The stem of the verb a contribution question asks with ("introduc"), or ""."""
    asked = ASKED_VERB.search(question)
    return asked.group(1).lower() if asked else ""


LABELS = {
    "asked": "in particular",
    "also": "also",
    "more": "also",
    "antecedent": "context",
}  # how a role's line is labelled, where not by its name


# A summary (or contribution) of more lines says most of an abstract (the seeds' run 4 to 11
# sentences, 7 at the median): past SUMMARY_LINES, the background, the method's detail (a
# summary's "more", a contribution's "detail") and the sentence the contribution leans on go
# first, in that order.
SUMMARY_LINES = 4
SPARE = ("background", "more", "detail", "antecedent")


def role_lines(
    source: Source,
    found: Roles,
    number: int,
    which: tuple[str, ...],
    labelled: bool,
    most: int | None = None,
) -> list:
    """The paper's role sentences (`found`) as cited answer lines; the first names the paper.
    Beyond `most` lines, the SPARE roles are left out, in their order."""
    chosen, title = [], defang(source.paper.title)
    for role in which:
        sentence = defang(getattr(found, role)).rstrip(".")
        if sentence and not any(sentence in earlier for _, earlier in chosen):
            chosen.append((role, sentence))
    for spare in SPARE:
        if most and len(chosen) > most:
            chosen = [(role, sentence) for role, sentence in chosen if role != spare]
    lines = []
    for role, sentence in chosen:
        label = LABELS.get(role, role) if labelled else ""
        if not lines:  # the paper's first line names it
            head = f"{title} — {label}: " if label else f"{title}: "
        else:
            head = f"{label.capitalize()}: " if label else ""
        lines.append(_line(f"{head}{sentence}.", number))
    return lines


def composed(shape: str, sources: list[Source], draft: Draft) -> Answer | None:
    """The answer of `shape` (summary, contribution, comparison) from the papers' own role
    sentences, each cited; None when they give nothing to say."""
    if shape == "names":
        return _named_things(sources[0], draft)
    which = {
        "summary": (
            "problem",
            "background",
            "antecedent",
            "finding",
            "contribution",
            "more",
            "asked",
            "result",
        ),
        "contribution": ("antecedent", "contribution", "detail", "also", "result", "asked"),
        "comparison": ("antecedent", "contribution", "asked", "result"),
    }[shape]
    question = draft.intent.text
    if shape == "contribution" and RESULT_ASK.search(question):
        which = ("finding", *which)  # "what do they show / prove / find about X"
    second = SECOND_PART.search(question)  # "What does X introduce, and how is it scalable?"
    first = question[: second.start()] if second else question
    verb = asked_verb(first) if shape == "contribution" else ""
    found = {s.paper.paper_id: roles(s.paper, verb) for s in sources}  # once per paper
    if shape == "comparison":  # what the comparison is about: "their regret bounds"
        aspect = compared_aspect(draft.intent, sources)
    else:
        aspect = stems(second.group("rest")) - stems(sources[0].paper.title) if second else set()
    for source in sources:
        chosen = found[source.paper.paper_id]
        chosen.asked = asked_sentence(source.paper, aspect, chosen) if aspect else ""
    sentences = [
        line
        for number, source in enumerate(sources, start=1)
        for line in role_lines(
            source,
            found[source.paper.paper_id],
            number,
            which,
            labelled=shape != "contribution",
            most=SUMMARY_LINES if shape in ("summary", "contribution") else None,
        )
    ]
    if not sentences:
        return None
    evidence = {
        pid: r.contribution or r.result or r.problem or r.background for pid, r in found.items()
    }
    return _answer(sentences, sources, evidence, draft)
