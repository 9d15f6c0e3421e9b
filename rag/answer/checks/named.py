"""Sentences that name a paper get its citation: by its title, or (citing nothing valid) by the
method name or author of exactly one source."""

from rag.answer import citations as cite
from rag.answer.checks import Check, Review


class CitedNames(Check):
    name = "cited_names"

    def run(self, review: Review) -> list:
        cite.cite_named_titles(review.sentences, review.sources)
        for sentence in review.sentences:
            if not sentence.citations:
                named = set(review.tools.metadata.mentioned(sentence.text, as_written=True))
                hits = [n for n, s in enumerate(review.sources, 1) if s.paper.paper_id in named]
                sentence.citations += hits if len(hits) == 1 else []
        return []
