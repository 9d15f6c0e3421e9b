"""What a check decides about a draft (`Verdict`), why (`Reason`, a code counted by `rag eval`),
and the one table that turns a reason into the notice a reader sees."""

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel


class Reason(StrEnum):
    """Why an answer declined, lost a paper, was repaired, or carries a notice."""

    NOT_ENGLISH = "not_english"
    FILTERS = "filters"  # the filters match no paper
    NOT_RELEVANT = "not_relevant"  # nothing retrieved is close enough to answer from
    LIST_CONDITIONS = "list_conditions"  # no retrieved paper meets a list question's conditions
    MODEL_DECLINED = "model_declined"
    NO_SUPPORT = "no_support"  # no sentence of the draft is supported by the abstract it cites
    IGNORED_WORD = "ignored_word"  # the paper never uses the question's key word
    NAMED_IGNORES_WORD = "named_ignores_word"  # ... but the question names it: kept, with a note
    JUDGE = "judge"  # the model, shown the paper alone, says it does not answer
    MISSING_CONDITION = "missing_condition"  # no model: the paper misses the last condition
    JUDGE_FAILED = "judge_failed"
    NO_FIGURE = "no_figure"  # a figure is asked and no cited sentence states it
    UNKNOWN_NAMES = "unknown_names"  # the question names what no retrieved paper mentions
    UNKNOWN_WORDS = "unknown_words"  # notice only: such a decline is counted as not_relevant
    NOT_STATED = "not_stated"  # the question's paper is clear; its abstract does not state it
    FALSE_PREMISE = "false_premise"  # an abstract denies what the question takes for granted
    K_CLAMPED = "k_clamped"
    BACKEND_FAILED = "backend_failed"
    # repairs
    CITED_NAMES = "cited_names"  # a sentence naming a paper gets its citation
    EXPANDED = "expanded"  # a sentence that only points at papers became their lines
    OVERLOOKED = "overlooked"  # the paper the question describes answers instead of the draft
    LED = "led"  # sentences of papers the leader clearly outranks are dropped
    STATED_FIGURE = "stated_figure"  # the paper's sentence stating the asked figure answers
    UNSTATED_NAMES = "unstated_names"  # sentences naming what their paper does not: left out
    UNCITED = "uncited"  # a model's sentences citing no paper: left out
    RESTATED_NAMES = "restated_names"  # ... or said again in their paper's own sentence
    EXTRACTED = "extracted"  # the model's draft had no support: the abstracts' sentences instead


NOTICES: dict[Reason, str] = {
    Reason.NO_SUPPORT: "The draft answer was withheld: none of its sentences is supported by the "
    "abstract it cites.",
    Reason.JUDGE: "Checked by the model: the abstract of {titles} does not answer the question.",
    Reason.NO_FIGURE: "The question asks for a figure, and no cited abstract sentence states it.",
    Reason.MISSING_CONDITION: "The question asks about '{detail}', and the abstract of {titles} "
    "does not.",
    Reason.IGNORED_WORD: "The question asks about '{detail}', and the abstract of {titles} never "
    "uses the word.",
    Reason.NAMED_IGNORES_WORD: "The question asks about '{detail}', and the abstract of {titles} "
    "never uses the word; the answer says what it does say.",
    Reason.JUDGE_FAILED: "The relevance check failed ({detail}); shown unchecked.",
    Reason.LIST_CONDITIONS: "No retrieved paper meets the question's conditions: {detail}.",
    Reason.UNKNOWN_NAMES: "No retrieved paper mentions {detail}: what is shown comes from the "
    "closest papers, not from one about it.",
    Reason.UNKNOWN_WORDS: "No indexed paper uses {detail}, and no English word is spelled so: "
    "is it a typo?",
    Reason.UNSTATED_NAMES: "Left out of the answer: what it said about {detail}, which the "
    "cited abstracts do not state.",
    Reason.UNCITED: "Left out of the answer: {detail} of the model's sentences, citing no paper.",
    Reason.K_CLAMPED: "{detail}",
    Reason.BACKEND_FAILED: "{detail}",
    Reason.EXTRACTED: "The model's draft was withheld (none of its sentences is supported by the "
    "abstract it cites); the answer is the abstracts' own sentences instead.",
}


class Verdict(BaseModel):
    """One check's decision. `reject` drops the sentences citing `papers` (prompt numbers);
    `repair` says the check rewrote the draft; `note` keeps it with a notice; `decline` ends it."""

    check: str
    outcome: Literal["reject", "repair", "note", "decline"]
    reason: Reason
    papers: list[int] = []
    detail: str = ""
    titles: str = ""

    def notice(self) -> str | None:
        """The notice a reader sees, or None when this verdict shows none."""
        template = NOTICES.get(self.reason)
        return template.format(detail=self.detail, titles=self.titles) if template else None


def notice(reason: Reason, detail: str = "", titles: str = "") -> str:
    """The notice for a reason decided outside the checks (retrieval, the backend)."""
    return NOTICES[reason].format(detail=detail, titles=titles)
