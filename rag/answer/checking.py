"""Checking a draft before it is shown: every citation valid and renumbered, every sentence
supported by the abstract it cites, then what a small model's drafts need (the paper it
overlooked, the papers a clear leader outranks, the model judging "which paper" answers, the
figure a question asks for). Declining is an answer too: `abstention` is every way one is shown."""

import logging
import time
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from rag.answer import citations as cite
from rag.answer.listing import (
    closest_sentences,
    conditions_of,
    expand_names,
    ignored_word,
    led_papers,
    meets,
    overlooked_leader,
    paper_line,
)
from rag.answer.prompts import is_cannot_answer, judge_messages, says_no
from rag.answer.support import SupportChecker, attach_evidence
from rag.config import Settings
from rag.figures import answers_figure, asked_figure
from rag.llm import LLMBackend, Prompt
from rag.models import Answer, AnswerSentence, Source
from rag.sentences import asks_for_papers, metadata_sentence
from rag.text import CANNOT_ANSWER

log = logging.getLogger(__name__)
SUGGESTIONS = 3


class Draft(BaseModel):
    """What is known of an answer before its text is checked."""

    question: str
    standalone_question: str | None = None
    backend: str
    layout: Literal["prose", "list"] = "prose"
    summary: bool = False
    scoped: bool = False  # a follow-up answered from the papers the previous answer named
    notices: list[str] = Field(default_factory=list)
    fallback_from: str | None = None
    ttft_s: float | None = None
    started: float = Field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def answer(self, **fields) -> Answer:
        return Answer(
            **self.model_dump(exclude={"started", "summary", "scoped"}),
            latency_s=self.elapsed(),
            **fields,
        )


WITHHELD = (
    "The draft answer was withheld: none of its sentences is supported by the abstract it cites."
)
NOT_THE_ANSWER = "Checked by the model: the abstract of {} does not answer the question."
NO_FIGURE = "The question asks for a figure, and no cited abstract sentence states it."
MISSING_CONDITION = "The question asks about '{}', and the abstract of {} does not."
IGNORED_WORD = "The question asks about '{}', and the abstract of {} never uses the word."
NAMED_IGNORES_WORD = (  # the paper the question asks about: answered from what it does say
    "The question asks about '{}', and the abstract of {} never uses the word; the answer says "
    "what it does say."
)


def titles(numbers: set[int], sources: list[Source]) -> str:
    """The numbered sources' titles, quoted: "'A', 'B'"."""
    return ", ".join(f"'{sources[n - 1].paper.title}'" for n in sorted(numbers))


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


class Checker:
    """Checks drafts against the retrieved papers; `backend` (when it is a model) judges."""

    def __init__(self, settings: Settings, embedder, metadata, backend: Callable[[], LLMBackend]):
        self.settings, self.embedder, self.metadata = settings, embedder, metadata
        self.backend = backend
        self.support = SupportChecker(embedder, settings.support_threshold)

    def check(self, raw: str, sources: list[Source], draft: Draft) -> Answer:
        """Raw model text as a checked Answer: valid, renumbered, support-scored citations."""
        titles = [source.paper.title for source in sources]
        sentences, dropped = cite.parse_answer(raw, len(sources), titles)
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
        rejected, why = self._rejected(sentences, sources, question, draft, bool(leader))
        if rejected:
            sentences = [s for s in sentences if not rejected & set(s.citations)]
            if not any(s.supported for s in sentences):
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
                named = set(self.metadata.mentioned(sentence.text))
                hits = [n for n, s in enumerate(sources, 1) if s.paper.paper_id in named]
                sentence.citations += hits if len(hits) == 1 else []

    def _rejected(
        self,
        sentences: list[AnswerSentence],
        sources: list[Source],
        question: str,
        draft: Draft,
        overlooked: bool = False,
    ) -> tuple[set[int], str]:
        """The numbers of the papers an answer (or a list of one) cites that do not answer the
        question, and why; papers the question names (relevance 1) are kept ("What datasets does
        FIRE evaluate on?" is answered from FIRE whatever words its abstract uses), with a notice
        when they ignore its key word.
        Any backend: a paper that ignores the question's key word (`ignored_word`:
        "over-smoothing" asked of a paper on attacks on graph networks). Then, for an answer to
        "which paper ...?", where a small model restates the question as a near paper's
        contribution ("EvA proposes a certified defense ...") and so passes any check against the
        abstract's wording, and for the paper an `overlooked` draft answers with instead
        (`overlooked_leader`): the model, shown the paper's passage and the question alone,
        judges. With no model to ask (the extractive answer, its fallback, a list when the
        backend is extractive), a paper is rejected when it misses the question's last condition
        (`conditions_of`: "... on 3D point clouds"), which usually sets the question's own
        subject apart from its near neighbours'."""
        if draft.layout == "list" and len(sources) > 1:  # a list of one is an answer like these
            return set(), ""
        cited = {n for s in sentences if s.supported for n in s.citations}
        unnamed = sorted(n for n in cited if sources[n - 1].relevance < 1.0)
        named = " ".join(metadata_sentence(s.paper) for s in sources if s.relevance >= 1.0)
        why: dict[int, str] = {}  # paper number -> why it is rejected
        keyed = [] if draft.summary or draft.scoped else sorted(cited)  # "Summarize:", "those"
        for number in keyed:  # "Which paper besides FIRE ...?": a named paper's words are no key
            if word := ignored_word(question, sources[number - 1], self.embedder, named):
                title = titles({number}, sources)
                if number in unnamed:
                    why[number] = IGNORED_WORD.format(word, title)
                else:
                    draft.notices.append(NAMED_IGNORES_WORD.format(word, title))
        judged = [n for n in unnamed if n not in why]
        if judged and (overlooked or asks_for_papers(question)):
            why |= self._judged(judged, sources, question, draft)
        return set(why), " ".join(dict.fromkeys(why.values()))

    def _judged(
        self, judged: list[int], sources: list[Source], question: str, draft: Draft
    ) -> dict[int, str]:
        """The judged papers that do not answer the question, each with why: the model says so,
        or, with no model to ask, the paper misses the question's last condition."""
        if draft.backend == "extractive" or (
            draft.backend == "list" and self.settings.llm_backend == "extractive"
        ):
            last = conditions_of(question)[-1:]
            verdicts = meets([sources[n - 1] for n in judged], last, self.embedder)
            return {
                n: MISSING_CONDITION.format(last[0], titles({n}, sources))
                for n, ok in zip(judged, verdicts)
                if not ok
            }
        try:
            backend = self.backend().side_tasks()  # the answer prompt stays cached
            return {
                n: NOT_THE_ANSWER.format(titles({n}, sources))
                for n in judged
                if says_no(
                    backend.complete(
                        Prompt(messages=judge_messages(question, sources[n - 1]), max_tokens=2)
                    )
                )
            }
        except Exception as error:  # noqa: BLE001 - the answer is shown, saying so
            draft.notices.append(f"The relevance check failed ({error}); shown unchecked.")
            return {}

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
