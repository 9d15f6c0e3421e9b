"""The extractive backend: no LLM. The answer is the most relevant abstract sentences of the
top sources, each cited. Instant, and the visible fallback when another backend fails."""

from collections.abc import Iterator

from rag.figures import answers_figure, asked_figure, figure_words
from rag.llm.base import LLMBackend, Prompt
from rag.sentences import asks_for_one_paper, split_sentences, stems
from rag.text import CANNOT_ANSWER, defang

MAX_PAPERS = 3  # one when the question asks for one paper ("Which paper shows ...?")
CLOSE_TO_BEST = 0.12  # other papers join the answer when their best sentence is this close
MIN_SIMILARITY = 0.3
FIGURE_FIRST = 1.0  # added to the similarity of a sentence whose figure is next to a question word


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
        """(source number, sentence) of the best sentence of each close-enough source. When the
        question names papers (by method, author or area: relevance 1), only those answer. A
        question asking for one paper gets one: citing the runners-up as well made a third of
        those answers cite a wrong paper. A question asking for a figure ("How many ...?") is
        answered only by sentences stating one (first those whose figure is next to a word of
        the question: "up to 100× speedup" for "How large a speedup ...?"), or not at all."""
        named = {n for n, source in enumerate(prompt.sources, 1) if source.relevance >= 1.0}
        counted = asked_figure(prompt.question)
        candidates = [
            (n, sentence)
            for n, source in enumerate(prompt.sources, start=1)
            if not named or n in named
            for sentence in split_sentences(source.paper.abstract)
            if counted is None or answers_figure(sentence, counted)
        ]
        if not candidates:
            return []
        import numpy as np  # here, not at the top: `rag --help` imports this module

        vectors = np.asarray(self.embedder.embed([prompt.question] + [s for _, s in candidates]))
        scores = vectors[1:] @ vectors[0]
        if counted is not None:  # a figure of what the question asks about comes first
            asked = stems(prompt.question)
            scores += [FIGURE_FIRST * bool(asked & figure_words(s)) for _, s in candidates]
        best: dict[int, tuple[float, str]] = {}
        for (number, sentence), score in zip(candidates, scores):
            if score > best.get(number, (-2.0, ""))[0]:
                best[number] = (float(score), sentence)
        top = max(score for score, _ in best.values())
        chosen = [
            (n, s)
            for n, (score, s) in best.items()
            if n in named or (score >= MIN_SIMILARITY and score >= top - CLOSE_TO_BEST)
        ]
        most = 1 if asks_for_one_paper(prompt.question) and len(named) <= 1 else MAX_PAPERS
        return sorted(chosen, key=lambda pick: -best[pick[0]][0])[:most]
