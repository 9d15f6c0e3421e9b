"""A sentence may name only what its cited abstract states: every dataset, benchmark, model,
method, metric, number and formula in it must occur in the cited paper's abstract or metadata
(rag.answer.naming). Otherwise, when the support check found its meaning in the cited abstract,
the paper's own closest sentence replaces it (if close enough to say the same); else the
sentence is left out, with a notice naming what it invented (and a draft left with nothing
supported is withheld)."""

import numpy as np

from rag.answer.checks import Check, Review
from rag.answer.lines import paper_line
from rag.answer.naming import ungrounded, unstated_by_cited
from rag.answer.verdict import Reason
from rag.sentences import split_sentences


class StatedNames(Check):
    name = "stated_names"

    def run(self, review: Review) -> list:
        kept, invented, restated = [], [], []
        sources = dict(enumerate(review.sources, 1))
        for sentence in review.sentences:
            unknown = unstated_by_cited(sentence, sources, review.sources, review.intent.text)
            if not unknown:
                kept.append(sentence)
            elif sentence.supported is not False and (
                repaired := self._own_sentence(review, sentence)
            ):  # its meaning is its paper's, its names are not: said in the paper's words
                kept.append(repaired)
                restated += repaired.citations
            else:
                invented += unknown
        review.sentences = kept
        verdicts = (
            [self.verdict("repair", Reason.RESTATED_NAMES, papers=restated)] if restated else []
        )
        if invented:
            names = ", ".join(f"'{name}'" for name in dict.fromkeys(invented))
            verdicts.append(self.verdict("note", Reason.UNSTATED_NAMES, detail=names))
        return verdicts

    def _own_sentence(self, review: Review, sentence):
        """The cited paper's abstract sentence closest to the claim, as its line, when it is close
        enough to support it (then it says what the claim meant, with the names it really has):
        of the first cited paper that states all the sentence's names, if one does ("HF-opt and
        RHF [1][2]" is paper 1's sentence when only paper 1 names them)."""
        if not sentence.citations:
            return None
        number = next(
            (
                n
                for n in sentence.citations
                if not ungrounded(sentence.text, [review.sources[n - 1]], review.intent.text)
            ),
            sentence.citations[0],
        )
        source = review.sources[number - 1]
        own = split_sentences(source.paper.abstract)
        if not own:
            return None
        vectors = np.asarray(review.tools.embedder.embed([sentence.text, *own]))
        similarity = vectors[1:] @ vectors[0]
        best = int(np.argmax(similarity))
        if similarity[best] < review.tools.tuning.support_threshold:
            return None
        review.evidence.setdefault(source.paper.paper_id, own[best])
        line = paper_line(source, own[best], number)
        line.support = round(float(similarity[best]), 3)
        return line
