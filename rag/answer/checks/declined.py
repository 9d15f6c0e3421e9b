"""A draft that declines and cites nothing is a decline (the extractive answer to a figure
question declines when no sentence states one)."""

from rag.answer.checks import Check, Review
from rag.answer.prompts import is_cannot_answer
from rag.answer.verdict import Reason


class Declined(Check):
    name = "declined"

    def run(self, review: Review) -> list:
        if not is_cannot_answer(review.raw) or any(s.citations for s in review.sentences):
            return []
        figure = not review.draft.writer_is_model and review.intent.figure is not None
        return [self.verdict("decline", Reason.NO_FIGURE if figure else Reason.MODEL_DECLINED)]
