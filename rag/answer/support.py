"""Support check: does the cited abstract actually say what the sentence claims?
Each answer sentence is compared with every sentence of its cited abstracts using the
bundled embedder; the best similarity is its support score."""

import numpy as np

from rag.models import AnswerSentence, Citation, Source
from rag.sentences import split_sentences

MIN_WORDS = 4  # "In summary:" needs no citation
ADD_MARGIN = 0.1  # an uncited sentence gets a citation only when one source clearly leads


class SupportChecker:
    """Scores answer sentences against cited abstracts; adds clear missing citations."""

    def __init__(self, embedder, threshold: float):
        self.embedder, self.threshold = embedder, threshold

    def check(self, sentences: list[AnswerSentence], sources: list[Source]) -> dict[str, str]:
        """Fill each sentence's support verdict (citations are prompt numbers, 1-based);
        return the best supporting abstract sentence per cited paper id."""
        claims = [i for i, s in enumerate(sentences) if len(s.text.split()) >= MIN_WORDS]
        if not claims or not sources:
            return {}
        evidence = [split_sentences(s.paper.abstract or s.passage) for s in sources]
        flat = [sentence for sentences_ in evidence for sentence in sentences_]
        owner = np.repeat(np.arange(len(sources)), [len(e) for e in evidence])
        vectors = np.asarray(self.embedder.embed([sentences[i].text for i in claims] + flat))
        similarity = vectors[:len(claims)] @ vectors[len(claims):].T
        best_evidence: dict[int, tuple[float, str]] = {}
        for row, index in enumerate(claims):
            sentence = sentences[index]
            per_source = [similarity[row][owner == n].max(initial=-1.0) for n in range(len(sources))]
            if not sentence.citations:
                self._maybe_cite(sentence, per_source)
            if sentence.citations:
                scores = [per_source[n - 1] for n in sentence.citations]
                sentence.support = round(float(max(scores)), 3)
                sentence.supported = sentence.support >= self.threshold
                for n in sentence.citations:
                    pick = int(np.argmax(np.where(owner == n - 1, similarity[row], -2.0)))
                    if similarity[row][pick] > best_evidence.get(n, (-2.0, ""))[0]:
                        best_evidence[n] = (float(similarity[row][pick]), flat[pick])
        return {sources[n - 1].paper.paper_id: text for n, (_, text) in best_evidence.items()}

    def _maybe_cite(self, sentence: AnswerSentence, per_source: list[float]) -> None:
        ranked = sorted(range(len(per_source)), key=lambda n: -per_source[n])
        best = per_source[ranked[0]]
        runner_up = per_source[ranked[1]] if len(ranked) > 1 else -1.0
        if best >= self.threshold + ADD_MARGIN and best - runner_up >= ADD_MARGIN:
            sentence.citations.append(ranked[0] + 1)


def attach_evidence(citations: list[Citation], evidence: dict[str, str]) -> None:
    """Give each final citation the abstract sentence that best supports the answer."""
    for citation in citations:
        citation.evidence = evidence.get(citation.paper_id)
