"""Backends on model servers, through llama-index's LLM classes: any OpenAI-compatible
endpoint (OpenAI, vLLM, llama.cpp server, LM Studio) and Ollama."""

import logging
import re
import threading
import time
from collections.abc import Iterator

from rag.config import Settings
from rag.errors import ConfigError
from rag.llm.base import BackendError, LLMBackend, Prompt

log = logging.getLogger(__name__)
CAP_SLACK = 8  # streamed pieces beyond max_tokens before we stop reading (pieces ~ tokens)
BEARER = re.compile(r"((?:Bearer|Basic)\s+)[\w.~+/=-]+", re.IGNORECASE)
USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/@\s]+@", re.IGNORECASE)  # http://user:pw@


def redact(text: str, secret: str | None = None) -> str:
    """The text without the secret, any bearer token or any user:password in a URL: servers and
    proxies sometimes quote the request's Authorization header in their error bodies, and
    we show those."""
    if secret:
        text = text.replace(secret, "[redacted]")
    return USERINFO.sub(r"\1[redacted]@", BEARER.sub(r"\1[redacted]", text))


class RedactingFilter(logging.Filter):
    """Redacts URL credentials from what HTTP libraries log (they log request URLs whole)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info:  # tracebacks quote URLs too
            message += "\n" + logging.Formatter().formatException(record.exc_info)
            record.exc_info, record.exc_text = None, None
        record.msg, record.args = redact(message), None
        return True


for _name in ("httpx", "httpcore", "openai._base_client", "llama_index"):
    logging.getLogger(_name).addFilter(RedactingFilter())


def is_timeout(error: Exception) -> bool:
    import httpx
    import openai

    return isinstance(error, httpx.TimeoutException | openai.APITimeoutError | TimeoutError)


class ChatServerBackend(LLMBackend):
    """Streams from a llama-index chat LLM; every failure becomes a BackendError naming the server."""

    where: str
    secret: str | None = None  # never shown: redacted from every message

    def connect(self):
        """The llama-index LLM to stream from, and the HTTP client to close when the stream
        ends (None when the LLM keeps its own)."""
        raise NotImplementedError

    def finished(self, raw) -> bool:
        """Whether this raw chunk is the server saying the answer is complete."""
        raise NotImplementedError

    def stream(self, prompt: Prompt) -> Iterator[str]:
        from llama_index.core.llms import ChatMessage

        messages = [ChatMessage(role=m.role, content=m.content) for m in prompt.messages]
        (llm, http), received, pieces, finished = self.connect(), 0, 0, False
        limit = self.settings.llm_timeout_s
        # The deadline covers the whole answer (a slow or stalled stream, retries included):
        # when it passes, the connection is closed, which ends any read that is waiting.
        deadline = threading.Timer(limit, http.close) if http is not None else None
        started = time.monotonic()
        if deadline:
            deadline.daemon = True
            deadline.start()
        try:
            for response in llm.stream_chat(messages, max_tokens=prompt.max_tokens):
                finished = finished or self.finished(response.raw)
                if response.delta:
                    received, pieces = received + len(response.delta), pieces + 1
                    yield response.delta
                if pieces >= prompt.max_tokens + CAP_SLACK:  # the server ignores max_tokens
                    log.warning("%s: stopped at the %d-token limit", self.where, prompt.max_tokens)
                    finished = True
                    break
        except Exception as error:  # noqa: BLE001 - whatever the server did, say so
            if time.monotonic() - started >= limit:
                raise BackendError(
                    f"no answer within {limit:g} s (RAG_LLM_TIMEOUT_S sets the limit; "
                    f"{received} characters had arrived) (server: {self.where})"
                ) from None
            raise BackendError(self.failure(error)) from None
        finally:  # also when the reader stops early (Stop, Ctrl-C): the server sees us hang up
            if deadline:
                deadline.cancel()
            if http is not None:
                http.close()
        if not finished:  # a dropped connection can look like the end of the stream
            raise BackendError(
                f"the stream stopped before the answer was finished ({received} characters "
                f"received): the connection dropped, or the server does not speak the "
                f"{self.name} API (server: {self.where})."
            )

    def failure(self, error: Exception) -> str:
        """What went wrong, naming the server and never the key."""
        if is_timeout(error):
            detail = (
                f"no answer within {self.settings.llm_timeout_s:g} s "
                "(RAG_LLM_TIMEOUT_S sets the timeout)"
            )
        else:
            detail = f"{type(error).__name__}: {redact(str(error), self.secret)[:300]}"
        return f"{detail} (server: {self.where})"


def openai_like(settings: Settings, base_url: str, model: str, key: str, retries: int = 1):
    """A llama-index client for an OpenAI-compatible server (one retry at most by default: a
    hung server costs two timeouts, no more) on an HTTP client of its own, and that client:
    closing it ends a stream the reader abandoned, so the server stops generating."""
    import httpx
    from llama_index.llms.openai_like import OpenAILike

    http = httpx.Client(timeout=settings.llm_timeout_s)
    llm = OpenAILike(
        model=model,
        api_base=base_url,
        api_key=key,
        is_chat_model=True,
        timeout=settings.llm_timeout_s,
        max_retries=retries,
        temperature=0.0,
        context_window=settings.llm_context,
        http_client=http,
    )
    return llm, http


class OpenAICompatibleBackend(ChatServerBackend):
    """A server speaking the OpenAI chat API: a hosted one, or our own local model process."""

    def finished(self, raw) -> bool:
        return any(choice.finish_reason for choice in getattr(raw, "choices", None) or [])


class OpenAIBackend(OpenAICompatibleBackend):
    name = "openai"

    def __init__(self, settings: Settings, embedder=None):
        super().__init__(settings, embedder)
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
        self.where = redact(settings.openai_base_url)
        self.secret = settings.openai_api_key.get_secret_value()

    def connect(self):
        settings = self.settings
        return openai_like(settings, settings.openai_base_url, settings.openai_model, self.secret)


class OllamaBackend(ChatServerBackend):
    name = "ollama"

    def __init__(self, settings: Settings, embedder=None):
        from llama_index.llms.ollama import Ollama

        super().__init__(settings, embedder)
        self.where = redact(settings.ollama_host)
        self.llm = Ollama(
            model=settings.ollama_model,
            base_url=settings.ollama_host,
            request_timeout=settings.llm_timeout_s,
            temperature=0.0,
        )

    def check(self) -> None:
        """Ollama answers /api/tags when it runs; the configured model must be among them."""
        import httpx

        try:
            host = self.settings.ollama_host.rstrip("/")
            response = httpx.get(f"{host}/api/tags", timeout=2.0)
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

    def connect(self):
        return self.llm, None

    def finished(self, raw) -> bool:
        return isinstance(raw, dict) and bool(raw.get("done"))
