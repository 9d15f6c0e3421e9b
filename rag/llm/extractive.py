"""The extractive backend: no LLM. The answer is the abstract sentences the answer layer chose
(`Prompt.extracted`, see rag.answer.extract), each under its paper's title and cited. Instant,
and the visible fallback when another backend fails."""

from collections.abc import Iterator

from rag.llm.base import LLMBackend, Prompt
from rag.text import CANNOT_ANSWER, defang


class ExtractiveBackend(LLMBackend):
    name = "extractive"
    is_llm = False

    def stream(self, prompt: Prompt) -> Iterator[str]:
        if not prompt.extracted:
            yield CANNOT_ANSWER
            return
        before = None
        for position, (number, sentence) in enumerate(prompt.extracted):
            title = prompt.sources[number - 1].paper.title
            head = "" if number == before else f"{title}: "  # its second sentence goes on
            before = number
            yield (
                "" if position == 0 else " "
            ) + f"{head}{defang(sentence).rstrip('.')} [{number}]."
