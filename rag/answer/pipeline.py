"""Ask and summarize: read the question in its conversation (`rag.answer.reading`), retrieve,
gate on relevance, then decline, list the relevant papers, compose from the abstracts' sentences,
or write in prose (`rag.answer.writing`, with a visible fallback); every citation and its support
is checked before the answer is shown (`rag.answer.checking`)."""

import time
from collections.abc import Iterator

from rag.answer.about import about_paper, asked_paper, either, unstated_by_all
from rag.answer.checking import Checker
from rag.answer.checks import Tools
from rag.answer.checks.key_word import ignored_words
from rag.answer.context import focus, select
from rag.answer.conversation import Page
from rag.answer.decision import Relevance
from rag.answer.draft import Draft, abstention
from rag.answer.intent import Intent, classify, in_english
from rag.answer.language import ENGLISH_ONLY
from rag.answer.listing import (
    accepted_papers,
    decided,
    deep_enough,
    list_answer,
    relevant_papers,
)
from rag.answer.premises import (
    contradicted,
    denied,
    no_such_figure,
    reversed_premise,
    said_of_others,
    unstated_figure,
)
from rag.answer.prompts import answer_messages, judge_messages, summary_messages
from rag.answer.reading import Reader
from rag.answer.roles import composed, shaped_papers
from rag.answer.shapes import GROUP, PAPER_WORD, VERSUS, compared_group, compared_parts, shape_of
from rag.answer.support import unknown_names
from rag.answer.verdict import Reason, notice
from rag.answer.writing import Writer
from rag.config import Settings
from rag.errors import RagError
from rag.history_limits import bounded_history
from rag.llm import BACKENDS, LLMBackend, Prompt, load_backend
from rag.models import Answer, Message, Source
from rag.retrieve import Filters, Retriever
from rag.sentences import letter_words

MAX_QUESTION_CHARS = 2_000
ASK_FOR_MORE = "(ask for more to see the next)"  # a list's count, when more papers match


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

        self.settings, self.tuning = settings, settings.answer
        embedder = embedder or (
            retriever.embedder if retriever else embedder_from_settings(settings)
        )
        self.retriever = retriever or Retriever(settings, embedder=embedder)
        self.embedder = StoredSentences(embedder, self.retriever.store)
        self._backend = backend
        self.relevance = Relevance(self.retriever, self.embedder, tuning=self.tuning)
        tools = Tools(
            self.embedder,
            self.retriever.metadata,
            self.tuning,
            self.backend,
            lambda: self.relevance.lexicon,
        )
        self.checker = Checker(tools)
        self.writer = Writer(settings, self.embedder, self.checker, self.backend, self.has_model)
        self.reader = Reader(self.retriever, self.relevance, settings, self._rewriter)

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
        backend.warm(Prompt(messages=answer_messages("", [], 0), max_tokens=1))
        backend.side_tasks().warm(Prompt(messages=judge_messages("", None), max_tokens=1))

    def backend_name(self) -> str:
        return self._backend.name if self._backend else self.settings.llm_backend

    def has_model(self) -> bool:
        """Whether the configured backend is a model (it can judge and rewrite), known without
        building it."""
        kind = type(self._backend) if self._backend else BACKENDS.get(self.settings.llm_backend)
        return bool(kind and kind.is_llm)

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
        if not in_english(question, self.tuning):
            draft = self._draft(classify(question, tuning=self.tuning), started)
            yield from shown(abstention(draft, [], Reason.NOT_ENGLISH, text=ENGLISH_ONLY))
            return
        intent, page = self.reader.paged(question, history)
        intent = self._one_paper_versus(intent, mode)
        draft = self._draft(intent, started)
        k = self._k(k, intent, draft)
        if intent.scoped:  # "which of those ...": the papers named before, the question as asked
            filters = (filters or Filters()).model_copy(update={"paper_ids": intent.scope})
        sources = self.retriever.search(
            intent.query, k, mode or self.settings.retrieval_mode, filters
        )
        if unknown := unknown_names(
            intent.text, sources
        ):  # a false premise: "What did Zorblax ..."
            names = " or ".join(f"'{n}'" for n in unknown)
            draft.reasons.append(Reason.UNKNOWN_NAMES)
            draft.notices.append(notice(Reason.UNKNOWN_NAMES, names))
        yield from self._route(intent, sources, filters, draft, mode, page)

    def _one_paper_versus(self, intent: Intent, mode: str | None) -> Intent:
        """A "vs" that sets two things side by side within one paper is no comparison of papers
        ("what does the stagger paper prove vs behavior cloning", "the evaluation of folding
        versus pruning": both sides find the same paper first): the question takes the shape it
        has without it (a contribution, names, or prose). Not when it speaks of two papers ("adam
        vs sgd: what do the optimizer paper and the sharpness paper say")."""
        parts = compared_parts(intent.text)
        if (
            intent.shape != "comparison"
            or len(parts) != 2
            or not VERSUS.search(intent.text)
            or len(intent.named) > 1
            or len(PAPER_WORD.findall(intent.text)) > 1
        ):
            return intent
        mode = mode or self.settings.retrieval_mode
        firsts = set()
        for part in parts:
            found = self.retriever.search(self.relevance.spelled(part), 1, mode)
            firsts |= {source.paper.paper_id for source in found[:1]}
        if len(firsts) != 1:
            return intent
        return intent.model_copy(update={"shape": shape_of(VERSUS.sub("and", intent.text))})

    def _about(self, intent: Intent, sources: list[Source]) -> list[Source]:
        """The top sources, a follow-up's one paper ("why is it restricted to M=4?" after an
        answer on TSENOR) marked as the one the question names."""
        sources = sources[: self.settings.top_k]
        if not intent.scope or len(intent.scope) != 1 or any(s.named for s in sources):
            return sources
        return [s.model_copy(update={"named": s.paper.paper_id in intent.scope}) for s in sources]

    def _route(self, intent: Intent, sources, filters, draft, mode, page=None):
        """Decline, list, or answer in prose."""
        calibrated = self.tuning.decision == "calibrated" and not intent.scoped
        if not sources and filters and filters.active() and not intent.scoped:
            yield from shown(self._abstain(draft, [], Reason.FILTERS, text=no_match(filters)))
        elif (
            intent.shape == "comparison"
            and calibrated
            and sources
            and (answer := self._group_compared(intent, draft, filters, mode))
        ):
            yield from shown(answer)
        elif intent.is_list and calibrated and sources:
            mode = mode or self.settings.retrieval_mode
            yield from self._complete_list(intent, draft, filters, mode, page)
        elif not sources or (not intent.scoped and self._irrelevant(intent, sources)):
            yield from shown(self._abstain(draft, sources, Reason.NOT_RELEVANT))
        elif answer := self._off_topic(intent, sources, draft):  # "quantum error correction"
            yield from shown(answer)
        elif denial := contradicted(intent.text, about := self._about(intent, sources)) or (
            reversed_premise(intent.text, about, self.reader.spelled_stems)
        ):
            yield from shown(denied(*denial, draft))  # "why does X conclude that <not so>?"
        elif other := said_of_others(intent.text, about, self.reader.spelled_stems):
            yield from shown(denied(*other, draft, "it says that of other work"))
        elif figure := unstated_figure(intent.text, about):  # "X beats Y by 10%, how ..."
            yield from shown(no_such_figure(*figure, draft))
        elif intent.shape and (answer := self._composed(intent, sources, draft)):
            yield from shown(answer)
        elif intent.is_list:
            yield from self._list(intent, sources, draft)
        elif (paper := asked_paper(intent, sources, relevant=True)) and (
            answer := about_paper(
                intent,
                paper,
                draft,
                self.embedder,
                self.retriever.metadata.own_names(intent.text),
                self.relevance.lexicon,
                self.tuning.premise_common_share,
            )
        ):
            yield from shown(answer)
        elif answer := unstated_by_all(intent, sources, draft):
            yield from shown(answer)  # "what learning rate does it use" after a list
        else:
            sources, read = self.writer.read_first(intent, select(sources, self.tuning))
            passages = focus(read, intent.text, self.embedder, self.settings.source_words)
            prompt = Prompt(
                messages=answer_messages(intent.text, passages, self.tuning.source_words),
                sources=sources,
                question=intent.text,
                max_tokens=self.settings.max_answer_tokens,
            )
            yield from self.writer.answer(prompt, draft, intent)

    def summarize(self, target: str, k: int | None = None) -> Iterator[str | Answer]:
        """A cited summary of one paper (when `target` is its title) or of a topic."""
        target = check_question(target)
        self.retriever.refresh()
        draft = self._draft(classify(f"Summarize: {target}", summary=True, tuning=self.tuning))
        paper_id = self.retriever.catalog.find_title(target)
        if paper_id:
            sources = [self.retriever.source_for(paper_id)]
        else:
            sources = self.retriever.search(target, k or self.settings.top_k)
        if self._irrelevant(classify(target, tuning=self.tuning), sources):
            yield from shown(self._abstain(draft, sources, Reason.NOT_RELEVANT))
            return
        prompt = Prompt(
            messages=summary_messages(target, sources, bool(paper_id), self.tuning.source_words),
            sources=sources,
            question=target,
            max_tokens=self.settings.max_answer_tokens,
        )
        yield from self.writer.answer(prompt, draft, classify(target, tuning=self.tuning))

    def _draft(self, intent: Intent, started: float | None = None) -> Draft:
        model = self.has_model()
        draft = Draft(
            intent=intent, backend=self.backend_name(), writer_is_model=model, can_judge=model
        )
        return draft.model_copy(update={"started": started}) if started else draft

    def _k(self, k: int | None, intent: Intent, draft: Draft) -> int:
        """k as asked, within 1..max_k (saying so when it was not), and at least the number of
        papers a follow-up refers to."""
        cap = self.settings.retrieval.max_k
        if k is not None and not 1 <= k <= cap:
            draft.reasons.append(Reason.K_CLAMPED)
            clamped = f"k = {k} is outside 1..{cap}; using {min(max(k, 1), cap)}."
            draft.notices.append(notice(Reason.K_CLAMPED, clamped))
            k = min(max(k, 1), cap)
        return max(k or self.settings.top_k, len(intent.scope or ()))

    def _abstain(self, draft: Draft, sources, reason: Reason, **fields) -> Answer:
        return abstention(draft, sources, reason, suggestions=self.tuning.suggestions, **fields)

    def _composed(self, intent: Intent, sources: list[Source], draft: Draft) -> Answer | None:
        """A summary, contribution or comparison from the papers' own sentences (rag.answer.roles),
        written without a model; None when the question's papers are not clear."""
        papers = shaped_papers(intent, sources, self.tuning.overlooked_relevance)
        if not papers and intent.shape == "comparison" and not intent.scoped:
            papers = self._described(intent)
        if not papers or (Reason.UNKNOWN_NAMES in draft.reasons and not papers[0].named):
            return None  # "What did Zorblax propose?": no paper of Zorblax's to describe
        if intent.shape == "comparison":
            papers = self._as_named(intent.text, papers)
        draft = draft.model_copy(update={"backend": "abstract sentences"})
        return composed(intent.shape, papers, draft)

    def _as_named(self, question: str, papers: list[Source]) -> list[Source]:
        """The papers in the order the question names them ("compare SPHeRe and FIRE": SPHeRe
        first); as they came when it does not name each ("it", "the first two")."""
        words, metadata = question.split(), self.retriever.metadata
        first: dict[str, int] = {}
        for end in range(1, len(words) + 1):
            for pid in metadata.mentioned(" ".join(words[:end])):
                first.setdefault(pid, end)
        if any(s.paper.paper_id not in first for s in papers):
            return papers
        return sorted(papers, key=lambda s: first[s.paper.paper_id])

    def _described(self, intent: Intent) -> list[Source]:
        """The two papers a comparison describes apart ("model folding vs transposable N:M
        masks"), each the best match of its own description when the corpus answers that
        description (`min_relevance`); none when one does not, or both descriptions fit the
        same paper best ("pure vs mixed states", "EvA vs the best previous attack"). The gate
        is the one every question passes; on dev the two descriptions of j020/j028 score
        0.67-0.92, "quantum error correction" (no such paper) 0.42."""
        papers: list[Source] = []
        for part in compared_parts(intent.text):
            found = self.relevance.matches(part, 3, self.settings.retrieval_mode)
            if not found:
                return []
            papers.append(found[0])
        ids = {source.paper.paper_id for source in papers}
        return papers if len(papers) == 2 and len(ids) == 2 else []

    def _group_compared(self, intent: Intent, draft: Draft, filters, mode) -> Answer | None:
        """A comparison of the papers the question describes as a group ("how do the two
        quantum papers differ"): the first of those the decision accepts, as many as it says
        (up to 3); None when it names its papers or the group is not two papers or more."""
        count = compared_group(intent.text)
        if not count or intent.named or intent.scoped:
            return None
        described = GROUP.search(intent.text)  # "the two neural collapse papers": its words only
        group = classify(intent.text[described.start("what") : described.end()], tuning=self.tuning)
        alone = group.topic and not compared_parts(intent.text)  # none described apart
        for asked in (intent, group) if alone else (intent,):  # then the group alone
            sources, accepted, rates = self._candidates(
                asked, filters, mode or self.settings.retrieval_mode
            )
            picks = accepted_papers(sources, accepted, rates, intent.text, self.embedder)
            if len(picks) >= 2:
                break
        else:
            return None
        draft = draft.model_copy(update={"backend": "abstract sentences"})
        return composed("comparison", [source for source, _ in picks[:count]], draft)

    def _complete_list(self, intent: Intent, draft: Draft, filters, mode, page: Page | None):
        """A "which papers" answer listing every paper the decision accepts among the
        candidates (`_candidates`), and those the rules accept among the top k (unless the
        decision gives them under `list_rules_floor`), saying how many there are;
        `list_shown` at a time, the next ones when the question asks for more. Declined when
        only the rules would list papers and the closest never uses the words carrying the
        question (`_off_topic`)."""
        sources, accepted, rates = self._candidates(intent, filters, mode)
        deepest = len(sources) >= self.tuning.list_max_depth
        cut = deepest and not deep_enough(accepted, len(sources))  # more may lie beyond
        spelled = self.relevance.spelled(intent.text)  # "pinns": their lines speak of PINNs
        picks = accepted_papers(sources, accepted, rates, spelled, self.embedder)
        top = sources[: self.settings.top_k]
        if not intent.asks_code and not self._irrelevant(intent, top, rates[: len(top)]):
            known = {source.paper.paper_id for source, _ in picks}
            known |= {  # one the decision is sure of is no answer: the rules don't list it
                s.paper.paper_id for s, p in zip(top, rates) if p < self.tuning.list_rules_floor
            }
            ruled = relevant_papers(top, intent, self.embedder, self.tuning)
            if ruled and not picks and (answer := self._off_topic(intent, top, draft, True)):
                yield from shown(answer)  # "any papers on quantum error correction?"
                return
            picks += [pick for pick in ruled if pick[0].paper.paper_id not in known]
        if not picks:
            yield from self._no_list(intent, sources, draft)
            return
        before = [pick for pick in picks if page and pick[0].paper.paper_id in page.shown]
        rest = [pick for pick in picks if pick not in before]
        if page and not rest:
            text = f"That is all: the {len(picks)} matching papers are listed above."
            yield from shown(draft.answer(text=text))
            return
        shown_now = rest if page and page.everything else rest[: self.tuning.list_shown]
        yield from self._listed(shown_now, draft, len(picks), len(before), cut)

    def _candidates(self, intent: Intent, filters, mode) -> tuple[list[Source], list, list]:
        """A list's candidates, with whether the decision accepts each and its probability:
        list_depth papers from dense and BM25 search, searched four times as deep (up to
        list_max_depth) while the deeper half still holds papers it accepts. A paper's verdict
        is its own (features of it and the question), so each is decided once; one without the
        question's topic words side by side (`Relevance.listable`) is not, unless it is among
        the top k or named (whose probabilities also decide whether the corpus answers)."""
        depth, decided_for = self.tuning.list_depth, {}
        if intent.asks_code:  # a link is found at any rank
            depth = self.tuning.list_max_depth
        while True:
            sources = self.retriever.search(intent.text, depth, mode, filters)
            if not sources:
                return [], [], []
            top = {s.paper.paper_id for s in sources[: self.settings.top_k]}
            new = [s for s in sources if s.paper.paper_id not in decided_for]
            listable = self.relevance.listable(intent, new)
            judged = [s for s, ok in zip(new, listable) if ok or s.named or s.paper.paper_id in top]
            rows = self.relevance.assess(intent, judged)
            verdicts = decided(judged, rows, self.relevance, intent, self.tuning)
            decided_for |= {s.paper.paper_id: (False, 0.0) for s in new}
            decided_for |= {s.paper.paper_id: v for s, v in zip(judged, zip(*verdicts))}
            accepted, rates = zip(*(decided_for[s.paper.paper_id] for s in sources))
            if depth >= self.tuning.list_max_depth or deep_enough(list(accepted), depth):
                return sources, list(accepted), list(rates)
            depth = min(4 * depth, self.tuning.list_max_depth)

    def _list(self, intent: Intent, sources: list[Source], draft: Draft):
        """A "which papers" answer: one cited line per relevant paper, written without a model."""
        picks = relevant_papers(sources, intent, self.embedder, self.tuning)
        if not picks:
            yield from self._no_list(intent, sources, draft)
            return
        yield from self._listed(picks, draft)

    def _no_list(self, intent: Intent, sources: list[Source], draft: Draft):
        """A list question no paper answers: declined, naming its conditions when it sets some,
        or its words when none is English, the corpus's or a typo of one ("asdfgh qwerty")."""
        conditions = ", ".join(f"'{part}'" for part in intent.conditions)
        # gibberish is counted as not_relevant; UNKNOWN_WORDS is its notice
        if self.reader.gibberish(intent.text):
            why = notice(Reason.UNKNOWN_WORDS, either(letter_words(intent.text)))
            reason = Reason.NOT_RELEVANT
        elif conditions:
            why, reason = notice(Reason.LIST_CONDITIONS, conditions), Reason.LIST_CONDITIONS
        else:
            why, reason = "", Reason.NOT_RELEVANT
        yield from shown(self._abstain(draft, sources[: self.settings.top_k], reason, why=why))

    def _listed(self, picks, draft: Draft, total: int | None = None, before: int = 0, cut=False):
        """The list's lines, then the list checked like any answer; with the `total` number
        of papers accepted (`before` of them listed earlier), the answer says how many match
        (at least, when the search was `cut` at list_max_depth) and which of them it shows."""
        raw = list_answer(picks)
        yield raw
        draft = draft.model_copy(
            update={
                "backend": "list",
                "layout": "list",
                "writer_is_model": False,
                "ttft_s": draft.elapsed(),
            }
        )
        answer = self.check(raw, [source for source, _ in picks], draft)
        if total is not None and not answer.abstained:
            cited = len(answer.citations)
            listed = cited + total - len(picks)
            count = f"{listed} indexed papers match" if listed != 1 else "1 indexed paper matches"
            if cut:
                count = f"At least {count} (the search stops at the best "
                count += f"{self.tuning.list_max_depth} candidates)"
            if before or listed > cited:
                count += f"; showing {before + 1}–{before + cited}"
                count += "" if before + cited >= listed else f" {ASK_FOR_MORE}"
            answer.notices.append(f"{count}.")
        yield answer

    def check(self, raw: str, sources: list[Source], draft: Draft) -> Answer:
        """Turn raw model text into a checked Answer (see `rag.answer.checking`)."""
        return self.checker.check(raw, sources, draft)

    def _irrelevant(self, intent: Intent, sources: list[Source], rates=None) -> bool:
        """The relevance gate: no retrieved paper answers, by the answerability score and
        min_relevance, nor (calibrated) by the decision (`rates`, when already computed)."""
        if not sources:
            return True
        if self.retriever.answerability(intent.query, sources) >= self.tuning.min_relevance:
            return False
        if self.tuning.decision == "calibrated":
            rates = self.relevance.rate(intent, sources) if rates is None else rates
            return max(rates) < self.relevance.decision.threshold
        return True

    def _off_topic(
        self, intent: Intent, sources: list[Source], draft: Draft, listed: bool = False
    ) -> Answer | None:
        """The decline of a prose question on a topic no paper treats, though the closest one
        shares its other words: it passed the relevance gate by the rules (answerability) while
        the calibrated decision accepts no source, and the closest source never uses words that
        carry it (`ignored_words`); a list too, when `listed` (only the rules would list papers:
        "any papers on quantum error correction?"). None for other lists, summaries,
        comparisons, follow-ups on chosen papers, questions naming a paper, and under the
        'rules' decision."""
        if (
            self.tuning.decision != "calibrated"
            or intent.scoped
            or (intent.is_list and not listed)
            or intent.summary
            or intent.shape == "comparison"
            or any(source.named for source in sources)
            or self.retriever.answerability(intent.query, sources) < self.tuning.min_relevance
        ):  # the last: _irrelevant let it through because the decision accepts a source
            return None
        words = ignored_words(
            intent.text,
            sources[0],
            self.embedder,
            self.tuning,
            intent.topic,
            self.relevance.lexicon,
        )
        if (
            not words
            or max(self.relevance.rate(intent, sources)) >= self.relevance.decision.threshold
        ):
            return None
        why = f"The closest paper, '{sources[0].paper.title}', never uses {either(words)}."
        return self._abstain(draft, sources, Reason.IGNORED_WORD, why=why)

    def _rewriter(self) -> LLMBackend | None:
        """The LLM used to rewrite follow-ups, when the configured backend is one that works."""
        try:
            backend = self.backend()
        except RagError:
            return None
        return backend.side_tasks() if backend.is_llm else None
