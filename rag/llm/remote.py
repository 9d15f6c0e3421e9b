"""Backends on model servers, through llama-index's LLM classes: any OpenAI-compatible
endpoint (OpenAI, vLLM, llama.cpp server, LM Studio) and Ollama."""

from collections.abc import Iterator

from rag.config import Settings
from rag.errors import ConfigError
from rag.llm.base import BackendError, LLMBackend, Prompt


class ChatServerBackend(LLMBackend):
    """Streams from a llama-index chat LLM; every failure becomes a BackendError naming the server."""

    where: str

    def __init__(self, settings: Settings, embedder=None):
        super().__init__(settings, embedder)
        self.llm = self.make_llm(settings)

    def make_llm(self, settings: Settings):
        raise NotImplementedError

    def stream(self, prompt: Prompt) -> Iterator[str]:
        from llama_index.core.llms import ChatMessage

        messages = [ChatMessage(role=m.role, content=m.content) for m in prompt.messages]
        try:
            for response in self.llm.stream_chat(messages, max_tokens=prompt.max_tokens):
                if response.delta:
                    yield response.delta
        except BackendError:
            raise
        except Exception as error:
            raise BackendError(
                f"{self.name} backend at {self.where} failed: "
                f"{type(error).__name__}: {str(error)[:300]}"
            ) from None


class OpenAIBackend(ChatServerBackend):
    name = "openai"
    needs_key = True
    key_env_var = "RAG_OPENAI_API_KEY"

    def make_llm(self, settings: Settings):
        from llama_index.llms.openai_like import OpenAILike

        missing = [
            var
            for var, value in [
                ("RAG_OPENAI_BASE_URL", settings.openai_base_url),
                ("RAG_OPENAI_MODEL", settings.openai_model),
                ("RAG_OPENAI_API_KEY", settings.openai_api_key),
            ]
            if not value
        ]
        if missing:
            raise ConfigError(
                f"The openai backend needs {', '.join(missing)} (in .env or the environment); "
                "for a local server without auth, set the key to any value."
            )
        self.where = settings.openai_base_url
        return OpenAILike(
            model=settings.openai_model,
            api_base=settings.openai_base_url,
            api_key=settings.openai_api_key.get_secret_value(),
            is_chat_model=True,
            timeout=settings.llm_timeout_s,
            max_retries=1,
            temperature=0.0,
            context_window=settings.llm_context,
        )


class OllamaBackend(ChatServerBackend):
    name = "ollama"

    def check(self) -> None:
        """Ollama answers /api/tags when it runs; the configured model must be among them."""
        import httpx

        try:
            response = httpx.get(f"{self.where.rstrip('/')}/api/tags", timeout=2.0)
            response.raise_for_status()
            models = {m.get("name", "") for m in response.json().get("models", [])}
        except (httpx.HTTPError, ValueError) as error:
            raise BackendError(
                f"Ollama is not running at {self.where} ({type(error).__name__})."
            ) from None
        wanted = self.settings.ollama_model
        if not any(m == wanted or m.split(":")[0] == wanted for m in models):
            raise BackendError(
                f"Ollama at {self.where} has no model '{wanted}'; run `ollama pull {wanted}`."
            )

    def make_llm(self, settings: Settings):
        from llama_index.llms.ollama import Ollama

        self.where = settings.ollama_host
        return Ollama(
            model=settings.ollama_model,
            base_url=settings.ollama_host,
            request_timeout=settings.llm_timeout_s,
            temperature=0.0,
        )
