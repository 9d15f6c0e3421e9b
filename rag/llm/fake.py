"""A deterministic fake backend for tests: it cites the sources it was given, or replies
with a fixed text."""

from collections.abc import Iterator

from rag.llm.base import LLMBackend, Prompt


class FakeBackend(LLMBackend):
    name = "fake"
    offered = False

    def __init__(self, settings=None, embedder=None, reply: str | None = None):
        super().__init__(settings, embedder)
        self.reply = reply
        self.prompts: list[Prompt] = []  # what it was asked, for assertions

    def stream(self, prompt: Prompt) -> Iterator[str]:
        self.prompts.append(prompt)
        text = (
            self.reply
            if self.reply is not None
            else " ".join(
                f"{source.paper.abstract.split('. ')[0].rstrip('.')} [{number}]."
                for number, source in enumerate(prompt.sources[:2], start=1)
            )
        )
        for word in text.split(" "):
            yield word + " "
