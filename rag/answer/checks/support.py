"""Every sentence scored against the abstracts it cites (rag.answer.support): support, grounding,
names and figures it states; a citation moved to the paper that clearly says it. A list written
without a model, every line its paper's own sentence under its title, is supported as quoted
(no sentence is embedded: a list of hundreds of papers is checked in no time)."""

from rag.answer.checks import Check, Review
from rag.answer.lines import list_line
from rag.answer.support import SupportChecker
from rag.sentences import split_sentences


class Support(Check):
    name = "support"

    def run(self, review: Review) -> list:
        quotes = [quoted(sentence, review.sources) for sentence in review.sentences]
        if quotes and all(quotes) and not review.draft.writer_is_model:
            for sentence in review.sentences:
                sentence.support, sentence.supported = 1.0, True
            review.evidence = {
                review.sources[sentence.citations[0] - 1].paper.paper_id: quote
                for sentence, quote in zip(review.sentences, quotes)
            }
            return []
        checker = SupportChecker(review.tools.embedder, review.tools.tuning)
        review.sentences, review.evidence = checker.check(
            review.sentences, review.sources, review.intent.text
        )
        return []


def quoted(sentence, sources) -> str | None:
    """The abstract sentence a list line quotes under its one cited paper's title, or None."""
    if len(sentence.citations) != 1 or not 1 <= sentence.citations[0] <= len(sources):
        return None
    source = sources[sentence.citations[0] - 1]
    own = split_sentences(source.paper.abstract)
    return next((s for s in own if sentence.text == f"{list_line(source, s)}."), None)
