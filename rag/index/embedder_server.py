"""Embeddings from an OpenAI-compatible server (POST <base_url>/embeddings): Infinity, Text
Embeddings Inference, vLLM, llama.cpp, Ollama or OpenAI itself. Texts go in batches, several
requests at once; chunking still counts the model's word pieces with its tokenizer, read from a
local folder, so the chunks are the ones a local run of the same model makes."""

import time
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path

from rag.errors import EmbeddingError
from rag.index.embedder_base import Embedder, max_seq_length

# A busy server (429, 503) or a dropped connection is asked again after a pause; a refused
# connection or a timeout is not (nothing listens, or the server is hung: waiting again only
# doubles the wait).
RETRIES = 3
RETRY_STATUS = {408, 429, 500, 502, 503, 504}
FALLBACK = "or set RAG_EMBEDDING_BACKEND=torch to embed on this machine"


class ServerEmbedder(Embedder):
    """A model served over HTTP; `tokenizer_path` is a local folder holding its tokenizer."""

    computes_here = False

    def __init__(
        self,
        base_url: str,
        model: str,
        tokenizer_path: Path,
        name: str,
        api_key: str | None = None,
        batch_size: int = 64,
        concurrency: int = 4,
        timeout_s: float = 60.0,
    ):
        self.base_url, self.model, self.name = base_url.rstrip("/"), model, name
        self.tokenizer_path, self.api_key = tokenizer_path, api_key
        self.batch_size, self.concurrency, self.timeout_s = batch_size, concurrency, timeout_s
        self.window = max_seq_length(tokenizer_path) or self.tokenizer.model_max_length

    @cached_property
    def tokenizer(self):
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(self.tokenizer_path), local_files_only=True)

    @cached_property
    def client(self):
        """One connection pool shared by the request threads (httpx clients are thread-safe)."""
        import httpx

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return httpx.Client(
            headers=headers,
            timeout=self.timeout_s,
            limits=httpx.Limits(max_connections=self.concurrency),
        )

    def embed(self, texts: list[str]) -> list[list[float]]:
        batches = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        if len(batches) <= 1 or self.concurrency == 1:
            return [vector for batch in batches for vector in self._request(batch)]
        with ThreadPoolExecutor(min(self.concurrency, len(batches))) as pool:
            return [vector for vectors in pool.map(self._request, batches) for vector in vectors]

    def tokenize(self, text: str) -> list[str]:
        return self.tokenizer.tokenize(text)

    def _request(self, texts: list[str]) -> list[list[float]]:
        import httpx

        body = {"model": self.model, "input": texts, "encoding_format": "float"}
        for attempt in range(RETRIES + 1):
            last = attempt == RETRIES
            try:
                response = self.client.post(f"{self.base_url}/embeddings", json=body)
            except (httpx.ConnectError, httpx.TimeoutException) as error:
                raise self._unreachable(error) from None
            except httpx.TransportError as error:
                if last:
                    raise self._unreachable(error) from None
            else:
                if response.status_code not in RETRY_STATUS or last:
                    return self._vectors(response, len(texts))
            time.sleep(0.5 * 2**attempt)
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def _vectors(self, response, count: int) -> list[list[float]]:
        """The response's vectors in input order, unit length, or an error saying what is wrong."""
        import numpy as np

        if response.status_code != 200:
            raise self._refused(response)
        try:
            rows = sorted(response.json()["data"], key=lambda row: row["index"])
            vectors = np.asarray([row["embedding"] for row in rows], dtype=np.float64)
        except (ValueError, KeyError, TypeError):
            vectors = None
        if vectors is None or vectors.ndim != 2 or len(vectors) != count:
            raise EmbeddingError(
                f"The embeddings server at {self.base_url} did not answer {count} vectors "
                f"(it said: {self._quote(response)}). Check that RAG_EMBEDDING_SERVER__BASE_URL "
                f"is an OpenAI-compatible embeddings server, {FALLBACK}."
            )
        norms = np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return (vectors / norms).tolist()

    def _quote(self, response) -> str:
        """The start of the server's answer, without the key (some proxies echo headers)."""
        text = response.text.replace(self.api_key, "***") if self.api_key else response.text
        return repr(text[:200])

    def _unreachable(self, error: Exception) -> EmbeddingError:
        import httpx

        if isinstance(error, httpx.TimeoutException):
            return EmbeddingError(
                f"The embeddings server at {self.base_url} gave no answer within "
                f"{self.timeout_s:g} s (RAG_EMBEDDING_SERVER__TIMEOUT_S): it is overloaded or "
                "hung. Lower RAG_EMBEDDING_SERVER__BATCH_SIZE or "
                f"__CONCURRENCY, raise the timeout, {FALLBACK}."
            )
        return EmbeddingError(
            f"Cannot reach the embeddings server at {self.base_url} ({type(error).__name__}: "
            f"{error}). Start it, check RAG_EMBEDDING_SERVER__BASE_URL, {FALLBACK}."
        )

    def _refused(self, response) -> EmbeddingError:
        said = f"HTTP {response.status_code}: {self._quote(response)}"
        if response.status_code in (401, 403):
            hint = "set RAG_EMBEDDING_SERVER__API_KEY to a key it accepts"
        elif response.status_code in (404, 405):
            hint = (
                "check RAG_EMBEDDING_SERVER__BASE_URL (many servers answer under /v1) and "
                f"RAG_EMBEDDING_SERVER__MODEL ({self.model!r})"
            )
        else:
            hint = "check the server's log"
        return EmbeddingError(
            f"The embeddings server at {self.base_url} refused the request ({said}); "
            f"{hint}, {FALLBACK}."
        )
