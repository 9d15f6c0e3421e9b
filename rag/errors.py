"""One error hierarchy; every message tells the user what to do next."""


class RagError(Exception):
    """An error the user can act on; the CLI and UI show its message without a traceback."""


class ConfigError(RagError):
    """Settings are invalid or point at something that does not exist."""


class CorpusError(RagError):
    """A corpus file cannot be read at all (individual bad records are reported, not raised)."""


class StoreError(RagError):
    """The vector store cannot be reached or does not match the configured embedder."""


class StorageError(StoreError):
    """The file system refuses (read-only, no permission, disk full, locked): not damage."""


class EmbeddingError(RagError):
    """The embeddings server cannot be reached or answers something other than vectors."""
