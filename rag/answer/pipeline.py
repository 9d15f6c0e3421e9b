"""Ask and summarize: retrieve, gate on relevance, generate (with a visible fallback), then
check every citation and its support before the answer is shown (`rag.answer.checking`)."""

import logging
import time
from collections.abc import Iterator

from rag.answer.checking import Checker, Draft, abstention
from rag.answer.context import focus, select
from rag.answer.conversation import CONTINUES, scope_of_follow_up, standalone_question
from rag.answer.language import ENGLISH_ONLY, not_english
from rag.answer.listing import conditions_of, is_list_question, list_answer, relevant_papers
from rag.answer.prompts import answer_messages, judge_messages, summary_messages
from rag.answer.support import unknown_names
from rag.config import Settings
from rag.errors import RagError
from rag.history_limits import bounded_history
from rag.llm import LLMBackend, Prompt, load_backend
from rag.models import Answer, Message, Source
from rag.retrieve import Filters, Retriever

log = logging.getLogger(__name__)
MAX_QUESTION_CHARS = 2_000
MAX_K = 20  # papers retrieved per question: more only slows the answer down


def check_question(question: str) -> str:
    """The question, stripped; empty or absurdly long questions never reach a model."""
    question = " ".join((question or "").split())
    if not question:
        raise RagError("Please type a question.")
    if len(question) > MAX_QUESTION_CHARS:
        raise RagError(
            f"The question is {len(question):,} characters long; please keep it under "
            f"{MAX_QUESTION_CHARS:,}."
        )
    return question


UNKNOWN_NAMES = (  # shown with an answer or a decline: true of both
    "No retrieved paper mentions {}: what is shown comes from the closest papers, not from one "
    "about it."
)


def no_match(filters: Filters) -> str:
    """Filters that match no paper: say so (not "the corpus does not answer this")."""
    chosen = ", ".join(f"{name} '{value}'" for name, value in filters.model_dump().items() if value)
    return f"No indexed paper matches the filters ({chosen}); widen or clear them."


def shown(answer: Answer) -> Iterator[str | Answer]:
    """An answer decided without streaming: its text as the one piece, then the answer."""
    yield answer.text
    yield answer


class Answerer:
    """Answers questions about the indexed papers with checked citations."""

    def __init__(
        self,
        settings: Settings,
        retriever: Retriever | None = None,
        backend: LLMBackend | None = None,
        embedder=None,
    ):
        from rag.index.embedder import StoredSentences, embedder_from_settings

        self.settings = settings
        embedder = embedder or (
            retriever.embedder if retriever else embedder_from_settings(settings)
        )
        self.retriever = retriever or Retriever(settings, embedder=embedder)
        self.embedder = StoredSentences(embedder, self.retriever.store)
        self._backend = backend
        self.checker = Checker(settings, self.embedder, self.retriever.metadata, self.backend)

    def backend(self) -> LLMBackend:
        """The configured backend, built on first use (so a broken one can fall back)."""
        if self._backend is None:
            self._backend = load_backend(self.settings.llm_backend, self.settings, self.embedder)
        return self._backend

    def warm(self) -> None:
        """Load the backend's model now, with the answer prompt's fixed start, and the judge's
        in the process for side tasks (a running chat server calls this at launch, so the first
        question does not wait for them)."""
        backend = self.backend()
        backend.warm(Prompt(messages=answer_messages("", []), max_tokens=1))
        backend.side_tasks().warm(Prompt(messages=judge_messages("", None), max_tokens=1))

    def backend_name(self) -> str:
        return self._backend.name if self._backend else self.settings.llm_backend

    def ask(
        self,
        question: str,
        history: list[Message] | None = None,
        k: int | None = None,
        filters: Filters | None = None,
        mode: str | None = None,
    ) -> Iterator[str | Answer]:
        """Yield pieces of the draft answer as they are generated, then the checked Answer."""
        started = time.perf_counter()
        question = check_question(question)
        history = bounded_history(history)
        self.retriever.refresh()  # papers an ingest (by any process) added are answered from
        named = set(self.retriever.metadata.mentioned(question))
        scope = self._scope(question, history, named)
        if scope:  # "which of those ...": the papers named before, the question as asked
            filters = (filters or Filters()).model_copy(update={"paper_ids": scope})
            standalone = question
        elif named and not CONTINUES.search(question):
            standalone = question  # "How does FIRE keep its plasticity?" names its subject
        else:
            standalone = standalone_question(question, history, self._rewriter())
        draft = Draft(
            question=question,
            standalone_question=standalone if standalone != question else None,
            backend=self.backend_name(),
            scoped=bool(scope),
            started=started,
        )
        if k is not None and not 1 <= k <= MAX_K:
            draft.notices.append(f"k = {k} is outside 1..{MAX_K}; using {min(max(k, 1), MAX_K)}.")
            k = min(max(k, 1), MAX_K)
        k = max(k or self.settings.top_k, len(scope or ()))
        sources = self.retriever.search(
            standalone, k, mode or self.settings.retrieval_mode, filters
        )
        if unknown := unknown_names(standalone, sources):  # a false premise: "What did Zorblax ..."
            draft.notices.append(UNKNOWN_NAMES.format(" or ".join(f"'{n}'" for n in unknown)))
        if not_english(question):
            yield from shown(abstention(draft, sources, text=ENGLISH_ONLY))
        elif not sources and filters and filters.active() and not scope:
            yield from shown(abstention(draft, [], text=no_match(filters)))
        elif not sources or (not scope and self._irrelevant(standalone, sources)):
            yield from shown(abstention(draft, sources))
        elif is_list_question(standalone):
            yield from self._list(standalone, sources, draft)
        else:
            sources = select(sources)
            passages = focus(sources, standalone, self.embedder, self.settings.source_words)
            prompt = Prompt(
                messages=answer_messages(standalone, passages),
                sources=sources,
                question=standalone,
                max_tokens=self.settings.max_answer_tokens,
            )
            yield from self._answer(prompt, draft)

    def summarize(self, target: str, k: int | None = None) -> Iterator[str | Answer]:
        """A cited summary of one paper (when `target` is its title) or of a topic."""
        target = check_question(target)
        self.retriever.refresh()
        draft = Draft(question=f"Summarize: {target}", backend=self.backend_name(), summary=True)
        paper_id = self.retriever.catalog.find_title(target)
        if paper_id:
            sources = [self.retriever.source_for(paper_id)]
        else:
            sources = self.retriever.search(target, k or self.settings.top_k)
        if self._irrelevant(target, sources):
            yield from shown(abstention(draft, sources))
            return
        prompt = Prompt(
            messages=summary_messages(target, sources, bool(paper_id)),
            sources=sources,
            question=target,
            max_tokens=self.settings.max_answer_tokens,
        )
        yield from self._answer(prompt, draft)

    def _list(self, question: str, sources: list[Source], draft: Draft):
        """A "which papers" answer: one cited line per relevant paper, written without a model."""
        picks = relevant_papers(sources, question, self.embedder)
        if not picks:
            conditions = ", ".join(f"'{part}'" for part in conditions_of(question))
            why = f"No retrieved paper meets all of: {conditions}." if conditions else ""
            yield from shown(abstention(draft, sources, why=why))
            return
        raw = list_answer(picks)
        yield raw
        draft = draft.model_copy(
            update={"backend": "list", "layout": "list", "ttft_s": draft.elapsed()}
        )
        yield self.check(raw, [source for source, _ in picks], draft)

    def _answer(self, prompt: Prompt, draft: Draft) -> Iterator[str | Answer]:
        pieces, backend_name = [], draft.backend
        draft = draft.model_copy(deep=True)
        try:
            for piece in self.backend().stream(prompt):
                draft.ttft_s = draft.ttft_s if draft.ttft_s is not None else draft.elapsed()
                pieces.append(piece)
                yield piece
        except Exception as error:  # noqa: BLE001 - any backend failure falls back, visibly
            reason = (
                str(error) if isinstance(error, RagError) else f"{type(error).__name__}: {error}"
            )
            notice = (
                f"The {backend_name} backend failed: {reason.rstrip('.')}. "
                "Showing the extractive answer (no LLM) instead."
            )
            log.warning(notice)
            draft.notices.append(notice)
            yield f"\n\n[{notice}]\n\n"
            from rag.llm.extractive import ExtractiveBackend

            pieces = [ExtractiveBackend(self.settings, self.embedder).complete(prompt)]
            draft.backend, draft.fallback_from = "extractive", backend_name
            yield pieces[0]
        yield self.check("".join(pieces), prompt.sources, draft)

    def check(self, raw: str, sources: list[Source], draft: Draft) -> Answer:
        """Turn raw model text into a checked Answer (see `rag.answer.checking`)."""
        return self.checker.check(raw, sources, draft)

    def _scope(self, question: str, history: list[Message], named: set[str]) -> set[str] | None:
        """The papers a follow-up refers back to, unless the question names other papers."""
        scope = scope_of_follow_up(question, history, self.retriever.catalog.papers())
        if scope and not named - scope:
            return scope
        return None

    def _irrelevant(self, question: str, sources: list[Source]) -> bool:
        """The relevance gate: nothing retrieved is close enough to answer from."""
        score = self.retriever.answerability(question, sources)
        return not sources or score < self.settings.min_relevance

    def _rewriter(self) -> LLMBackend | None:
        """The LLM used to rewrite follow-ups, when the configured backend is one that works."""
        try:
            backend = self.backend()
        except RagError:
            return None
        return backend.side_tasks() if backend.is_llm else None
