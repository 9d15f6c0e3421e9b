"""What is known of an answer before its text is checked (`Draft`), and every way an answer
declines (`abstention`)."""

import time
from typing import Literal

from pydantic import BaseModel, Field

from rag.answer.intent import Intent
from rag.answer.verdict import Reason, Verdict
from rag.models import Answer, Source
from rag.text import CANNOT_ANSWER


class Draft(BaseModel):
    """An answer being written: its question's intent, who writes it, what happened so far."""

    intent: Intent
    backend: str  # shown to the reader: what wrote the text
    layout: Literal["prose", "list"] = "prose"
    writer_is_model: bool = True  # False when the text was composed without a model
    can_judge: bool = True  # a model is at hand to judge a cited paper
    notices: list[str] = Field(default_factory=list)
    reasons: list[Reason] = Field(default_factory=list)
    fallback_from: str | None = None
    ttft_s: float | None = None
    started: float = Field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def record(self, verdict: Verdict) -> None:
        """Keep a verdict's reason code, and its notice when it is one shown with the answer."""
        self.reasons.append(verdict.reason)
        if verdict.outcome == "note" and (text := verdict.notice()):
            self.notices.append(text)

    def answer(self, **fields) -> Answer:
        return Answer(
            question=self.intent.question,
            standalone_question=self.intent.rewritten,
            backend=self.backend,
            layout=self.layout,
            notices=self.notices,
            reasons=[str(reason) for reason in dict.fromkeys(self.reasons)],
            fallback_from=self.fallback_from,
            ttft_s=self.ttft_s,
            latency_s=self.elapsed(),
            **fields,
        )


def abstention(
    draft: Draft,
    sources: list[Source],
    reason: Reason,
    text: str = "",
    why: str = "",
    dropped: int = 0,
    suggestions: int = 3,
) -> Answer:
    """Every way an answer declines, with its reason code: the question is not in English, the
    filters match no paper, nothing retrieved is relevant, the model declines, or the checks
    leave nothing (`why` says which, among the notices). The closest papers come as
    suggestions."""
    shown = sources[:suggestions]
    if not text:
        text = CANNOT_ANSWER + (
            " The closest papers in the corpus are listed as suggestions." if shown else ""
        )
    draft = draft.model_copy(
        update={
            "notices": [*draft.notices, *filter(None, [why])],
            "reasons": [*draft.reasons, reason],
        }
    )
    return draft.answer(
        text=text, abstained=True, suggestions=shown, dropped_citations=dropped, reason=str(reason)
    )
