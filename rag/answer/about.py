"""Questions about one paper that its metadata answers ("who wrote the FIRE paper?"), that ask
a detail its abstract does not state ("What GPU did LEGACY use?", "which EEG datasets?" when it
only counts them), or that take for granted what an abstract denies ("Why does X conclude that
<not so>?"): answered without a model, from the metadata, or by saying what the abstract does
not state (or says instead) and what it comes closest to."""

import re

from rag.answer import citations as cite
from rag.answer.decision import SPELLED
from rag.answer.draft import Draft, abstention
from rag.answer.intent import DETAIL_PHRASES, FRAME, Intent, joined_compounds, states_detail
from rag.answer.lines import closest_sentences
from rag.answer.naming import NEGATION, Known, names_in
from rag.answer.verdict import Reason
from rag.index.bm25 import abbreviations
from rag.models import Answer, AnswerSentence, Source
from rag.sentences import metadata_sentence, split_sentences, stems


def asked_paper(intent: Intent, sources: list[Source], relevant: bool) -> Source | None:
    """The one paper the question is about: the only one it names (or its follow-up refers
    to); for a question about authors, the most relevant paper when the corpus answers."""
    named = [s for s in sources if s.named or (intent.scope and s.paper.paper_id in intent.scope)]
    if intent.asks_metadata and relevant and sources:
        return (named or sources)[0]
    return named[0] if len(named) == 1 else None


def unstated(intent: Intent, source: Source, others=frozenset()) -> list[str]:
    """The question's words for the details it asks (intent.details) that the paper's text
    never uses, as the question writes them; and the names it gives (datasets, models,
    hardware: "What accuracy does LEGACY reach on CIFAR-10?") that the paper never states — a
    false premise is answered by saying so, not from the closest sentence. `others` are names
    of other papers ("EvA vs MLES"): no premise about this one."""
    text = f"{metadata_sentence(source.paper)} {source.paper.abstract}"
    phrases = [d for d in intent.details if d in DETAIL_PHRASES and not states_detail(d, text)]
    missing = intent.details - set(DETAIL_PHRASES) - stems(text)
    words = re.findall(r"[A-Za-z][A-Za-z0-9-]+", intent.text)
    known = Known(text)
    names = [n for n in names_in(intent.question) if not known.states(n) and n not in others]
    closed = re.sub(r"[\s${}]", "", text)
    values = [v for v in settings(intent.question) if v not in closed]
    return list(
        dict.fromkeys([*phrases, *(w for w in words if stems(w) & missing), *names, *values])
    )


# A setting the question states ("masks with M=4", "k = 10"): a premise when the abstract never
# writes it.
SETTING = re.compile(r"(?<![\w=])[A-Za-z]\s?=\s?\d+(?:\.\d+)?(?![\w.])")


def settings(text: str) -> set[str]:
    """The settings a text states, spaces aside ("M = 4" is "M=4")."""
    return {re.sub(r"\s", "", setting) for setting in SETTING.findall(text)}


# "How does X use a diffusion model to ...?" takes for granted that X uses one: the technique
# is what follows the verb, up to the purpose ("to ...", "for ...") or the end.
USES = re.compile(
    r"^\s*how (?:does|do|did|can|could|would)\b.+?\b(?:uses?|using|appl(?:y|ies)|employs?|"
    r"leverages?|incorporates?|utili[sz]es?|exploits?|integrates?|rel(?:y|ies) on|combines?)\s+"
    r"(?!(?:to|for|in|into|when|so|as|with|on|at|during|while)\b)"  # "which ... to use during"
    r"(?P<what>.+?)(?:\s+(?:to|for|in|into|when|so|as|with|on|at|during|while)\b|[?.!]|$)",
    re.IGNORECASE,
)


# "How does X train Poincaré embeddings", "how does X fine-tune with calibration data", "how does
# X handle prices with a neural network": what it is done with, or what is trained, is taken for
# granted too.
DONE_WITH = re.compile(
    r"^\s*how (?:does|do|did|can|could|would)\b.+?\b(?:(?:with|using|via|through)\s+(?:an?\s+)?|"
    r"(?:trains?|fine-?tunes?)\s+)"
    r"(?P<what>.+?)(?:\s+(?:to|for|in|into|when|so|as|on|at|during|while|after|before)\b|[?.!]|$)",
    re.IGNORECASE,
)


# "What diffusion model does X use to ...?" takes the same for granted.
WHAT_USED = re.compile(
    r"^\s*(?:what|which)\s+(?P<what>[\w\s-]{3,40}?)\s+(?:does|do|did)\s+.+?\b(?:uses?|"
    r"employs?|leverages?|adopts?|rel(?:y|ies) on|appl(?:y|ies)|builds? on)\b",
    re.IGNORECASE,
)


def presumed(intent: Intent, source: Source, lexicon, common: float) -> list[str]:
    """The technique a "how does X use T ...?" ("what T does X use?", "how does X train T",
    "... with T") question takes for granted, when X's text uses less than half of T's
    informative words, weighed by rarity (typos corrected, "llm" read as its words; a word in
    more than `common` of the corpus's chunks, "model" or "learning", tells nothing): a false
    premise, answered by saying so ("reinforcement learning from human feedback" of a paper
    that only says "reinforcement learning")."""
    match = (
        USES.search(intent.text) or WHAT_USED.search(intent.text) or DONE_WITH.search(intent.text)
    )
    if not match or lexicon is None:
        return []
    asked = lexicon.corrected(stems(match.group("what")) - FRAME, defined=False)  # "ppo" as is
    frequencies = lexicon.frequencies(asked)
    idf = {w: lexicon.idf_of(n) for w, n in frequencies.items() if n <= common * lexicon.documents}
    if not idf or 2 * sum(v for w, v in idf.items() if w in own_words(source)) >= sum(idf.values()):
        return []
    return [match.group("what")]


# A sentence about other work, not the paper's own ("Most existing attacks leverage gradient
# information"), and a clause that sets the paper against it ("Unlike prior methods, ...").
OTHERS = re.compile(
    r"^\s*(?:(?:however|yet|but|unfortunately|still|in practice),?\s+)?"
    r"(?:(?:most|many|some|several|these|such)\s+)?(?:existing|prior|previous|conventional|"
    r"traditional|current|standard|classical|popular|earlier|common)\b",
    re.IGNORECASE,
)
# ... anywhere in it: "While X has been proposed, existing methods for Y are restricted to M=4".
OTHERS_NAMED = re.compile(
    r"\b(?:existing|prior|previous|conventional|traditional|classical|earlier)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:methods?|approach\w*|works?|techniques?|attacks?|analys[ie]s|"
    r"models?|algorithms?|solutions?|studies|frameworks?|literature|research|solvers?|"
    r"baselines?)\b",
    re.IGNORECASE,
)
OWN = re.compile(r"\b(?:we|our|this (?:paper|work|study))\b", re.IGNORECASE)
SET_AGAINST = re.compile(
    r"^\s*(?:unlike|in contrast to|compared to|as opposed to)\b[^,]*,", re.IGNORECASE
)


def of_others(sentence: str) -> bool:
    """Whether the sentence speaks of other work, not the paper's own."""
    others = OTHERS.search(sentence) or OTHERS_NAMED.search(sentence)
    return bool(others) and not OWN.search(sentence)


def spelled_within(sentence: str, defined: dict[str, str]) -> str:
    """The sentence with the abbreviations its abstract `defined` followed by their words
    ("NC" -> "NC (neural collapse)"), as the paper means them."""

    def spell(match: re.Match) -> str:
        words = defined.get(match.group().lower().removesuffix("s"))
        return f"{match.group()} ({words})" if words else match.group()

    return re.sub(r"\b[A-Z][A-Za-z&]*[A-Z]s?\b", spell, sentence)


def own_words(source: Source, span: int = 4) -> set[str]:
    """The words a paper uses of itself: its title's, and its abstract's but for those a
    negation governs ("without gradient-based training": the `span` words after it) and the
    sentences and clauses about other work (`OTHERS`, `SET_AGAINST`); with abbreviations also
    read as their words, as `words_of` reads them."""
    words = stems(source.paper.title)
    for sentence in split_sentences(source.paper.abstract):
        if of_others(sentence):
            continue
        sentence = SET_AGAINST.sub("", sentence)
        denied = set().union(
            *(
                stems(" ".join(sentence[n.end() :].split()[:span]))
                for n in DENIES.finditer(sentence)
            )
        )
        words |= stems(sentence) - denied
    return (
        words
        | joined_compounds(source.paper.abstract)
        | set().union(*(SPELLED.get(w, ()) for w in words))
    )


# "Which EEG datasets did they test on?", "what backbone does X use": asks for the names of
# things of a kind. Words written from the kinds of names abstracts give, not from any question;
# not "models" or "tasks", words abstracts use for much besides the things they name ("model
# folding").
KINDS = (
    r"(?:datasets?|benchmarks?|games?|environments?|baselines?|backbones?|architectures?|"
    r"languages?|species|metrics?|llms?|gpus?|solvers?|simulators?)"
)
KIND_ASKED = re.compile(
    rf"\b(?:which|what)\s+(?:(?:were|are|was|is)\s+the\s+)?"  # "what were the three ..."
    rf"(?:(?!(?:does|do|did|is|are|was|were|has|have|had)\b)[\w-]+\s+){{0,3}}?"  # no verb
    rf"(?P<kind>{KINDS}(?:\s+{KINDS})?)\b",
    re.IGNORECASE,
)


def unnamed(intent: Intent, source: Source) -> list[str]:
    """The kind of thing a "which <kind>" question asks the names of ("EEG datasets"), when the
    paper's sentences that speak of that kind name none near it ("Validated on three EEG
    datasets", "HumanoidBench with SAC and Atari games with DQN" for "which Atari games"):
    names the question gives itself and the paper's own names aside. Empty when they name some,
    or when no sentence speaks of the kind (the names may stand elsewhere: "on ResNet-18")."""
    match = KIND_ASKED.search(intent.text)
    if not match:
        return []
    kind = stems(match.group("kind"))
    if not kind:
        return []
    own = {n.casefold() for n in names_in(source.paper.title)} | set(
        re.findall(r"[\w-]+", intent.question.casefold())
    )
    speaking = [s for s in split_sentences(source.paper.abstract) if kind <= stems(s)]
    named = [n for s in speaking for n in names_near(s, kind) if n.casefold() not in own]
    return [match.group("kind")] if speaking and not named else []


def names_near(sentence: str, kind: set[str], span: int = 2) -> list[str]:
    """The names within `span` words of the sentence's words of the `kind` ("Pong and Breakout
    games", "Atari games such as Pong", "the ’24 and ’25 benchmarks"; not SAC in "HumanoidBench
    with SAC and Atari games")."""
    words = sentence.split()
    near = [
        " ".join(words[max(i - span, 0) : i + span + 1])
        for i, w in enumerate(words)
        if stems(w) & kind
    ]
    return [name for words in near for name in [*names_in(words), *EDITION.findall(words)]]


EDITION = re.compile(r"[’'](?:\d\d)\b")  # "the Brain-to-Text ’24 and ’25 benchmarks"


# Words that deny what follows them: a negation, and the verbs that say it cannot be.
DENIES = re.compile(rf"{NEGATION.pattern}|\b(cannot|fail(?:s|ed)? to|unable to)\b", re.IGNORECASE)
# "Why does X conclude that P?" takes P for granted.
WHY_CLAIM = re.compile(
    r"^\s*(?:(?:in|according to|for)\b[^,?]{0,80},\s*)?"  # "According to X, why does ..."
    r"why\s+(?:does|did|do|is|was|would)\b.+?\b(?:conclude|find|found|show|claim|argue|"
    r"report|say|state|prove|demonstrate|observe|suggest)s?\s+that\s+(?P<claim>.+)",
    re.IGNORECASE,
)


# A negation governs the next `span` words; a denying sentence shares at least two of the
# premise's words. Both set by reading dev's "why does X conclude that ..." questions (u052, u088,
# x104): "NC cannot emerge under decoupled weight decay" is 3 words from "decoupled".
def contradicted(question: str, sources: list[Source], span: int = 4) -> tuple[Source, str] | None:
    """The paper and its sentence that deny what a "why does X conclude that P?" question takes
    for granted: a sentence using two or more of P's words with a negation governing one of
    them ("NC cannot emerge under decoupled weight decay" against "... decoupled weight decay
    speeds up the emergence of NC"; "without gradient-based training" against "gradient
    fine-tuning is necessary"), while P itself denies nothing. None otherwise."""
    match = WHY_CLAIM.search(question)
    if not match or DENIES.search(match.group("claim")):
        return None
    claim, denials = stems(match.group("claim")), []
    for source in sources:
        for place, sentence in enumerate(split_sentences(source.paper.abstract)):
            shared = len(claim & stems(sentence))
            governed = (
                stems(" ".join(sentence[negation.end() :].split()[:span]))
                for negation in DENIES.finditer(sentence)
            )
            if shared >= 2 and any(claim & words for words in governed):
                denials.append((shared, place, source, sentence))
    # most of P's words first, then the latest sentence (results come after background)
    return max(denials, key=lambda d: d[:2])[2:] if denials else None


# Words that say which way something goes, as stems: a premise saying one way (P: "guessing
# generalizes better as nets get wider") that the paper's sentence on the same thing reverses
# ("generalization under G&C deteriorates with increasing width") is false. Each entry is what
# the premise says, then what reverses it; written from what comparisons say, not from any
# question ("improves" is no entry: stemming drops it as a generic research verb).
BETTER = {"better", "superior", "outperform", "beat"}
WORSE = {"wors", "deterior", "inferior", "underperform", "degrad", "hurt"}
EASIER, HARDER = {"easier", "easi", "simpler"}, {"harder", "hard"}
FASTER, SLOWER = {"faster", "speed", "acceler", "quicker"}, {"slower", "slow", "cannot", "hinder"}
SAME = {"same", "ident", "similar", "equival", "univers", "regardless", "invari", "independ"}
DIFFERENT = {"differ", "distinct", "depend", "vari"}
# A premise saying how a size goes ("wider networks") speaks of what the abstract measures
# ("with increasing width").
DIMENSIONS = {
    "wide": "width",
    "wider": "width",
    "widest": "width",
    "deep": "depth",
    "deeper": "depth",
    "deepest": "depth",
    "long": "length",
    "longer": "length",
    "larger": "size",
    "bigger": "size",
    "smaller": "size",
}
# "as hard as", "as good as": neither way, against a premise that says one is harder or better.
AS_AS = re.compile(
    r"\bas (hard|difficult|easy|good|fast|slow|efficient|accurate|effective|expressive|strong|"
    r"powerful|robust|stable) as\b",
    re.IGNORECASE,
)
# "no matter which optimizer", "regardless of the optimizer": the same whatever it is, no denial.
WHATEVER = re.compile(r"\b(?:no matter|regardless of|irrespective of)\b", re.IGNORECASE)
DIRECTIONS = [
    (BETTER, WORSE),
    (WORSE, BETTER),
    (EASIER, HARDER),
    (HARDER, EASIER),
    (FASTER, SLOWER),
    (SLOWER, FASTER),
    (SAME, DIFFERENT),  # not the other way: "how does A differ from B" is a comparison
]
# "How does X show (that) P", "why are/do P (according to X)", "how does X <speed up> ...": the
# premise P, read only when it says which way something goes.
PREMISE = re.compile(
    r"^\s*(?:(?:in|according to|for)\b[^,?]{0,80},\s*)?"  # "In the G&C paper, how do ..."
    r"(?:how\s+(?:does|did|do)\b.+?\b(?:show|prove|demonstrate|find)s?\s+(?:that\s+)?"
    r"|why\s+(?:are|is|do|does|did|would|was|were)\s+|how\s+(?:does|do|did)\s+)(?P<claim>.+)",
    re.IGNORECASE,
)


def reversed_premise(question: str, sources: list[Source], read=stems) -> tuple[Source, str] | None:
    """The paper and its sentence that reverse which way the question's premise says something
    goes: a sentence sharing two or more of the premise's words (as `read` gives them, with the
    corpus's abbreviations spelled out: "NC" is neural collapse) that says the opposite
    (DIRECTIONS) and not the same, sharing more than any sentence saying the same, or as many
    and coming later (results come after background: "in standard settings pure states are
    easier", then "we prove they are as hard"). Only the paper the question is about (named,
    else the first) is read."""
    match = WHY_CLAIM.search(question) or PREMISE.search(question)
    premise = WHATEVER.sub("regardless", match.group("claim")) if match else ""
    if not match or DENIES.search(premise):
        return None
    claim = read(premise)
    claim |= {DIMENSIONS[word] for word in claim if word in DIMENSIONS}
    said = [(same, other) for same, other in DIRECTIONS if claim & same]
    if not said:
        return None
    claim -= set().union(*(one | two for one, two in DIRECTIONS))
    source = next((s for s in sources if s.named), sources[0] if sources else None)
    if source is None:
        return None
    best_for, best_against = (0, -1), (0, -1, "")
    defined = abbreviations([source.paper])
    for place, sentence in enumerate(split_sentences(source.paper.abstract)):  # "as hard as":
        words = read(spelled_within(AS_AS.sub(r"equally \1", sentence), defined))  # not "harder"
        shared = len(claim & words)
        for same, other in said:
            if "equal" in words and same is not SAME and not AS_AS.search(premise):
                best_against = max(best_against, (shared, place, sentence))
            elif words & same and not of_others(sentence):  # what the paper sets out to refute
                best_for = max(best_for, (shared, place))
            elif words & other:
                best_against = max(best_against, (shared, place, sentence))
    # most shared words first, then the later sentence (results come after background)
    shared, _, sentence = best_against
    return (source, sentence) if shared >= 2 and best_against[:2] > best_for else None


# "Why is X <P>?": the premise, when the question asks why of the paper itself.
WHY_IS = re.compile(
    r"^\s*(?:(?:in|according to|for)\b[^,?]{0,80},\s*)?why\s+(?:is|are|does|do|did|was|were)\s+"
    r"(?P<claim>.+)",
    re.IGNORECASE,
)
OTHER_WORK = re.compile(
    r"\b(?:existing|prior|previous|conventional|traditional|other|baselines?)\b"
)


def said_of_others(question: str, sources: list[Source], read=stems) -> tuple[Source, str] | None:
    """The paper the question names and its sentence about other work that a "why is X <P>?"
    question's premise matches best, sharing two or more of its words (the names it gives
    aside), more than any sentence of the paper's own: the abstract says P of other work
    ("Why is TSENOR restricted to M=4?" against "existing methods ... are restricted to M=4").
    None when P itself speaks of other work ("why does X beat existing methods?")."""
    match = WHY_CLAIM.search(question) or WHY_IS.search(question)
    source = next((s for s in sources if s.named), None)
    if not match or not source or OTHER_WORK.search(match.group("claim").lower()):
        return None
    claim = read(match.group("claim")) - read(" ".join(names_in(question)))
    claim |= settings(match.group("claim"))  # "M=4" is a word of the claim too
    defined = abbreviations([source.paper])
    scored = [
        (
            len(claim & (read(spelled_within(sentence, defined)) | settings(sentence))),
            of_others(sentence),
            sentence,
        )
        for sentence in split_sentences(source.paper.abstract)
    ]
    shared, others, sentence = max(scored, key=lambda row: (row[0], not row[1]), default=(0, 0, ""))
    return (source, sentence) if shared >= 2 and others else None


def denied(source: Source, sentence: str, draft: Draft, says: str = "it says otherwise") -> Answer:
    """The reply to a question whose premise the paper's abstract denies (or `says` of other
    work): which paper, and the sentence that says otherwise."""
    text = f"The abstract of '{source.paper.title}' does not say that; {says}: \"{sentence}\""
    return abstention(draft, [source], Reason.FALSE_PREMISE, text=text)


def authors_answer(source: Source, draft: Draft) -> Answer:
    """Who wrote the paper and where it appeared, from its metadata, cited."""
    paper = source.paper
    if paper.authors:
        venue = f", {paper.venue}" if paper.venue else ""
        text = f"{paper.title} is by {', '.join(paper.authors)}{venue}."
    elif draft.intent.asks_venue and paper.venue:
        text = f"{paper.title} appeared at {paper.venue}."
    else:
        text = f"The index has no author list for '{paper.title}' (its source gave none)."
        return abstention(draft, [source], Reason.NOT_STATED, text=text)
    sentences = [AnswerSentence(text=text, citations=[1], support=1.0, supported=True)]
    citations = cite.renumber(sentences, [source])
    citations[0].evidence = metadata_sentence(paper)
    draft = draft.model_copy(update={"backend": "metadata", "writer_is_model": False})
    return draft.answer(
        text=cite.render(sentences), citations=citations, sentences=sentences, sources=[source]
    )


def not_stated(
    source: Source, details: list[str], draft: Draft, closest: list, says: str = ""
) -> Answer:
    """The reply when the abstract does not state what is asked: which paper, what it does not
    state (or what it `says` it does not: "does not name the datasets"), and the sentence that
    comes closest."""
    says = says or f"does not state that (it never mentions {either(details)})"
    text = f"The abstract of '{source.paper.title}' {says}."
    if closest and closest[0][1]:
        text += f' The closest it comes: "{closest[0][1]}"'
    return abstention(draft, [source], Reason.NOT_STATED, text=text)


def either(words: list[str]) -> str:
    """The words quoted, joined by "or": "'gpu' or 'learning rate'"."""
    return " or ".join(f"'{word}'" for word in words)


def unstated_by_all(intent: Intent, sources: list[Source], draft: Draft) -> Answer | None:
    """The reply to a follow-up asking a detail of the several papers it refers to ("what
    learning rate does it use?" after a list) when none of their abstracts states it; None when
    one may."""
    scoped = [s for s in sources if intent.scope and s.paper.paper_id in intent.scope]
    if len(scoped) < 2 or not intent.details:
        return None
    missing = [unstated(intent, source) for source in scoped]
    if not all(missing):
        return None
    asked = either(list(dict.fromkeys(word for words in missing for word in words)))
    titles = ", ".join(f"'{s.paper.title}'" for s in scoped)
    text = f"None of the abstracts of {titles} states that (none mentions {asked})."
    return abstention(draft, scoped, Reason.NOT_STATED, text=text)


def about_paper(
    intent: Intent,
    source: Source,
    draft: Draft,
    embedder,
    others=frozenset(),
    lexicon=None,
    common: float = 0.2,
) -> Answer | None:
    """The answer to a question about the one paper `source`, when its metadata answers or its
    abstract does not state what is asked (a detail, a name, a technique it takes for granted:
    `presumed`, read with the corpus's `lexicon`); None when the abstract should answer it."""
    if details := unstated(intent, source, others):
        closest = closest_sentences([source], intent.text, embedder)
        return not_stated(source, details, draft, closest)
    if technique := presumed(intent, source, lexicon, common):  # or uses it only of others
        closest = closest_sentences([source], intent.text, embedder)
        return not_stated(
            source, technique, draft, closest, f"does not say it uses {either(technique)}"
        )
    if kind := unnamed(intent, source):
        closest = closest_sentences([source], intent.text, embedder)
        return not_stated(source, kind, draft, closest, f"does not name the {kind[0]}")
    if intent.asks_venue and not source.paper.venue:
        return not_stated(source, ["venue"], draft, [])
    return authors_answer(source, draft) if intent.asks_metadata else None
