"""Answer backends behind one interface (`LLMBackend.stream`), chosen by name in settings."""

from rag.config import Settings
from rag.errors import ConfigError
from rag.llm.base import BackendError, LLMBackend, Prompt


def registry() -> dict[str, type[LLMBackend]]:
    """Backend names (as used in settings) to classes; imported lazily (llama.cpp is heavy)."""
    from rag.llm.extractive import ExtractiveBackend
    from rag.llm.fake import FakeBackend
    from rag.llm.local import LocalBackend
    from rag.llm.remote import OllamaBackend, OpenAIBackend

    return {
        cls.name: cls
        for cls in (LocalBackend, OpenAIBackend, OllamaBackend, ExtractiveBackend, FakeBackend)
    }


BACKEND_NAMES = ("local", "openai", "ollama", "extractive", "fake")


def load_backend(name: str, settings: Settings, embedder=None) -> LLMBackend:
    """The named backend; an unknown name is an error listing the valid ones."""
    backends = registry()
    if name not in backends:
        raise ConfigError(f"Unknown backend '{name}'; choose one of {', '.join(backends)}.")
    return backends[name](settings, embedder)


def availability(settings: Settings, names: tuple[str, ...] = BACKEND_NAMES[:4]) -> dict:
    """Each backend name with None when it can answer now, or the reason it cannot."""
    from rag.errors import RagError

    status = {}
    for name in names:
        try:
            load_backend(name, settings).check()
            status[name] = None
        except RagError as error:
            status[name] = str(error)
    return status


__all__ = [
    "BACKEND_NAMES",
    "BackendError",
    "LLMBackend",
    "Prompt",
    "availability",
    "load_backend",
    "registry",
]
