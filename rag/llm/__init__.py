"""Answer backends behind one interface (`LLMBackend.stream`), chosen by name in settings.
Importing them is cheap (models load in their constructors or processes), so `rag --help`
can list their names."""

from rag.config import Settings
from rag.errors import ConfigError, RagError
from rag.llm.base import BackendError, LLMBackend, Prompt
from rag.llm.extractive import ExtractiveBackend
from rag.llm.fake import FakeBackend
from rag.llm.local import LocalBackend
from rag.llm.remote import OllamaBackend, OpenAIBackend

BACKENDS: dict[str, type[LLMBackend]] = {
    cls.name: cls
    for cls in (LocalBackend, OpenAIBackend, OllamaBackend, ExtractiveBackend, FakeBackend)
}
BACKEND_NAMES = tuple(BACKENDS)
BACKEND_CHOICES = f"{', '.join(BACKEND_NAMES[:-1])} or {BACKEND_NAMES[-1]}"  # for help texts


def load_backend(name: str, settings: Settings, embedder=None) -> LLMBackend:
    """The named backend; an unknown name is an error listing the valid ones."""
    if name not in BACKENDS:
        raise ConfigError(f"Unknown backend '{name}'; choose one of {', '.join(BACKENDS)}.")
    return BACKENDS[name](settings, embedder)


def availability(settings: Settings, names: tuple[str, ...] | None = None) -> dict:
    """Each backend name (by default those offered to users) with None when it can answer
    now, or the reason it cannot."""
    if names is None:
        names = tuple(name for name, cls in BACKENDS.items() if cls.offered)
    status = {}
    for name in names:
        try:
            load_backend(name, settings).check()
            status[name] = None
        except RagError as error:
            status[name] = str(error)
    return status


__all__ = [
    "BACKENDS",
    "BACKEND_CHOICES",
    "BACKEND_NAMES",
    "BackendError",
    "LLMBackend",
    "Prompt",
    "availability",
    "load_backend",
]
