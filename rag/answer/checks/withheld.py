"""A draft none of whose sentences its cited abstract supports is withheld."""

from rag.answer.checks import Check, Review
from rag.answer.verdict import Reason


class Withheld(Check):
    name = "withheld"

    def run(self, review: Review) -> list:
        return [] if review.supported() else [self.verdict("decline", Reason.NO_SUPPORT)]
