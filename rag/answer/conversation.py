"""Follow-up questions: rewrite them into standalone questions before retrieval, and keep
"which of those ..." within the papers the previous answer named."""

import re

from pydantic import BaseModel

from rag.answer.intent import DESCRIBED_ONE, chooses, continues, refers_back
from rag.answer.prompts import rewrite_messages
from rag.answer.wording import spelled
from rag.errors import RagError
from rag.models import Message, normalize_text
from rag.sentences import letter_words, stems

MAX_REWRITE_TOKENS = 60


def standalone_question(
    question: str, history: list[Message], rewriter=None, short_words: int = 3
) -> str:
    """The question made self-contained. An LLM rewrites it when one is available; otherwise
    (or if the rewrite fails) the previous user question is prepended."""
    earlier = [m.content for m in history if m.role == "user" and not asks_for_more(m.content)]
    if not earlier or not continues(question, short_words):
        return question  # a new topic stands alone
    if rewriter is not None:
        from rag.llm import Prompt

        try:
            rewritten = rewriter.complete(
                Prompt(messages=rewrite_messages(question, history), max_tokens=MAX_REWRITE_TOKENS)
            )
            rewritten = " ".join(rewritten.split()).strip('"')
            if 3 <= len(rewritten.split()) <= 60:
                return rewritten
        except RagError:
            pass
    return f"{earlier[-1]} {question}"


# What a chat message may open with before its question: "ok how does it work", "cool, and
# what about EvA?", "thanks! which datasets ...".
INTERJECTION = re.compile(
    r"^\s*(?:ok(?:ay)?|cool|great|nice|thanks|thank you|thx|hmm+|alright|got it|i see|interesting)"
    r"\s*[,.!:;-]*\s+(?=\S)(?!and\b)",  # "ok and which papers ...": a question of its own
    re.IGNORECASE,
)


def without_interjection(question: str) -> str:
    """The question without what it opens with before asking ("ok how does it work")."""
    return INTERJECTION.sub("", question, count=1)


# "and what about AnaCP?", "how about EvA", "same for FIRE", "and TSENOR?": the last question
# asked again of another paper.
ASKED_AGAIN = re.compile(
    r"^\s*(?:(?:and|ok|so)\s+)?(?:(?:what|how)\s+about|same\s+(?:for|with)|and)\s+"
    r"(?P<subject>[^?]+?)\s*\??\s*$",
    re.IGNORECASE,
)


def asked_again(question: str, history: list[Message], own_names) -> str | None:
    """The last question of the `history` with its paper's name (the one name of a paper's own
    it gives, by `own_names`) replaced by the one this question gives ("what does FIRE do",
    then "and what about AnaCP?" -> "what does AnaCP do"); None when it is no such question."""
    again = ASKED_AGAIN.match(question)
    last = next((m.content for m in reversed(history) if m.role == "user"), "")
    # a paper called by name ("the AnaCP paper"), not a question of its own: 4 words at most
    if not again or not last or len(again.group("subject").split()) > 4:
        return None
    before, now = own_names(last), own_names(again.group("subject"))
    if len(before) != 1 or not now or before & now:
        return None
    (name,) = before
    return re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", again.group("subject"), last)


def scope_of_follow_up(
    question: str, history: list[Message], papers, names_nothing: bool = False
) -> set[str] | None:
    """When a follow-up refers back ("which of those ...") or `names_nothing` (a summary or
    contribution request naming no topic: "give me the gist"), the papers the previous answer
    named by title; None when it does neither or that answer named none. A follow-up choosing
    among papers ("And which one ...?") or counting them ("the first two") after an answer
    that named one refers to the latest answer that named several."""
    answers = [m.content for m in history if m.role == "assistant"]
    if not answers or not (names_nothing or refers_back(question)):
        return None
    titles = [(p.paper_id, normalize_text(p.title)) for p in papers if len(p.title) >= 12]
    scopes = (
        ({pid for pid, title in titles if title in normalize_text(text)}, text)
        for text in reversed(answers)
    )
    latest, answer = next(scopes)
    if (chooses(question) or ORDINAL.search(question)) and len(latest) == 1:
        latest, answer = next(((s, text) for s, text in scopes if len(s) > 1), (latest, answer))
    if picked := by_position(question, latest, titles, answer):
        return picked
    return latest or None


# "how does it compare to the grokking paper", "how does that stack up against SAFA-SNN": a
# follow-up comparing the paper before with another, named or described after the verb.
COMPARED_TO = re.compile(
    r"\b(?:compare[sd]?|stacks? up|differs?|different)\s+(?:to|with|w/|from|against)\s+"
    r"(?P<other>[^?.;]+)",
    re.IGNORECASE,
)


def compared_to(question: str) -> str | None:
    """The other paper of a follow-up comparison, as the question names or describes it."""
    match = COMPARED_TO.search(question)
    return match.group("other").strip() if match else None


# Words of "the <words> one" that say which, not what: "the first one", "the same one".
DESCRIBED = re.compile(DESCRIBED_ONE, re.IGNORECASE)
NO_DESCRIPTION = set(
    "first second third last other same new previous former latter right only best main next "  # noqa: SIM905
    "this that which each top".split()
)


def fits_none(question: str, papers) -> bool:
    """Whether the question describes a paper ("the hazan one") whose words no paper of
    `papers` uses: it asks about a paper of its own, not one of those."""
    return any(
        max((_fit(wanted, paper) for paper in papers), default=0) == 0
        for wanted in descriptions(question)
    )


def descriptions(question: str) -> list[set[str]]:
    """The stems of each "the <words> one" the question says (framing words like "first",
    "same" aside)."""
    found = []
    for match in DESCRIBED.finditer(question):
        words = [w for w in match.group(1).split() if w.lower() not in NO_DESCRIPTION]
        if wanted := stems(spelled(" ".join(words))):  # "the first and second ones": none
            found.append(wanted)
    return found


def by_description(question: str, papers) -> set[str] | None:
    """The papers (with their abstracts) that "the <words> one" describes, each the one whose
    title, abstract or authors' names use the most of its words (title and names count twice);
    None when the question describes none that way or a description fits two papers as well."""
    if len(papers) < 2:
        return None
    picked = set()
    for wanted in descriptions(question):
        scores = sorted(((_fit(wanted, paper), paper.paper_id) for paper in papers), reverse=True)
        if scores[0][0] > max(0, scores[1][0]):
            picked.add(scores[0][1])
    return picked or None


# 7 letters: the shortest prefix that reads "microscopy" as the abstract's "microscope" (dev's
# h029, "the microscopy one"); title words and surnames count twice, as a description names what a
# paper is, not what its abstract mentions in passing. Set by hand, not fitted.
def _fit(wanted: set[str], paper) -> int:
    """How many of the wanted words the paper uses, by their first 7 letters."""
    surnames = {name.split()[-1].lower() for name in paper.authors if name.split()}
    wanted = {word[:7] for word in wanted}
    return (
        2 * len(wanted & {word[:7] for word in stems(paper.title)})
        + len(wanted & {word[:7] for word in stems(paper.abstract)})
        + 2 * len(wanted & surnames)
    )


ORDINAL = re.compile(
    r"\bthe (first|second|third|last)(?: (two|three))?\b|\bthe (two|three) (?:first|top)\b",
    re.IGNORECASE,
)
POSITIONS = {"first": 0, "second": 1, "third": 2, "last": -1}
COUNTS = {None: 1, "two": 2, "three": 3}


def by_position(question: str, scope: set[str], titles, answer: str) -> set[str] | None:
    """ "The first two", "the second", "the last", "the first and the third": those papers of
    the answer, in the order it named them."""
    match = ORDINAL.search(question)
    if not match or not scope:
        return None
    where = normalize_text(answer)
    ordered = sorted((where.find(title), pid) for pid, title in titles if pid in scope)
    ids = [pid for _, pid in ordered]
    positions = re.findall(r"\b(first|second|third|last)\b", question, re.IGNORECASE)
    named = dict.fromkeys(w.lower() for w in positions)
    several = len(named) > 1 and not match.group(2)  # "the first and second", "first ... last"
    if several:
        return {ids[POSITIONS[w]] for w in named if POSITIONS[w] < len(ids)} or None
    if match.group(3):
        return set(ids[: COUNTS[match.group(3).lower()]])
    start, count = POSITIONS[match.group(1).lower()], COUNTS[(match.group(2) or "").lower() or None]
    chosen = ids[start:][:count] if start >= 0 else ids[-count:]
    return set(chosen) or None


# "show more", "the rest please", "next 30", "show all of them": the next papers of a list.
PAGE_WORDS = re.compile(r"\b(more|rest|remaining|next|others|all)\b", re.IGNORECASE)
PAGE_FRAME = set(
    "show list give tell see me us the them of papers paper ones results please can could you i "  # noqa: SIM905
    "want to let a few some other rest remaining next more all page and".split()
)


class Page(BaseModel):
    """A request for more of a list: the list question it continues (with the history before
    it), the papers the answers since named, and whether it wants all the rest."""

    question: str
    history: list[Message]
    shown: set[str]
    everything: bool


def next_page(question: str, history: list[Message], papers) -> Page | None:
    """When the question only asks for more of the previous answer ("show more", "the rest",
    "show all"), the list question it continues; None otherwise."""
    asked = [i for i, m in enumerate(history) if m.role == "user"]
    if not asked or not asks_for_more(question):
        return None
    if not any(m.role == "assistant" for m in history[asked[-1] :]):
        return None
    start = next((i for i in reversed(asked) if not asks_for_more(history[i].content)), None)
    if start is None:
        return None
    since = normalize_text(" ".join(m.content for m in history[start:] if m.role == "assistant"))
    shown = {p.paper_id for p in papers if len(p.title) >= 12 and normalize_text(p.title) in since}
    return Page(
        question=history[start].content,
        history=history[:start],
        shown=shown,
        everything=bool(re.search(r"\ball\b", question, re.IGNORECASE)) and "more" not in question,
    )


def asks_for_more(question: str) -> bool:
    """Whether the question only asks for more of what was listed ("show more", "the rest")."""
    words = set(letter_words(question))
    return bool(PAGE_WORDS.search(question)) and not words - PAGE_FRAME
