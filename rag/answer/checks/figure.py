"""A question asking for a figure ("How many ...?", "What speedup ...?") is answered only by a
sentence stating one, of what is asked. When the draft states none, the first supported paper's
sentence that does answers instead (chosen as the extractive answer chooses); when its abstract
states none, the answer declines."""

from rag.answer.checks import Check, Review
from rag.answer.extract import best_sentences
from rag.answer.lines import paper_line
from rag.answer.verdict import Reason
from rag.figures import answers_figure, of_scope


class Figure(Check):
    name = "figure"

    def run(self, review: Review) -> list:
        counted, scope = review.intent.figure, review.intent.figure_scope
        if counted is None or any(
            s.supported
            and answers_figure(s.text, counted)
            and all(of_scope(s.text, scope, review.sources[n - 1].paper.title) for n in s.citations)
            for s in review.sentences
        ):
            return []
        for number in dict.fromkeys(
            n for s in review.sentences if s.supported for n in s.citations
        ):
            source = review.sources[number - 1]
            picks = best_sentences(
                review.intent.text,
                [source],
                review.intent,
                review.tools.embedder,
                review.tools.tuning,
            )
            for _, sentence in picks[:1]:
                review.evidence[source.paper.paper_id] = sentence
                review.sentences = [paper_line(source, sentence, number)]
                return [self.verdict("repair", Reason.STATED_FIGURE, papers=[number])]
        return [self.verdict("decline", Reason.NO_FIGURE)]
