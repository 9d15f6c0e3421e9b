"""Ask and summarize: retrieve, gate on relevance, generate (with a visible fallback), then
check every citation and its support before the answer is shown."""

import logging
import threading
import time
from collections.abc import Iterator
from typing import Literal

from pydantic import BaseModel, Field

from rag.answer import citations as cite
from rag.answer.context import focus, select
from rag.answer.conversation import CONTINUES, scope_of_follow_up, standalone_question
from rag.answer.language import ENGLISH_ONLY, not_english
from rag.answer.listing import (
    closest_sentences,
    conditions_of,
    expand_names,
    is_list_question,
    led_papers,
    list_answer,
    overlooked_leader,
    paper_line,
    relevant_papers,
)
from rag.answer.prompts import (
    answer_messages,
    is_cannot_answer,
    judge_messages,
    says_no,
    summary_messages,
)
from rag.answer.support import SupportChecker, attach_evidence, unknown_names
from rag.config import Settings
from rag.errors import RagError
from rag.figures import answers_figure, asked_figure
from rag.llm import LLMBackend, Prompt, load_backend
from rag.models import Answer, AnswerSentence, Message, Source
from rag.retrieve import Filters, Retriever
from rag.sentences import asks_for_papers
from rag.text import CANNOT_ANSWER

log = logging.getLogger(__name__)
MAX_QUESTION_CHARS = 2_000
SUGGESTIONS = 3
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


class Draft(BaseModel):
    """What is known of an answer before its text is checked."""

    question: str
    standalone_question: str | None = None
    backend: str
    layout: Literal["prose", "list"] = "prose"
    summary: bool = False
    notices: list[str] = Field(default_factory=list)
    fallback_from: str | None = None
    ttft_s: float | None = None
    started: float = Field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def answer(self, **fields) -> Answer:
        return Answer(
            **self.model_dump(exclude={"started", "summary"}), latency_s=self.elapsed(), **fields
        )


WITHHELD = (
    "The draft answer was withheld: none of its sentences is supported by the abstract it cites."
)
NOT_THE_ANSWER = "Checked by the model: the abstract of {} does not answer the question."
NO_FIGURE = "The question asks for a figure, and no cited abstract sentence states it."
UNKNOWN_NAMES = (
    "No retrieved paper mentions {}: the answer says only what the closest papers say, not that "
    "they are about it."
)


def abstention(
    draft: Draft, sources: list[Source], text: str = "", why: str = "", dropped: int = 0
) -> Answer:
    """Every way an answer declines: the question is not in English, the filters match no
    paper, nothing retrieved is relevant, the model declines, or no sentence of its draft is
    supported (`why` says so among the notices). The closest papers come as suggestions."""
    suggestions = sources[:SUGGESTIONS]
    if not text:
        text = CANNOT_ANSWER + (
            " The closest papers in the corpus are listed as suggestions." if suggestions else ""
        )
    draft = draft.model_copy(update={"notices": [*draft.notices, *filter(None, [why])]})
    return draft.answer(
        text=text, abstained=True, suggestions=suggestions, dropped_citations=dropped
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
        self.support = SupportChecker(self.embedder, settings.support_threshold)

    def backend(self) -> LLMBackend:
        """The configured backend, built on first use (so a broken one can fall back)."""
        if self._backend is None:
            self._backend = load_backend(self.settings.llm_backend, self.settings, self.embedder)
        return self._backend

    def warm(self) -> None:
        """Load the backend's model now, with the answer prompt's fixed start (a running chat
        server calls this at launch, so the first question does not wait for it)."""
        self.backend().warm(Prompt(messages=answer_messages("", []), max_tokens=1))

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
        history = history or []
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
        """Turn raw model text into a checked Answer: valid, renumbered, support-scored citations."""
        sentences, dropped = cite.parse_answer(raw, len(sources))
        cite.cite_named_titles(sentences, sources)
        self._cite_named_methods(sentences, sources)
        question = draft.standalone_question or draft.question
        if is_cannot_answer(raw) and not any(s.citations for s in sentences):
            # The extractive answer to a figure question declines when no sentence states one.
            figure = draft.backend == "extractive" and asked_figure(question) is not None
            return abstention(draft, sources, dropped=dropped, why=NO_FIGURE if figure else "")
        sentences = expand_names(sentences, sources, question, self.embedder)
        sentences, evidence = self.support.check(sentences, sources, question)
        prose = draft.layout == "prose" and not draft.summary  # an answer to a question
        leader = overlooked_leader(sentences, sources, question) if prose else None
        if leader:
            ((_, sentence),) = closest_sentences([sources[leader - 1]], question, self.embedder)
            sentences = [paper_line(sources[leader - 1], sentence, leader)]
            evidence = {sources[leader - 1].paper.paper_id: sentence}
        elif not any(s.supported for s in sentences):
            return abstention(draft, sources, dropped=dropped, why=WITHHELD)
        elif prose and (led := led_papers(sentences, sources)):
            sentences = [s for s in sentences if not led & set(s.citations)]
        if rejected := self._rejected(sentences, sources, question, draft, bool(leader)):
            sentences = [s for s in sentences if not rejected & set(s.citations)]
            if not any(s.supported for s in sentences):
                titles = ", ".join(f"'{sources[n - 1].paper.title}'" for n in sorted(rejected))
                why = NOT_THE_ANSWER.format(titles)
                return abstention(draft, sources, dropped=dropped, why=why)
        counted = asked_figure(question)
        if counted is not None and not any(
            s.supported and answers_figure(s.text, counted) for s in sentences
        ):
            sentences = self._stated_figure(sentences, sources, question, evidence)
            if not sentences:
                return abstention(draft, sources, dropped=dropped, why=NO_FIGURE)
        citations = cite.renumber(sentences, sources)
        attach_evidence(citations, evidence)
        return draft.answer(
            text=cite.render(sentences, "\n" if draft.layout == "list" else " "),
            citations=citations,
            sentences=sentences,
            sources=sources,
            dropped_citations=dropped,
        )

    def _cite_named_methods(self, sentences: list[AnswerSentence], sources: list[Source]) -> None:
        """A sentence citing nothing (or only numbers that were no source) that names one
        source by a method name ("Warm-Stagger is ...", "FIRE uses ... [3]") or an author gets
        that source's citation, to be checked like any other."""
        for sentence in sentences:
            if not sentence.citations:
                named = set(self.retriever.metadata.mentioned(sentence.text))
                hits = [n for n, s in enumerate(sources, 1) if s.paper.paper_id in named]
                sentence.citations += hits if len(hits) == 1 else []

    def _rejected(
        self,
        sentences: list[AnswerSentence],
        sources: list[Source],
        question: str,
        draft: Draft,
        overlooked: bool = False,
    ) -> set[int]:
        """The numbers of the papers a model's answer to "which paper ...?" gives (or a list
        answer, when it lists one) that the model, shown the paper's passage and the question
        alone, says do not answer it. A small model restates the question as a near paper's
        contribution ("EvA proposes a certified defense ..."), and a restated question passes
        any check against the abstract's wording; a list of one is often the one paper that
        shares the question's words. So is the paper an `overlooked` draft answers with instead
        (`overlooked_leader`). Papers the question names (relevance 1) are not judged."""
        if draft.fallback_from or not (overlooked or asks_for_papers(question)):
            return set()
        if draft.layout == "list" and len(sources) > 1:  # a list of one is an answer like these
            return set()
        cited = {n for s in sentences if s.supported for n in s.citations}
        judged = sorted(n for n in cited if sources[n - 1].relevance < 1.0)
        rejected = set()
        try:
            backend = self.backend()
            if not (backend.is_llm and judged):
                return set()
            for number in judged:
                judging = judge_messages(question, sources[number - 1])
                if says_no(backend.complete(Prompt(messages=judging, max_tokens=2))):
                    rejected.add(number)
        except Exception as error:  # noqa: BLE001 - the answer is shown, saying so
            draft.notices.append(f"The relevance check failed ({error}); shown unchecked.")
            return set()
        # The judge's prompt replaced the answer prompt's start in the model's cache: put it back
        # while the user reads, so the next question does not wait ~2 s for it.
        threading.Thread(target=self._warm_quietly, daemon=True).start()
        return rejected

    def _warm_quietly(self) -> None:
        try:
            self.warm()
        except Exception as error:  # noqa: BLE001 - only a head start; the next answer says why
            log.info("Re-warming the answer prompt failed: %s", error)

    def _stated_figure(
        self,
        sentences: list[AnswerSentence],
        sources: list[Source],
        question: str,
        evidence: dict[str, str],
    ) -> list[AnswerSentence]:
        """For a question asking for a figure that the answer does not state ("The largest
        improvement is [1]."): the line of the sentence of the first supported paper that
        states it, chosen as the extractive answer chooses; none when its abstract has none."""
        from rag.llm.extractive import ExtractiveBackend

        extractive = ExtractiveBackend(self.settings, self.embedder)
        for number in dict.fromkeys(n for s in sentences if s.supported for n in s.citations):
            source = sources[number - 1]
            prompt = Prompt(messages=[], sources=[source], question=question)
            for _, sentence in extractive.best_sentences(prompt)[:1]:
                evidence[source.paper.paper_id] = sentence
                return [paper_line(source, sentence, number)]
        return []

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
        return backend if backend.is_llm else None
