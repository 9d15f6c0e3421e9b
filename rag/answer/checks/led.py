"""When an answer cites, with support, the source the question describes, sentences citing
papers that source clearly leads are dropped: a small model adds true sentences of nearby
papers."""

from rag.answer.checks import Check, Review
from rag.answer.checks.leader import clear_leader
from rag.answer.lines import most_relevant
from rag.answer.verdict import Reason


def led_papers(review: Review) -> set[int]:
    """The numbers of the cited papers the most relevant source clearly leads, when the answer
    cites that source with support."""
    sources, best = review.sources, most_relevant(review.sources)
    if not any(s.supported and best in s.citations for s in review.sentences):
        return set()
    cited = {n for s in review.sentences for n in s.citations} - {best}
    return {n for n in cited if clear_leader(sources, [n], review.tools.tuning) == best}


class LedPapers(Check):
    name = "led_papers"

    def run(self, review: Review) -> list:
        if not review.prose or not (led := led_papers(review)):
            return []
        best = most_relevant(review.sources)  # a sentence citing it too stays
        review.sentences = [
            s for s in review.sentences if best in s.citations or not led & set(s.citations)
        ]
        return [self.verdict("repair", Reason.LED, papers=sorted(led))]
