"""Every sentence scored against the abstracts it cites (rag.answer.support): support, grounding,
names and figures it states; a citation moved to the paper that clearly says it."""

from rag.answer.checks import Check, Review
from rag.answer.support import SupportChecker


class Support(Check):
    name = "support"

    def run(self, review: Review) -> list:
        checker = SupportChecker(review.tools.embedder, review.tools.tuning)
        review.sentences, review.evidence = checker.check(
            review.sentences, review.sources, review.intent.text
        )
        return []
