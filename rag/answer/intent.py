"""What a question asks, decided once, before anything is retrieved: its kind (a list of papers,
a figure, a summary, a follow-up ...), the papers it names, the conditions a listed paper must
meet, the papers a follow-up refers back to. Every other module reads the `Intent`; none parses
the question again. All the question's regular expressions live here."""

import re
from enum import StrEnum

from pydantic import BaseModel

from rag.answer.language import not_english
from rag.figures import asked_figure
from rag.sentences import stems

# Plural only: "which paper ..." asks for one, and "studies"/"works" are usually verbs.
LIST_QUESTION = re.compile(
    r"^\s*(which|what|list|name|are there|do any|find|show)\b[^?]{0,40}?"
    r"\b(papers|articles|publications|abstracts)\b"
    r"|\bwhich (ones|of (those|these|them|the papers))\b"
    r"|^\s*list\b"
    # "papers on X?", "any works about X", "I'm looking for papers that ..."
    r"|^\s*(any |some |other )?(papers|works|articles|publications)\b"
    r"|\b(looking for|recommend|suggest|need|want)\b[^?]{0,20}?\b(papers|works|articles)\b",
    re.IGNORECASE,
)
# The frame of a list question, removed before its conditions are read.
LIST_FRAME = re.compile(
    r"^\s*(which|what|list|name|are there|do any|find|show|any|some)\b[^?]{0,40}?"
    r"\b(papers|articles|publications|works)\b",
    re.IGNORECASE,
)
# Each part of a list question ("continual learning" / "autonomous driving perception", split at
# these words) with two or more content words is a condition a listed paper must meet.
CONDITION_SPLIT = re.compile(r"\b(?:for|on|to|with|in|using|via|against)\b|\?", re.IGNORECASE)
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
# Follow-ups: words that point back at the conversation.
REFERS_BACK = re.compile(
    r"\b(those|these|them|they|their|it|its|the above|that paper|this paper|which of|"
    r"the first|the second|the last|the former|the latter|each of|which one|the two)\b",
    re.IGNORECASE,
)
# Leans on the conversation without narrowing it to the papers named before.
CONTINUES = re.compile(
    r"^\s*(and|what about|how about)\b|\b(another|also|the same|as well)\b", re.IGNORECASE
)
# "Which one ...", "which of those ...": a choice among several papers.
CHOOSES = re.compile(r"\bwhich (one|of)\b", re.IGNORECASE)
SHORT = 3  # words; "What datasets?" continues the conversation even without a pronoun


class Kind(StrEnum):
    """What shape the answer takes (reported per question by `rag eval`)."""

    PROSE = "prose"
    LIST = "list"
    FIGURE = "figure"
    SUMMARY = "summary"
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
    conditions: list[str] = []  # what every listed paper must meet

    @property
    def scoped(self) -> bool:
        return bool(self.scope)

    @property
    def rewritten(self) -> str | None:
        return self.text if self.text != self.question else None

    @property
    def kind(self) -> Kind:
        if self.summary:
            return Kind.SUMMARY
        if self.scoped:
            return Kind.FOLLOW_UP
        if self.is_list:
            return Kind.LIST
        return Kind.FIGURE if self.figure is not None else Kind.PROSE


def classify(
    question: str, text: str | None = None, named=(), scope=None, summary: bool = False
) -> Intent:
    """The intent of `question`, whose standalone form is `text` (the question itself when it
    stands alone)."""
    text = text or question
    return Intent(
        question=question,
        text=text,
        named=set(named),
        scope=set(scope) if scope else None,
        summary=summary,
        is_list=bool(LIST_QUESTION.search(text)),
        asks_for_papers=bool(PAPERS.search(text)),
        asks_for_one_paper=bool(ONE_PAPER.search(text)),
        figure=asked_figure(text),
        conditions=conditions_of(text),
    )


def in_english(question: str) -> bool:
    """Whether the embedding model can read the question (see rag.answer.language)."""
    return not not_english(question)


def conditions_of(question: str) -> list[str]:
    """The conditions a list question sets: its parts with two or more content words."""
    parts = CONDITION_SPLIT.split(LIST_FRAME.sub(" ", question))
    return [part.strip() for part in parts if len(stems(part)) >= 2]


def refers_back(question: str) -> bool:
    """Whether the question points at papers named before ("those", "it", "which one")."""
    return bool(REFERS_BACK.search(question))


def carries_on(question: str) -> bool:
    """Whether the question leans on the conversation without narrowing it ("What about ...",
    "also")."""
    return bool(CONTINUES.search(question))


def continues(question: str) -> bool:
    """Whether the question leans on the conversation so far (pronouns, "which one", "also", or
    too short to stand alone)."""
    return refers_back(question) or carries_on(question) or len(question.split()) <= SHORT


def chooses(question: str) -> bool:
    """Whether the question chooses among several papers ("which one", "which of")."""
    return bool(CHOOSES.search(question))
