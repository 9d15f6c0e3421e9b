"""The paper the question describes, when the draft missed it: its supported sentences all cite
papers that source clearly leads (true sentences of a weaker paper, copied), or none is supported
and the source clearly leads all others without being named (the model restated the question, or
copied the prompt's example). Its own sentence closest to the question answers instead, unless
the question names someone or something it never names."""

from rag.answer.checks import Check, Review
from rag.answer.lines import closest_sentences, most_relevant, paper_line
from rag.answer.support import unknown_names
from rag.answer.verdict import Reason
from rag.models import Source
from rag.tuning import AnswerTuning


def clear_leader(
    sources: list[Source], cited: list[int], tuning: AnswerTuning, floor: float | None = None
) -> int | None:
    """The number of the most relevant source when it reaches the floor (by default
    `paraphrase_relevance`) and leads the cited ones by `relevance_margin` (with none cited,
    when it reaches the floor)."""
    floor = tuning.paraphrase_relevance if floor is None else floor
    best = most_relevant(sources)
    top = sources[best - 1].relevance
    runner_up = max((sources[n - 1].relevance for n in cited), default=-1.0)
    return best if top >= floor and top - runner_up >= tuning.relevance_margin else None


def overlooked_leader(review: Review) -> int | None:
    """The number of the source the draft overlooked (see the module), or None."""
    sources, tuning = review.sources, review.tools.tuning
    best = most_relevant(sources)
    if unknown_names(review.intent.text, [sources[best - 1]]):
        return None
    cited = review.cited()
    if cited:
        return clear_leader(sources, cited, tuning, tuning.overlooked_relevance)
    if sources[best - 1].named:
        return None
    others = [n for n in range(1, len(sources) + 1) if n != best]
    return clear_leader(sources, others, tuning, tuning.overlooked_relevance)


class OverlookedLeader(Check):
    name = "overlooked_leader"

    def run(self, review: Review) -> list:
        if not review.prose or not (leader := overlooked_leader(review)):
            return []
        source = review.sources[leader - 1]
        ((_, sentence),) = closest_sentences([source], review.intent.text, review.tools.embedder)
        review.sentences = [paper_line(source, sentence, leader)]
        review.evidence = {source.paper.paper_id: sentence}
        review.overlooked = True
        return [self.verdict("repair", Reason.OVERLOOKED, papers=[leader])]
