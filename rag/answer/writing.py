"""Writing a prose answer: the backend's draft streamed and checked (`rag.answer.checking`); the
abstracts' own sentences instead, saying so, when the backend fails or its draft has no
supported sentence."""

import logging
from collections.abc import Callable, Iterator

from rag.answer.checking import Checker
from rag.answer.draft import Draft
from rag.answer.extract import best_sentences
from rag.answer.intent import Intent
from rag.answer.verdict import Reason, notice
from rag.config import Settings
from rag.errors import RagError
from rag.llm import LLMBackend, Prompt
from rag.models import Answer, Source

log = logging.getLogger(__name__)


class Writer:
    """Writes prose answers with the configured backend (`backend`, built on first use; whether
    it is a model, `has_model`, known without building it)."""

    def __init__(
        self,
        settings: Settings,
        embedder,
        checker: Checker,
        backend: Callable[[], LLMBackend],
        has_model: Callable[[], bool],
    ):
        self.settings, self.tuning, self.embedder = settings, settings.answer, embedder
        self.checker, self.backend, self.has_model = checker, backend, has_model

    def read_first(
        self, intent: Intent, sources: list[Source]
    ) -> tuple[list[Source], list[Source]]:
        """The sources with those the model reads first, and those it reads: a model reads only
        the papers the extractive answer would cite (all when it would cite none). Prompt length
        is latency (~40 prompt tokens a second on 2 AVX2 cores), and on the fresh l+o sets the
        model's answers cited exactly the extractive answer's papers in 46 of 47."""
        if not self.has_model():
            return sources, sources
        picks = best_sentences(intent.text, sources, intent, self.embedder, self.tuning)
        cited = {number - 1 for number, _ in picks}
        read = [source for n, source in enumerate(sources) if n in cited] or sources
        return read + [source for source in sources if source not in read], read

    def answer(self, prompt: Prompt, draft: Draft, facets: Intent) -> Iterator[str | Answer]:
        """Stream the backend's draft (the extractive answer when it fails, saying so), then
        check it. `facets` is what the extracted sentences are chosen for."""
        pieces, draft = [], draft.model_copy(deep=True)
        try:
            backend = self.backend()
            if not backend.is_llm:
                prompt = self._extracted(prompt, facets)
            for piece in backend.stream(prompt):
                draft.ttft_s = draft.ttft_s if draft.ttft_s is not None else draft.elapsed()
                pieces.append(piece)
                yield piece
        except Exception as error:  # noqa: BLE001 - any backend failure falls back, visibly
            pieces = [self._fallback(error, prompt, draft, facets)]
            yield f"\n\n[{draft.notices[-1]}]\n\n"
            yield pieces[0]
        answer = self.checker.check("".join(pieces), prompt.sources, draft)
        if answer.reason == Reason.NO_SUPPORT and draft.writer_is_model:
            answer = self._extracted_instead(prompt, draft, facets) or answer
        yield answer

    def _extracted_instead(self, prompt: Prompt, draft: Draft, facets: Intent) -> Answer | None:
        """The abstracts' own sentences, checked, when the model's draft had no supported
        sentence (a small model's paraphrase the checks cannot tie to its abstract), saying so:
        only of the papers the question names or refers back to (whose answer the question is
        sure to be about); None when they do not answer either, or would cite another."""
        scope = draft.intent.scope or set()
        asked = {s.paper.paper_id for s in prompt.sources if s.named or s.paper.paper_id in scope}
        if not asked:
            return None
        draft = draft.model_copy(deep=True)
        raw = self._extractive(prompt, draft, facets, Reason.EXTRACTED, notice(Reason.EXTRACTED))
        answer = self.checker.check(raw, prompt.sources, draft)
        cited = {citation.paper_id for citation in answer.citations}
        return None if answer.abstained or not cited <= asked else answer

    def _fallback(self, error: Exception, prompt: Prompt, draft: Draft, facets: Intent) -> str:
        """The extractive answer instead of a failed backend's, with a notice saying so."""
        reason = str(error) if isinstance(error, RagError) else f"{type(error).__name__}: {error}"
        failed = (
            f"The {draft.backend} backend failed: {reason.rstrip('.')}. "
            "Showing the extractive answer (no LLM) instead."
        )
        log.warning(failed)
        return self._extractive(
            prompt, draft, facets, Reason.BACKEND_FAILED, notice(Reason.BACKEND_FAILED, failed)
        )

    def _extractive(
        self, prompt: Prompt, draft: Draft, facets: Intent, reason: Reason, said: str
    ) -> str:
        """The extractive answer's text, the `draft` marked as falling back to it (why, and
        the notice that says so)."""
        from rag.llm.extractive import ExtractiveBackend

        draft.reasons.append(reason)
        draft.notices.append(said)
        draft.fallback_from, draft.backend = draft.backend, "extractive"
        draft.writer_is_model = draft.can_judge = False
        return ExtractiveBackend(self.settings).complete(self._extracted(prompt, facets))

    def _extracted(self, prompt: Prompt, facets: Intent) -> Prompt:
        picks = best_sentences(prompt.question, prompt.sources, facets, self.embedder, self.tuning)
        return prompt.model_copy(update={"extracted": picks})
