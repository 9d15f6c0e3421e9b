"""The one interface every answer backend implements."""

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import ClassVar

from pydantic import BaseModel, Field

from rag.errors import RagError
from rag.models import Message, Source


class BackendError(RagError):
    """The backend failed (server down, timeout, bad key, broken model); the message says which."""


class Prompt(BaseModel):
    """What a backend answers: chat messages, plus the numbered sources they were built from
    (LLMs read the messages; the extractive and fake backends read the sources)."""

    messages: list[Message]
    sources: list[Source] = Field(default_factory=list)
    question: str = ""
    max_tokens: int = 400
    extracted: list[tuple[int, str]] = Field(
        default_factory=list,
        description="For backends without a model: (source number, sentence) to write out.",
    )


class LLMBackend(ABC):
    """Streams the text of an answer to a prompt."""

    name: ClassVar[str]
    is_llm: ClassVar[bool] = True  # False for backends that compose text without a model
    offered: ClassVar[bool] = True  # False for test-only backends, which the UI does not list

    def __init__(self, settings, embedder=None):
        self.settings, self.embedder = settings, embedder

    def check(self) -> None:
        """Raise BackendError when the backend cannot answer now (server down, file missing)."""

    def warm(self, prompt: Prompt) -> None:
        """Get ready to answer prompts like this one (load the model, cache the prompt's
        shared start); most backends have nothing to do."""

    def side_tasks(self) -> "LLMBackend":
        """The backend for short prompts beside the answers (judging a paper, rewriting a
        follow-up): this one, unless another keeps the answer prompt's cached start intact."""
        return self

    @abstractmethod
    def stream(self, prompt: Prompt) -> Iterator[str]:
        """Yield pieces of the answer text; raise BackendError on failure."""

    def complete(self, prompt: Prompt) -> str:
        return "".join(self.stream(prompt))
