"""A sentence of a model's answer that cites no paper is a claim tied to none ("This advantage
over classical nets is that it has the same sequential fat-shattering dimension", taken from
another paper): left out, with a notice, when the answer cites papers elsewhere. The support
check has already given it the citation of a paper that clearly says it, where one does."""

from rag.answer.checks import Check, Review
from rag.answer.verdict import Reason


class Uncited(Check):
    name = "uncited"

    def run(self, review: Review) -> list:
        cited = [sentence for sentence in review.sentences if sentence.citations]
        if not review.draft.writer_is_model or not cited or len(cited) == len(review.sentences):
            return []
        left_out = len(review.sentences) - len(cited)
        review.sentences = cited
        return [self.verdict("note", Reason.UNCITED, detail=str(left_out))]
