"""The local backend: the bundled GGUF (or RAG_LOCAL_MODEL_PATH) served by a supervised llama.cpp
process (`rag.llm.runner`), streamed through the same OpenAI-compatible client as `openai`."""

import copy
from collections.abc import Iterator

from rag.config import Settings
from rag.errors import ConfigError
from rag.llm.base import BackendError, Prompt
from rag.llm.bundled import QWEN_CODER_1_5B
from rag.llm.gguf import truncation
from rag.llm.remote import OpenAICompatibleBackend, openai_like
from rag.llm.runner import ALIAS, shared_process

SIDE_CONTEXT = 2048  # tokens: a judge's or rewriter's prompt is a few hundred


class LocalBackend(OpenAICompatibleBackend):
    name = "local"

    def __init__(self, settings: Settings, embedder=None):
        super().__init__(settings, embedder)
        self.path = settings.local_model_path or QWEN_CODER_1_5B.path(settings.model_store)
        if settings.local_model_path is None:
            self.fix = "run `scripts/setup.sh` to re-assemble it"
            QWEN_CODER_1_5B.verify_quick(self.path)
        else:
            self.fix = (
                "point RAG_LOCAL_MODEL_PATH at a GGUF file, or unset it to use the bundled "
                "model (`scripts/setup.sh` assembles it)"
            )
            if not self.path.is_file():
                raise ConfigError(f"RAG_LOCAL_MODEL_PATH {self.path} does not exist; {self.fix}.")
        self.process = shared_process(self.path, settings.llm_threads, settings.llm_context)
        self.where = f"the local model process for {self.path.name}"
        self.secret = self.process.key
        self._side: LocalBackend | None = None

    def check(self) -> None:
        """Every GGUF file starts with b"GGUF", and is as long as its header's tensors need:
        this catches garbage and cut-short files without loading 1 GB."""
        with self.path.open("rb") as handle:
            if handle.read(4) != b"GGUF":
                raise BackendError(f"The local model {self.path} is not a GGUF file; {self.fix}.")
        if problem := truncation(self.path):
            raise BackendError(
                f"The local model {self.path} is truncated: {problem} (an interrupted download "
                f"or copy leaves such a file); {self.fix}."
            )

    def side_tasks(self) -> "LocalBackend":
        """The same model in a second process. llama.cpp keeps one prompt's start cached per
        process; a judge's or rewriter's prompt in the first would evict the answer prompt's,
        and the next answer would wait ~2 s on 2 cores to read it again. The second process
        shares the model file's memory pages and costs ~0.3 GB more."""
        if self._side is None:
            side = copy.copy(self)
            context = min(SIDE_CONTEXT, self.settings.llm_context)
            side.process = shared_process(self.path, self.settings.llm_threads, context, "side")
            side.where = f"the local model's second process for {self.path.name}"
            side.secret, side._side = side.process.key, side
            self._side = side
        return self._side

    def warm(self, prompt: Prompt) -> None:
        """Start the model process and run the prompt's shared start through it once, so the
        first question finds both ready (llama.cpp reuses the common prefix of prompts)."""
        self.check()
        self.complete(prompt.model_copy(update={"max_tokens": 1}))

    def url(self) -> str:
        try:
            return self.process.url()
        except BackendError as error:
            raise BackendError(f"{str(error).rstrip('.')}; {self.fix}.") from None

    def connect(self):  # no retries: a dead process is restarted instead
        return openai_like(self.settings, self.url(), ALIAS, self.process.key, retries=0)

    def stream(self, prompt: Prompt) -> Iterator[str]:
        self.check()
        self.url()  # a process that cannot start says why; one that dies later is restarted
        serving = self.process.process
        try:
            yield from super().stream(prompt)
        except BackendError:
            how = self.process.died(serving)
            if how is None:
                raise
            if not self.process.restart_soon():
                raise BackendError(
                    f"the local model process {how}, {self.process.deaths} times in a row, so it "
                    f"is not restarted again ({self.process.log_tail()}); {self.fix}"
                ) from None
            raise BackendError(
                f"the local model process {how}; it is being restarted, and the next answer "
                "comes from the model again"
            ) from None
        self.process.deaths = 0

    def prompt_tokens(self, prompt: Prompt) -> int:
        """Tokens of the prompt's messages (without the chat template's few), for benchmarks."""
        import httpx

        text = "\n".join(m.content for m in prompt.messages)
        response = httpx.post(
            f"{self.url().removesuffix('/v1')}/extras/tokenize/count",
            json={"input": text},
            headers={"Authorization": f"Bearer {self.process.key}"},
            timeout=30,
        )
        response.raise_for_status()
        return response.json()["count"]
