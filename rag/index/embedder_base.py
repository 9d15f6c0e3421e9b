"""What every embedder is (the `Embedder` base class) and what the real ones share; the
implementations live in embedder.py and onnx_embedder.py, which both build on this module."""

import json
from abc import ABC, abstractmethod
from pathlib import Path


class Embedder(ABC):
    """Turns texts into unit vectors; `tokenize` counts what fills the model's window."""

    name: str
    window: int  # word pieces the model reads, special tokens included
    special_tokens: int = 2
    # Whether the model runs on this machine's cores. Ingest then embeds one group at a time:
    # overlapping it with the Chroma writes only takes cores from the model's own threads
    # (2 busy cores, 4 paired runs of benchmarks.ingest: 5-12% slower each time). A server's
    # embeddings are overlapped.
    computes_here: bool = True

    @abstractmethod
    def embed(self, texts: list[str]) -> list[list[float]]:
        """One normalized vector per text."""

    @abstractmethod
    def tokenize(self, text: str) -> list[str]:
        """The text's word pieces, without special tokens."""


def max_seq_length(model_path: Path) -> int | None:
    """The window from the model's config file, without loading the model."""
    config = model_path / "sentence_bert_config.json"
    return json.loads(config.read_text())["max_seq_length"] if config.is_file() else None
