"""The local backend: llama.cpp running a GGUF file with the model's own chat template."""

import threading
from collections.abc import Iterator

from rag.config import Settings
from rag.llm.base import BackendError, LLMBackend, Prompt
from rag.llm.bundled import QWEN_CODER_1_5B


class LocalBackend(LLMBackend):
    name = "local"

    def __init__(self, settings: Settings, embedder=None):
        super().__init__(settings, embedder)
        self.path = settings.local_model_path or QWEN_CODER_1_5B.path(settings.data_dir)
        if settings.local_model_path is None:
            self.fix = "run `scripts/setup.sh` to re-assemble it"
            QWEN_CODER_1_5B.verify_quick(self.path)
        else:
            self.fix = (
                "point RAG_LOCAL_MODEL_PATH at a GGUF file, or unset it to use the bundled "
                "model (`scripts/setup.sh` assembles it)"
            )
            if not self.path.is_file():
                from rag.errors import ConfigError

                raise ConfigError(f"RAG_LOCAL_MODEL_PATH {self.path} does not exist; {self.fix}.")
        self._model = None
        self._lock = threading.Lock()  # one generation at a time: llama.cpp is not re-entrant

    def check(self) -> None:
        """Every GGUF file starts with b"GGUF"; this catches garbage without loading 1 GB."""
        with self.path.open("rb") as handle:
            if handle.read(4) != b"GGUF":
                raise BackendError(f"The local model {self.path} is not a GGUF file; {self.fix}.")

    def model(self):
        if self._model is None:
            from llama_cpp import Llama

            try:
                self._model = Llama(
                    str(self.path),
                    n_ctx=self.settings.llm_context,
                    n_threads=self.settings.llm_threads,
                    verbose=False,
                )
            except Exception as error:
                raise BackendError(
                    f"The local model {self.path} could not be loaded ({error}); {self.fix}."
                ) from None
        return self._model

    def stream(self, prompt: Prompt) -> Iterator[str]:
        messages = [m.model_dump() for m in prompt.messages]
        with self._lock:
            chunks = self.model().create_chat_completion(
                messages=messages, stream=True, temperature=0.0, max_tokens=prompt.max_tokens
            )
            for chunk in chunks:
                if text := chunk["choices"][0]["delta"].get("content"):
                    yield text
