"""The answerer pool: one `Answerer` per backend, made when first asked for and shared by every
session over one retriever; which backends are usable, the default one, and what the index
offers the page (example questions, areas, venues)."""

import logging
import threading

from rag.answer.pipeline import Answerer
from rag.config import Settings
from rag.errors import ConfigError
from rag.retrieve import Retriever

log = logging.getLogger(__name__)

EXAMPLES = [
    "Which papers study continual learning?",
    "How does FIRE balance stability and plasticity?",
    "Which papers use optimal transport?",
    "Which papers are in the Learning Theory subarea?",
]


class AnswererPool:
    """The answerers by backend name, over one shared retriever."""

    def __init__(
        self,
        settings: Settings,
        retriever: Retriever | None = None,
        backends: dict[str, str | None] | None = None,
        answerers: dict[str, Answerer] | None = None,
    ):
        """`backends` maps each offered backend to None or the reason it is unavailable
        (default: checked now); `answerers` may supply ready answerers by backend name."""
        from rag.llm import availability

        self.settings = settings
        self.retriever = retriever or Retriever(settings)
        self.backends = backends if backends is not None else availability(settings)
        self._answerers = dict(answerers or {})

    def answerer(self, backend: str | None) -> Answerer:
        """The answerer for `backend` (default: the configured one), from the current index."""
        self.reload_if_reindexed()
        backend = backend or self.settings.llm_backend
        if backend not in self.backends:
            raise ConfigError(
                f"Unknown backend '{backend}'; choose one of {', '.join(self.backends)}."
            )
        if self.backends[backend]:
            raise ConfigError(f"The {backend} backend is unavailable: {self.backends[backend]}")
        if backend not in self._answerers:
            configured = self.settings.model_copy(update={"llm_backend": backend})
            self._answerers[backend] = Answerer(configured, retriever=self.retriever)
        return self._answerers[backend]

    def reload_if_reindexed(self) -> bool:
        """After an ingest (by any process while this app runs), answer from the new index;
        the answerers share the retriever and keep their backends."""
        return self.retriever.refresh()

    def warm_up(self) -> None:
        """Load the default backend's model in the background (the first question then finds
        it ready); a failure is logged, and the question that needs the model reports it."""

        def warm():
            try:
                self.answerer(self.default_backend()).warm()
            except Exception as error:  # noqa: BLE001
                log.warning("Could not load the %s model: %s", self.default_backend(), error)

        threading.Thread(target=warm, daemon=True).start()

    def usable(self) -> list[str]:
        """The backends that can answer now, in the order offered."""
        return [name for name, reason in self.backends.items() if not reason]

    def default_backend(self) -> str:
        usable = self.usable()
        return self.settings.llm_backend if self.settings.llm_backend in usable else usable[0]

    def backend_notes(self) -> str:
        """Why each unavailable backend is unavailable, as a Markdown list."""
        lines = [
            f"- **{name}** unavailable: {reason}"
            for name, reason in self.backends.items()
            if reason
        ]
        return "\n".join(lines)

    def examples(self) -> list[str]:
        """The example questions this index can answer (they are written for the bundled
        papers; another library gets none rather than questions it must decline)."""
        k, floor = self.settings.top_k, self.settings.answer.min_relevance
        return [
            question
            for question in EXAMPLES
            if self.retriever.answerability(question, self.retriever.search(question, k)) >= floor
        ]

    def areas(self) -> list[str]:
        return self.retriever.catalog.areas()

    def venues(self) -> list[str]:
        return self.retriever.catalog.venues()
