"""Questions about one paper that its metadata answers ("who wrote the FIRE paper?"), that ask
a detail its abstract does not state ("What GPU did LEGACY use?", "which EEG datasets?" when it
only counts them), or that take for granted a technique it never uses of itself ("How does EvA
use gradient information?"): answered without a model, from the metadata, or by saying what
the abstract does not state and what it comes closest to. Premises an abstract denies are
`rag.answer.premises`'."""

import re

from rag.answer import citations as cite
from rag.answer.decision import SPELLED
from rag.answer.draft import Draft, abstention
from rag.answer.intent import DETAIL_PHRASES, FRAME, Intent, joined_compounds, states_detail
from rag.answer.lines import closest_sentences
from rag.answer.naming import Known, names_in
from rag.answer.premises import DENIES, OTHERS_NAMED, SET_AGAINST, led_by_others, settings
from rag.answer.shapes import KINDS
from rag.answer.verdict import Reason
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
    phrases = sorted(  # in the order the question asks them
        (d for d in intent.details if d in DETAIL_PHRASES and not states_detail(d, text)),
        key=lambda d: re.search(DETAIL_PHRASES[d][0], intent.text, re.IGNORECASE).start(),
    )
    missing = intent.details - set(DETAIL_PHRASES) - stems(text)
    words = re.findall(r"[A-Za-z][A-Za-z0-9-]+", intent.text)
    known = Known(text)
    names = [
        n
        for n in names_in(intent.question)
        if not known.states(n) and n not in others and not instance_of(n, text)
    ]
    closed = re.sub(r"[\s${}]", "", text)
    values = [v for v in settings(intent.question) if v not in closed]
    return list(
        dict.fromkeys([*phrases, *(w for w in words if stems(w) & missing), *names, *values])
    )


# The best-known large language models: an abstract naming LLaMA3.2-8B states an LLM ("which
# LLM does TSENOR test"), though it never writes the acronym.
LLM_NAMES = re.compile(
    r"\b(LLaMA|Llama|GPT|Qwen|Mistral|Mixtral|Gemma|Phi-\d|OPT-|Falcon|Vicuna|DeepSeek|Claude|"
    r"PaLM|BLOOM|Pythia|OLMo)"
)


def instance_of(name: str, text: str) -> bool:
    """Whether the name is a kind ("LLM") the text names a member of (LLaMA)."""
    return name.lower().removesuffix("s") == "llm" and bool(LLM_NAMES.search(text))


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
    r"(?:trains?|fine-?tunes?)\s+(?:(?:with|using|via|on)\s+(?:an?\s+)?)?)"
    r"(?P<what>.+?)(?:\s+(?:to|for|in|into|when|so|as|on|at|during|while|after|before)\b|[?.!]|$)",
    re.IGNORECASE,
)


# "What diffusion model does X use to ...?" takes the same for granted.
WHAT_USED = re.compile(
    r"^\s*(?:what|which)\s+(?P<what>[\w\s-]{3,40}?)\s+(?:does|do|did)\s+.+?\b(?:uses?|"
    r"employs?|leverages?|adopts?|rel(?:y|ies) on|appl(?:y|ies)|builds? on)\b",
    re.IGNORECASE,
)


# "Since X relies on T to ..., which ...?" states it as the reason for the question.
SINCE_USES = re.compile(
    r"^\s*(?:since|because|given(?: that)?|as)\s+.+?\b(?:uses?|using|rel(?:y|ies) on|relying on|"
    r"employs?|leverages?|builds? on|is based on)\s+"
    r"(?P<what>.+?)(?:\s+(?:to|for|in|into|when|so|as|with|on|at|during|while)\b|[,?.!]|$)",
    re.IGNORECASE,
)


def presumed(intent: Intent, source: Source, lexicon, common: float) -> list[str]:
    """The technique a "how does X use T ...?" ("what T does X use?", "how does X train T",
    "... with T") question takes for granted, when X's text uses less than half of T's
    informative words, weighed by rarity (typos corrected, "llm" read as its words; a word in
    more than `common` of the corpus's chunks, "model" or "learning", tells nothing unless T
    has no other word and it is in at most half: "how does EvA use gradients"): a false
    premise, answered by saying so ("reinforcement learning from human feedback" of a paper
    that only says "reinforcement learning")."""
    match = (
        USES.search(intent.text)
        or WHAT_USED.search(intent.text)
        or DONE_WITH.search(intent.text)
        or SINCE_USES.search(intent.text)
    )
    if not match or lexicon is None:
        return []
    asked = lexicon.corrected(stems(match.group("what")) - FRAME, defined=False)  # "ppo" as is
    frequencies = lexicon.frequencies(asked)
    idf = {w: lexicon.idf_of(n) for w, n in frequencies.items() if n <= common * lexicon.documents}
    # "use gradients": read by its common words, not the commonest ("model"). Half, from the
    # seeds' chunks: "gradient" is in 34 of 126 (a technique), "model" and "learning" in most.
    idf = idf or {
        w: lexicon.idf_of(n) for w, n in frequencies.items() if 2 * n <= lexicon.documents
    }
    if not idf or 2 * sum(v for w, v in idf.items() if w in own_words(source)) >= sum(idf.values()):
        return []
    return [match.group("what")]


# What a paper's method is better than is other work: "outperform expert-supervised approaches".
BEATEN = re.compile(
    r"\b(?:outperform\w*|surpass\w*|beat\w*|improv\w* (?:on|over|upon))\s+(?:the\s+)?"
    r"(?:[\w-]+\s+){0,3}?(?:methods?|approach\w*|baselines?|techniques?|models?|algorithms?)\b",
    re.IGNORECASE,
)
# "calibration-free compression", "gradient-free attacks": done without it.
FREE_OF = re.compile(r"\b([A-Za-z]+)-free\b")


def own_words(source: Source, span: int = 4) -> set[str]:
    """The words a paper uses of itself: its title's, and its abstract's but for those a
    negation governs ("without gradient-based training": the `span` words after it) or "-free"
    follows ("calibration-free"), and the
    sentences, clauses and phrases about other work (`OTHERS`, `SET_AGAINST`, `OTHERS_NAMED`:
    "improves both EvA and existing gradient-based attacks"); with abbreviations also
    read as their words, as `words_of` reads them."""
    words = stems(source.paper.title)
    for sentence in split_sentences(source.paper.abstract):
        if led_by_others(sentence):
            continue
        sentence = OTHERS_NAMED.sub("", SET_AGAINST.sub("", sentence))  # "and existing X attacks"
        sentence = BEATEN.sub("", sentence)  # "outperform expert-supervised approaches"
        denied = set().union(
            *(
                stems(" ".join(sentence[n.end() :].split()[:span]))
                for n in DENIES.finditer(sentence)
            ),
            *(stems(free) for free in FREE_OF.findall(sentence)),  # "calibration-free"
        )
        words |= stems(sentence) - denied
    return (
        words
        | joined_compounds(source.paper.abstract)
        | set().union(*(SPELLED.get(w, ()) for w in words))
    )


KIND_ASKED = re.compile(
    rf"\b(?:which|what|list|name)\s+(?:(?:were|are|was|is)\s+the\s+|the\s+)?"  # "what were the three ..."
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
    kind = stems(match.group("kind")) or stems(match.group())  # "the 4 scene categories"
    if not kind:
        return []
    own = {n.casefold() for n in names_in(source.paper.title)} | set(
        re.findall(r"[\w-]+", intent.question.casefold())
    )
    speaking = [s for s in split_sentences(source.paper.abstract) if kind <= stems(s)]
    named = [n for s in speaking for n in names_near(s, kind) if n.casefold() not in own]
    return [match.group("kind")] if speaking and not named else []


# span 2: a name of the kind stands next to its word ("Pong and Breakout games"); read off the dev
# set's "which <kind>" questions, where 3 took "SAC" of "with SAC and Atari games" for a game.
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
