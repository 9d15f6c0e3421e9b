"""The extractive backend: no LLM. The answer is the most relevant abstract sentences of the
top sources, each cited. Instant, and the visible fallback when another backend fails."""

from collections.abc import Iterator

from rag.llm.base import LLMBackend, Prompt
from rag.sentences import asks_for_one_paper, split_sentences
from rag.text import CANNOT_ANSWER, defang

MAX_PAPERS = 3  # one when the question asks for one paper ("Which paper shows ...?")
CLOSE_TO_BEST = 0.12  # other papers join the answer when their best sentence is this close
MIN_SIMILARITY = 0.3


class ExtractiveBackend(LLMBackend):
    name = "extractive"
    is_llm = False

    def stream(self, prompt: Prompt) -> Iterator[str]:
        picks = self.best_sentences(prompt)
        if not picks:
            yield CANNOT_ANSWER
            return
        for position, (number, sentence) in enumerate(picks):
            title = prompt.sources[number - 1].paper.title
            yield (
                "" if position == 0 else " "
            ) + f"{title}: {defang(sentence).rstrip('.')} [{number}]."

    def best_sentences(self, prompt: Prompt) -> list[tuple[int, str]]:
        """(source number, sentence) of the best sentence of each close-enough source; papers
        the question names by metadata (relevance 1) always qualify. A question asking for one
        paper gets one: citing the runners-up as well made a third of those answers cite a
        wrong paper."""
        candidates = [
            (n, sentence)
            for n, source in enumerate(prompt.sources, start=1)
            for sentence in split_sentences(source.paper.abstract)
        ]
        if not candidates:
            return []
        import numpy as np  # here, not at the top: `rag --help` imports this module

        vectors = np.asarray(self.embedder.embed([prompt.question] + [s for _, s in candidates]))
        scores = vectors[1:] @ vectors[0]
        best: dict[int, tuple[float, str]] = {}
        for (number, sentence), score in zip(candidates, scores):
            if score > best.get(number, (-2.0, ""))[0]:
                best[number] = (float(score), sentence)
        top = max(score for score, _ in best.values())
        named = {n for n, source in enumerate(prompt.sources, 1) if source.relevance >= 1.0}
        chosen = [
            (n, s)
            for n, (score, s) in best.items()
            if n in named or (score >= MIN_SIMILARITY and score >= top - CLOSE_TO_BEST)
        ]
        most = 1 if asks_for_one_paper(prompt.question) and len(named) <= 1 else MAX_PAPERS
        return sorted(chosen, key=lambda pick: (pick[0] not in named, -best[pick[0]][0]))[:most]
