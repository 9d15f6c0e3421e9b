"""Premises a question takes for granted ("why does X conclude that P?", "how does X show that
P?", "why is X <P>?") checked against the abstract of the paper it is about: P is false when a
sentence denies it, says it goes the other way ("deteriorates with increasing width" against
"generalizes better as nets get wider"), or says it of other work, not of the paper ("existing
methods ... are restricted to M=4"), or puts a figure on it that the abstract never states ("anacp
beats joint training by 10%"). Read as the abstract writes it: its abbreviations spelled out, a
size adjective as the dimension it measures."""

import re

from rag.answer.draft import Draft, abstention
from rag.answer.intent import SECOND_PART
from rag.answer.naming import NEGATION, names_in
from rag.answer.verdict import Reason
from rag.figures import quantities
from rag.index.bm25 import abbreviations
from rag.models import Answer, Source
from rag.sentences import split_sentences, stems, title_name

# What may lead a premise question: "According to X, why does ...", "In the G&C paper, how do ...",
# and a follow-up's "so why does it ...", "ok but how does it ...".
LEADING = (
    r"^\s*(?:(?:so|but|and|ok(?:ay)?|then|wait|hmm+),?\s+)*"
    r"(?:(?:in|according to|for)\b[^,?]{0,80}?(?:,\s*|\s+(?=(?:why|how)\b))"  # "in the X paper why"
    r"|[^,?]{0,80}?\b(?:paper|work|study|one)\s*[-–—:,]\s*)?"  # "quantum learning paper - why"
)
# Words that deny what follows them: a negation, the verbs that say it cannot be, and those that
# say it is not needed ("eliminating the need for a differentiable proxy loss").
DENIES = re.compile(
    rf"{NEGATION.pattern}|\b(cannot|fail(?:s|ed)? to|unable to)\b"
    r"|\b(?:eliminat|remov|obviat|avoid)\w* the need (?:for|of)\b",
    re.IGNORECASE,
)
# "Why does X conclude that P?" takes P for granted.
WHY_CLAIM = re.compile(
    LEADING + r"why\s+(?:does|did|do|is|was|would)\b.+?\b(?:conclude|find|found|show|claim|argue|"
    r"report|say|state|prove|demonstrate|observe|suggest)s?\s+that\s+(?P<claim>.+)",
    re.IGNORECASE,
)
# "Why does the first one say AdamW speeds up NC?": what it says, with no "that".
WHY_SAID = re.compile(
    LEADING + r"why\s+(?:does|did|do)\b.+?\b(?:say|claim|conclude|argue|state)s?\s+(?P<claim>.+)",
    re.IGNORECASE,
)
# "X says P.. why is that", "P - why?": the premise stated first, then asked why (at least 12
# characters, as GIVEN's: a claim, not "what is it? why").
SAID_WHY = re.compile(
    r"^\s*(?:.+?\b(?:says?|claims?|finds?|found|shows?|argues?|reports?|states?|concludes?)\s+"
    r"(?:that\s+)?)?(?P<claim>[^?]{12,}?)\s*(?:\.{2,}|…|[.;:!,—–]|\s-)\s*(?:so\s+|but\s+)?"
    r"why\b(?:\s+(?:is|was|would|does)\s+(?:that|this|it)(?:\s+so)?|\s+so)?\s*\??\s*$",
    re.IGNORECASE,
)

# A negation denying a verb of what comes before it ("NC cannot emerge"), not "without" or "no".
DENIED_VERB = re.compile(r"cannot|never|fail|unable|not|n't", re.IGNORECASE)
# A verb denied: "does not alter", "cannot emerge", "never uses".
NOT_DOES = re.compile(
    r"\b(?:not(?! only\b)|never|cannot|fail(?:s|ed)? to|unable to)\b|n't\b", re.IGNORECASE
)
# "Why does X <P>?", "how does X <P>?" of what X does (not "why is P needed": its reason may be
# what is not so).
WHY_DOES = re.compile(LEADING + r"(?:why|how)\s+(?:does|do|did)\s+(?P<claim>.+)", re.IGNORECASE)


# "P, right?", "P, correct? what is ...": a claim put up for the reader to confirm.
CONFIRM = re.compile(
    r"^\s*(?P<claim>[^?]{12,}?),?\s+(?:right|correct|no|isn'?t it|doesn'?t it|yes)\s*\?",
    re.IGNORECASE,
)


# "The G&C study shows that P. What mechanism do the authors give?": P stated, then asked of.
STATED = re.compile(
    r"^\s*.+?\b(?:shows?|finds?|found|claims?|says?|argues?|reports?|proves?|concludes?|"
    r"demonstrates?)\s+that\s+(?P<claim>[^.?;]{12,}?)\s*[.;]\s+(?:so\s+|but\s+)?"
    r"(?:what|how|why|which)\b",
    re.IGNORECASE,
)


def why_claim(question: str) -> re.Match | None:
    """The premise P of a "why does X conclude that P?", "X says P.. why is that" or "P, right?"
    question."""
    return (
        WHY_CLAIM.search(question)
        or WHY_SAID.search(question)
        or SAID_WHY.search(question)
        or STATED.search(question)
        or CONFIRM.search(question)
    )


def said_of(source: Source, claim: str) -> bool:
    """Whether the claim is said of the paper: it starts with the paper's name ("AnaCP needs
    ...", "the AnaCP paper needs ..."), with a paper described ("the optimal-transport paper
    decide to ...") or with "it", not with something else ("spiking networks struggle")."""
    if THE_PAPER.match(claim) and not COMPARES.search(claim):
        return True
    first = re.match(r"\s*(?:the\s+)?([\w&-]+)", claim)
    name = title_name(source.paper.title)
    return bool(first and name and first.group(1).casefold() == name.casefold())


# "... in the optimizer choice paper", "according to the MLES paper": the paper said to say it.
IN_THE_PAPER = re.compile(
    r"\s+(?:in|according to|from)\s+(?:the|this|that)\s+(?:[\w&'-]+\s+){0,8}?(?:paper|work|study"
    r"|abstract)\b.*$",
    re.IGNORECASE,
)


# A premise that itself says something is kept from happening.
HINDERS = re.compile(
    r"\b(?:prevent|hinder|block|stop|suppress|inhibit|hamper|imped|preclud)\w*", re.IGNORECASE
)


# "how does the paper on X differ from ...": a comparison, of more than the one paper.
COMPARES = re.compile(r"\b(?:differ\w*|compar\w*|vs\.?|versus|between|and the)\b", re.IGNORECASE)
# "the <up to eight words> paper", "they", "it": the paper the question is about, as its subject.
THE_PAPER = re.compile(
    r"\s*(?:(?:it|they|the authors)\b|the\s+(?:[\w&'-]+\s+){0,8}?(?:paper|work|study|authors)\b)",
    re.IGNORECASE,
)


# A negation governs the next `span` words, and a denied verb the `before` words it is denied of;
# a denying sentence shares at least two of the premise's words. Set by reading dev's "why does X
# conclude that ..." questions (u052, u088, x104; `before` on ad103, 2026-12-07): "NC cannot
# emerge under decoupled weight decay" is 3 words from "decoupled"; "NC (neural collapse) cannot"
# is 2 words after its subject's first.
def contradicted(
    question: str, sources: list[Source], span: int = 4, before: int = 3
) -> tuple[Source, str] | None:
    """The paper and its sentence that deny what a "why does X conclude that P?" question takes
    for granted, or a "why/how does X <P>?" question of the paper it names: a sentence using two or
    more of P's words with a negation governing one of them ("NC cannot emerge under decoupled
    weight decay" against "... decoupled weight decay speeds up the emergence of NC"; "without
    gradient-based training" against "why does AnaCP need gradient-based fine-tuning"), not one
    about other work, while P itself denies and avoids nothing. None otherwise."""
    match, papers, denies = why_claim(question) or given(question, sources), sources, DENIES
    subject: set[str] = set()  # what a sentence must speak of, when P is not said of the paper
    if not match and (match := WHY_DOES.search(question)):  # "why does X need P": X's abstract
        papers = [s for s in sources if s.named and said_of(s, match.group("claim"))][:1]
        if not papers and (where := IN_THE_PAPER.search(match.group("claim"))):
            papers = sources[:1]  # "why does adamw give the strongest NC in the optimizer paper"
            match = WHY_DOES.search(question[: match.start("claim") + where.start()])
            subject = stems(match.group("claim").split()[0])  # AdamW's, not SGD's
            if HINDERS.search(match.group("claim")):  # "why does weight decay prevent NC"
                return None
        if match.group().lower().lstrip().startswith("how"):  # "how does X change inference":
            denies = NOT_DOES  # "X does not alter inference", not "without disrupting training"
    premise = SECOND_PART.split(match.group("claim"))[0] if match else ""  # "..., and how ..."
    if not match or DENIES.search(premise) or AVOIDS.search(premise):
        return None
    claim, denials = stems(premise), []
    for source in papers:
        defined = abbreviations([source.paper])  # "NC cannot emerge": neural collapse cannot
        for place, written in enumerate(split_sentences(source.paper.abstract)):
            if of_others(written):  # "Standard resets ... fail to restore plasticity"
                continue
            sentence = spelled_within(written, defined)
            shared = len(claim & stems(sentence))
            governed = (governed_by(sentence, n, span, before) for n in denies.finditer(sentence))
            if (
                shared >= 2
                and subject <= stems(sentence)
                and any(claim & words for words in governed)
            ):
                denials.append((shared, place, source, written))
    # most of P's words first, then the latest sentence (results come after background)
    return max(denials, key=lambda d: d[:2])[2:] if denials else None


def governed_by(sentence: str, negation: re.Match, span: int, before: int) -> set[str]:
    """The stems a negation denies: the `span` words after it, and for a denied verb the
    `before` words it is denied of ("NC cannot emerge"; not "incremental feature adaptation
    without gradient-based training")."""
    after = sentence[negation.end() :].split()[:span]
    subject = sentence[: negation.start()].split()[-before:]
    return stems(" ".join((subject if DENIED_VERB.match(negation.group()) else []) + after))


# Words that say which way something goes, as stems: a premise saying one way (P: "guessing
# generalizes better as nets get wider") that the paper's sentence on the same thing reverses
# ("generalization under G&C deteriorates with increasing width") is false. Each entry is what
# the premise says, then what reverses it; written from what comparisons say, not from any
# question ("improves" is no entry: stemming drops it as a generic research verb).
BETTER = {"better", "superior", "outperform", "beat"}
WORSE = {"wors", "deterior", "inferior", "underperform", "degrad", "hurt"}
EASIER, HARDER = {"easier", "easi", "simpler"}, {"harder", "hard"}
FASTER, SLOWER = {"faster", "speed", "acceler", "quicker"}, {"slower", "slow", "cannot", "hinder"}
HIGHER, LOWER = {"higher", "greater"}, {"lower"}
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
# "similarity scores" measure something; "similar to" says it is the same.
SIMILARITY = re.compile(r"\bsimilarit(?:y|ies)\b", re.IGNORECASE)


def measure(text: str) -> str:
    """The text with what it measures read as no direction ("higher similarity scores"), and
    losing to something as doing worse ("folding loses to pruning"; not "loses less")."""
    return LOSES_TO.sub("worse than", SIMILARITY.sub("affinity", text))


LOSES_TO = re.compile(r"\blos(?:e|es|t|ing) (?:out )?to\b", re.IGNORECASE)


# "exactly as SGD does", "just like SGD": the same as it.
LIKEWISE = re.compile(r"\b(?:exactly|just|precisely)\s+(?:as|like)\b", re.IGNORECASE)
# "... generalize better without gradient descent": a condition the premise sets, not a denial.
CONDITION = re.compile(r"\bwithout\b[^,;]*$", re.IGNORECASE)
# "no matter which optimizer", "regardless of the optimizer": the same whatever it is, no denial.
WHATEVER = re.compile(r"\b(?:no matter|regardless of|irrespective of)\b", re.IGNORECASE)
DIRECTIONS = [
    (BETTER, WORSE),
    (WORSE, BETTER),
    (EASIER, HARDER),
    (HARDER, EASIER),
    (FASTER, SLOWER),
    (SLOWER, FASTER),
    (HIGHER, LOWER),
    (LOWER, HIGHER),
    (SAME, DIFFERENT),  # not the other way: "how does A differ from B" is a comparison
]
# "How does X show (that) P", "why are/do P (according to X)", "how does X <speed up> ...": the
# premise P, read only when it says which way something goes.
PREMISE = re.compile(
    LEADING + r"(?:how\s+(?:does|did|do)\b.+?\b(?:show|prove|demonstrate|find)s?\s+(?:that\s+)?"
    r"|why\s+(?:are|is|do|does|did|would|was|were)\s+|how\s+(?:does|do|did)\s+)(?P<claim>.+)",
    re.IGNORECASE,
)


# "Since P, does that mean ...?", "given that P, how big is ...": P taken for granted up front
# (at least 12 characters: a claim, not "since when,").
GIVEN = re.compile(
    r"^\s*(?:since|given that|given|because|now that|as we know)\s+(?P<claim>[^,?]{12,}),",
    re.IGNORECASE,
)
# "How much does X slow inference, given that it changes ...?": the premise after the question.
GIVEN_AFTER = re.compile(
    r",\s*(?:given that|since|because|as)\s+(?P<claim>[^?]{12,}?)\s*\??\s*$", re.IGNORECASE
)


def given(question: str, sources=()) -> re.Match | None:
    """The premise a question takes for granted before it asks (GIVEN) or after (GIVEN_AFTER,
    its "it" read as the paper the question names)."""
    if match := GIVEN.search(question):
        return match
    named = next((s for s in sources if s.named), None)
    if not named:
        return None
    subject = title_name(named.paper.title) or "it"  # "given that it changes" of CaRe-BN
    return GIVEN_AFTER.search(
        re.sub(r",\s*(given that|since|because|as)\s+(?:it|they)\b", rf", \1 {subject}", question)
    )


# "improves", "gets better": which way, in words stemming drops as generic research verbs.
IMPROVES = re.compile(r"\b(improv\w*|gets? better|helps?)\b", re.IGNORECASE)


# "A beats B", "A outperforms B", "A is better than B": which wins, and over what.
BEATS = re.compile(
    r"^(?P<winner>.+?)\s+(?:beats?|outperforms?|surpass(?:es)?|(?:is|are)\s+(?:better|superior|"
    r"faster)\s+(?:than|to))\s+(?P<loser>.+)$",
    re.IGNORECASE,
)
# A sentence saying something wins: "folding typically achieves higher accuracy".
WINS = re.compile(
    r"\b(?:better|superior|outperform\w*|beats?|higher|greater|faster|surpass\w*)\b", re.IGNORECASE
)


def which_wins(premise: str, sentence: str, read=stems) -> str:
    """For a premise "A beats B", which of them the sentence has win: "loser" when it writes B
    before its first word saying something wins and A not ("folding typically achieves higher
    accuracy" against "pruning beats folding"), "winner" the other way round, "unclear" when it
    writes both before it ("folding as an alternative to pruning that is often superior");
    empty when neither, or no such premise or sentence."""
    beats, wins = BEATS.search(premise), WINS.search(sentence)
    if not beats or not wins:
        return ""
    winner, loser = read(beats.group("winner")), read(beats.group("loser"))
    winner, loser = winner - loser, loser - winner
    before = read(sentence[: wins.start()])
    found = [name for name, words in (("winner", winner), ("loser", loser)) if words & before]
    return "unclear" if len(found) == 2 else "".join(found)


def reversed_premise(question: str, sources: list[Source], read=stems) -> tuple[Source, str] | None:
    """The paper and its sentence that reverse which way the question's premise says something
    goes: a sentence sharing two or more of the premise's words (as `read` gives them, with the
    corpus's abbreviations spelled out: "NC" is neural collapse) that says the opposite
    (DIRECTIONS) and not the same. It must outrank every sentence saying the same: by naming
    what the premise is about (its first word: "AdamW" in "why does AdamW make NC emerge
    faster"), then by saying what the paper itself finds ("we prove they are as hard" over "in
    standard settings pure states are easier"), then by sharing more words, then by coming later
    (results come after background). Only the paper the question is about (named, else the
    first) is read."""
    match = why_claim(question) or given(question, sources) or PREMISE.search(question)
    premise = WHATEVER.sub("regardless", match.group("claim")) if match else ""
    premise = LIKEWISE.sub(" same as ", CONDITION.sub("", premise))
    source = next((s for s in sources if s.named), sources[0] if sources else None)
    if not match or DENIES.search(premise) or AVOIDS.search(premise) or source is None:
        return None  # "how does X avoid hurting Y": it does not hurt, no way to reverse
    defined = abbreviations([source.paper])  # "G&C" as the abstract defines it
    claim = read(measure(spelled_within(premise, defined, typed=True)))
    claim |= {"better"} if IMPROVES.search(premise) else set()
    claim |= {DIMENSIONS[word] for word in claim if word in DIMENSIONS}
    measured = claim & set(DIMENSIONS.values())
    said = [(same, other) for same, other in DIRECTIONS if claim & same]
    if not said:
        return None
    claim -= set().union(*(one | two for one, two in DIRECTIONS))
    subject = (
        read(spelled_within(premise.split()[0], defined, typed=True)) & claim
        if premise.split()
        else set()
    )
    best_for, best_against = (False, False, 0, -1), (False, False, 0, -1, "")
    everything = read(spelled_within(measure(source.paper.abstract), defined))
    for place, sentence in enumerate(split_sentences(source.paper.abstract)):  # "as hard as":
        words = read(
            spelled_within(AS_AS.sub(r"equally \1", measure(sentence)), defined)
        )  # not "harder"
        words |= {"better"} if IMPROVES.search(sentence) else set()
        # "grow wider" measures width; "wide and deep networks" names them, measures nothing
        words |= {DIMENSIONS[w] for w in words if w in DIMENSIONS and w.endswith(("er", "est"))}
        if measured and not measured & words:
            continue  # "improves with increasing depth" says nothing of "better when wider"
        rank = (bool(subject & words), bool(OWN.search(sentence)), len(claim & words), place)
        wins = which_wins(premise, sentence, read)
        if wins == "loser":  # "pruning beats folding" against "folding achieves higher ...",
            # where the paper speaks of both: which wins, not which way something goes
            shared = len(claim & (words | everything))
            best_against = max(best_against, (*rank[:2], shared, place, sentence))
        if wins == "winner":
            best_for = max(best_for, rank)
        if wins:
            continue
        for same, other in said:
            if "equal" in words and same is not SAME and not AS_AS.search(premise):
                best_against = max(best_against, (*rank, sentence))
            elif words & same and not of_others(sentence):  # what the paper sets out to refute
                best_for = max(best_for, rank)
            elif words & other:
                best_against = max(best_against, (*rank, sentence))
    *rank, sentence = best_against
    return (source, sentence) if rank[2] >= 2 and tuple(rank) > best_for else None


# "Why is X <P>?": the premise, when the question asks why of the paper itself.
WHY_IS = re.compile(
    LEADING + r"why\s+(?:is|are|does|do|did|was|were)\s+"
    r"(?P<claim>.+)",
    re.IGNORECASE,
)
AVOIDS = re.compile(
    r"\b(avoid\w*|bypass\w*|instead of|rather than|unlike|free of|unchanged|unaltered|intact|"
    r"get(?:s|ting)? rid of|eliminat\w*|remov\w*|dispens\w*|drop(?:s|ped|ping)?)\b",
    re.IGNORECASE,
)
OTHER_WORK = re.compile(
    r"\b(?:existing|prior|previous|conventional|traditional|other|baselines?)\b"
)


# A claim stated before the question it leads to: "EvA relies on gradients of the victim GNN; how
# does it ...", "anacp beats joint training by like 10%, how does it manage that", "BIT
# reportedly brings the WER down to 2%. What makes it so accurate?".
ASSERTED = re.compile(
    r"^(?P<claim>[^?]{12,}?)\s*(?:[.;:,]|\s-+)\s+(?:so\s+|then\s+|but\s+|and\s+)?"
    r"(?:how|why|what|which|where|when|is|are|does|do|did|can)\b",
    re.IGNORECASE,
)


def said_of_others(question: str, sources: list[Source], read=stems) -> tuple[Source, str] | None:
    """The paper the question names and its sentence about other work that a "why is X <P>?"
    (or "X does P, right?", "since X does P, ...", "X does P; how ...") question's premise
    matches best, sharing two or more of its words (the names it gives and the title's words
    aside), more than any of the paper's own words do: the abstract says P of other work ("Why
    is TSENOR restricted to M=4?" against "existing methods ... are restricted to M=4"; "RLAF
    imitates expert heuristics, right?" against "these policies outperform expert-supervised
    approaches based on handcrafted heuristics"). A setting the premise states
    ("M=4") that the abstract writes only of other work is enough. None when P itself speaks of
    other work ("why does X beat existing methods?") or sets X against it ("why does X avoid
    gradient-based perturbations?")."""
    source = next((s for s in sources if s.named), None)
    match = why_claim(question) or given(question, sources) or WHY_IS.search(question)
    asserted = ASSERTED.search(question)  # "EvA relies on gradients ...; how does it ..."
    if not match and asserted and source and said_of(source, asserted["claim"]):
        match = asserted
    claimed = match.group("claim") if match else ""
    compares = BEYOND.search(claimed) or THAN.search(claimed)  # "why is X faster than Y"
    if not match or not source or OTHER_WORK.search(claimed.lower()) or compares:
        return None
    if DENIES.search(claimed) or AVOIDS.search(claimed):
        return None  # "why does X avoid gradient-based perturbations": what others do, it doesn't
    # the names it gives, and the title's words, say which paper, not what of it
    claim = read(claimed) - read(" ".join(names_in(question))) - read(source.paper.title) - WHICH
    defined = abbreviations([source.paper])
    own, others = [], []
    for sentence in split_sentences(source.paper.abstract):
        mine, theirs = sides(spelled_within(sentence, defined))
        own.append((len(claim & read(mine)), settings(mine)))
        others.append((len(claim & read(theirs)), settings(theirs), sentence))
    stated = settings(claimed)
    found = [sentence for _, written, sentence in others if stated & written]
    if found and not any(stated & written for _, written in own):
        return source, found[0]
    best = max(others, key=lambda row: row[0], default=(0, set(), ""))
    return (source, best[2]) if best[0] >= 2 and best[0] > max(own, default=(0,))[0] else None


# Words saying which ones a premise is of ("both do class incremental, right?"), not what.
WHICH = stems("both each all either")


# What the paper is set against within its own sentence: "outperform expert-supervised
# approaches", "compared to existing solvers" (not "more than a 2x speedup").
BEYOND = re.compile(
    r"\b(?:outperform\w*|surpass\w*|beat(?:s|ing)?|unlike|compared (?:to|with)|"
    r"in contrast to|as opposed to)\b",
    re.IGNORECASE,
)


THAN = re.compile(r"\bthan\b", re.IGNORECASE)


def sides(sentence: str) -> tuple[str, str]:
    """The sentence split into what it says of the paper and what of other work: all of it of
    other work (it starts with it), or what follows "outperform ...", "compared to ..." or
    "the prior <method>" ("BIT reduces the WER of the prior end-to-end method": BIT's), or
    none."""
    if led_by_others(sentence):
        return "", sentence
    beyond = BEYOND.search(sentence) or OTHERS_NAMED.search(sentence)
    return (sentence[: beyond.start()], sentence[beyond.end() :]) if beyond else (sentence, "")


# A figure a question asserts: "by like 10%", "down to 2%", "3x faster".
FIGURE = re.compile(
    r"(?<![\w.])(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>%|percent\b|x\b|×|times\b|-fold\b)",
    re.IGNORECASE,
)
# A figure the abstract states within ROUNDED of the asserted one counts as stated: a reader
# rounds ("about 10%" of 9.8%). Set by hand, not fitted; no dev question sits near the edge.
ROUNDED = 0.1


def unstated_figure(question: str, sources: list[Source]) -> tuple[Source, str, str] | None:
    """A figure the question takes for granted of a paper (in an assertion before the question,
    `given`, `why_claim` or a "how does X ..." premise: the first found) that the paper's
    abstract (the one the question names, else the first) never states: the paper, the figure as
    written, and the abstract's sentence closest to the claim. A paper the question does not
    name must share two words with the claim to be read."""
    source = next((s for s in sources if s.named), sources[0] if sources else None)
    match = (
        ASSERTED.search(question)
        or given(question, sources)
        or why_claim(question)
        or PREMISE.search(question)
    )
    if source is None or not match or not FIGURE.search(match.group("claim")):
        return None
    claim = stems(match.group("claim"))
    # two shared words, as for the other premises read here: "how does bit cut wer to 10%" is not
    # about the "Cut Less" paper
    if not source.named and len(claim & stems(f"{source.paper.title} {source.paper.abstract}")) < 2:
        return None
    abstract = source.paper.abstract.replace("\\", "")  # "10\\%" is 10%
    stated = set(map(figure_of, FIGURE.finditer(abstract)))
    unitless = [float(n) for n in quantities(FIGURE.sub(" ", abstract))]  # "from 24.69 to 10.22"
    for figure in FIGURE.finditer(match.group("claim")):
        value, unit = figure_of(figure)
        comparable = [n for n, u in stated if u == unit] + unitless  # 10x is not "1-10%"
        if any(abs(value - n) <= ROUNDED * max(abs(value), 1e-9) for n in comparable):
            continue
        return source, figure.group(), closest_sentence(source.paper.abstract, claim)
    return None


def closest_sentence(abstract: str, claim: set[str]) -> str:
    """The abstract's sentence sharing most words with the claim; on a tie, one stating a
    number, then the first."""
    return max(
        split_sentences(abstract),
        key=lambda s: (len(claim & stems(s)), bool(quantities(s))),
        default="",
    )


def figure_of(found: re.Match) -> tuple[float, str]:
    """A figure's value and unit: "10%" and "10 percent" are (10, "%"), "3x" and "3 times" (3,
    "x")."""
    unit = found.group("unit").lower()
    return float(found.group("value")), "%" if unit in ("%", "percent") else "x"


def no_such_figure(source: Source, figure: str, sentence: str, draft: Draft) -> Answer:
    """The reply to a question taking for granted a figure its paper's abstract never states."""
    text = f"The abstract of '{source.paper.title}' does not state {figure}"
    text += f'; the closest it says: "{sentence}"' if sentence else "."
    return abstention(draft, [source], Reason.FALSE_PREMISE, text=text)


def denied(source: Source, sentence: str, draft: Draft, says: str = "it says otherwise") -> Answer:
    """The reply to a question whose premise the paper's abstract denies (or `says` of other
    work): which paper, and the sentence that says otherwise."""
    text = f"The abstract of '{source.paper.title}' does not say that; {says}: \"{sentence}\""
    return abstention(draft, [source], Reason.FALSE_PREMISE, text=text)


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
    r"\b(?:existing|prior|previous|recent|conventional|traditional|classical|earlier)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:methods?|approach\w*|works?|techniques?|attacks?|analys[ie]s|"
    r"models?|algorithms?|solutions?|studies|frameworks?|literature|research|solvers?|"
    r"baselines?)\b",
    re.IGNORECASE,
)
OWN = re.compile(r"\b(?:we|our|this (?:paper|work|study))\b", re.IGNORECASE)
SET_AGAINST = re.compile(
    r"^\s*(?:unlike|in contrast to|compared to|as opposed to)\b[^,]*,", re.IGNORECASE
)


def led_by_others(sentence: str) -> bool:
    """Whether the sentence opens on other work ("Most existing attacks ..."), not the paper's
    own; one naming it further on ("BIT reduces the WER of the prior method") is the paper's."""
    return bool(OTHERS.search(sentence)) and not OWN.search(sentence)


def of_others(sentence: str) -> bool:
    """Whether the sentence speaks of other work, not the paper's own."""
    others = OTHERS.search(sentence) or OTHERS_NAMED.search(sentence)
    return bool(others) and not OWN.search(sentence)


def spelled_within(sentence: str, defined: dict[str, str], typed: bool = False) -> str:
    """The sentence with the abbreviations its abstract `defined` followed by their words
    ("NC" -> "NC (neural collapse)"), as the paper means them; also in lower case when `typed`
    (a question's "nc")."""

    def spell(match: re.Match) -> str:
        words = defined.get(match.group().lower().removesuffix("s"))
        return f"{match.group()} ({words})" if words else match.group()

    written = r"\b[A-Za-z][A-Za-z&]*[A-Za-z]s?\b" if typed else r"\b[A-Z][A-Za-z&]*[A-Z]s?\b"
    return re.sub(written, spell, sentence)


# A setting the question states ("masks with M=4", "k = 10"): a premise when the abstract never
# writes it.
SETTING = re.compile(r"(?<![\w=])[A-Za-z]\s?=\s?\d+(?:\.\d+)?(?!\w|\.\d)")


def settings(text: str) -> set[str]:
    """The settings a text states, spaces aside ("M = 4" is "M=4")."""
    return {re.sub(r"\s", "", setting) for setting in SETTING.findall(text)}
