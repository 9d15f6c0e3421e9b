"""Reading a question in its conversation: a follow-up made standalone ("which of those ...",
"how does it compare to the grokking paper"), a request for more of a list, typos and
abbreviations read as the corpus's words, then the question classified (`rag.answer.intent`)."""

from collections.abc import Callable

from rag.answer.conversation import (
    Page,
    asked_again,
    by_description,
    compared_to,
    descriptions,
    fits_none,
    next_page,
    scope_of_follow_up,
    standalone_question,
    without_interjection,
)
from rag.answer.intent import (
    Intent,
    about_itself,
    asks_for_papers_on,
    asks_what_it_does,
    carries_on,
    classify,
    continues,
    joined_compounds,
    topic_of,
)
from rag.answer.naming import names_in
from rag.answer.shapes import compared_group, shape_of
from rag.answer.wording import framed_right, latin
from rag.models import Message
from rag.sentences import letter_words, stems


class Reader:
    """Reads questions against the index (`retriever`) and its lexicon (`relevance`); a model
    (`rewriter`, None without one) makes a follow-up standalone when the rules cannot."""

    def __init__(self, retriever, relevance, settings, rewriter: Callable[[], object | None]):
        self.retriever, self.relevance, self.rewriter = retriever, relevance, rewriter
        self.settings, self.tuning = settings, settings.answer

    def paged(self, question: str, history: list[Message]) -> tuple[Intent, Page | None]:
        """The question classified and, when it asks for more of a list ("show more", "the
        rest"), that list question's intent (as this question's standalone form) and page."""
        page = next_page(question, history, self.retriever.catalog.papers())
        listed = page and self.intent(page.question, page.history)
        if not listed or not listed.is_list:
            return self.intent(question, history), None
        return listed.model_copy(update={"question": question}), page

    def intent(self, question: str, history: list[Message]) -> Intent:
        """The question classified, after a follow-up is made standalone: "which of those ..."
        keeps the question as asked within the papers named before; a question naming its
        subject ("How does FIRE keep its plasticity?") stands alone."""
        question = without_interjection(question)  # "ok how does it work": a follow-up
        question = about_itself(question)  # "the HTI paper - what is it about": not a follow-up
        read = framed_right(latin(question), self._known_word)  # "Πnet", "papres"
        named = set(self.retriever.mentioned(read))
        if named and (again := asked_again(read, history, self.retriever.metadata.own_names)):
            asked = classify(again, named=named, tuning=self.tuning)  # its shape too
            return asked.model_copy(update={"question": question})
        shape = shape_of(question)
        names_nothing = (  # "give me the gist" after an answer: its paper
            bool(history) and shape in ("summary", "contribution") and not topic_of(question)
        )
        scope = scope_of_follow_up(
            question, history, self.retriever.catalog.papers(), names_nothing
        )
        own_paper = False  # "the hazan one" after a list without Hazan: a paper of its own
        # "the rl one", "the microscopy one vs the sparse mask one": read abstracts only then
        if scope and len(scope) > 1 and descriptions(question):
            earlier = self._with_abstracts(scope)
            own_paper = fits_none(question, earlier)
            scope = None if own_paper else by_description(question, earlier) or scope
        if scope and named - scope and shape == "comparison":
            scope |= named  # "how does it compare to SAFA-SNN": it, and SAFA-SNN
        elif scope and len(scope) == 1 and not named and (other := self._compared_to(read, scope)):
            scope |= {other}  # "how does it compare to the grokking paper": it, and that one
        scope = scope if scope and not named - scope else None
        described = self._new_group(question, scope)
        scope = None if described else scope
        # "pinns" after another answer: an abbreviation the corpus defines is a topic of its own;
        # so is "federated learning papers" after a list of continual learning papers
        topic = not continues(question, 0) and (
            self.relevance.spelled(question) != question or asks_for_papers_on(question)
        )
        if (
            scope
            or own_paper
            or described
            or topic
            or (named and not carries_on(question))
            or (history and self.gibberish(read))  # difflib's typo search: only when it matters
        ):
            standalone = read
        else:
            standalone = standalone_question(
                read, history, self.rewriter(), self.tuning.follow_up_words
            )
        intent = classify(question, standalone, named, scope, tuning=self.tuning)
        if not intent.shape and not scope and len(named) == 1:
            (paper_id,) = named
            if asks_what_it_does(intent, self._own_words(paper_id, read)):
                return intent.model_copy(update={"shape": "contribution"})
        return intent

    def _own_words(self, paper_id: str, question: str) -> set[str]:
        """The stems of the paper's title and authors, and of the question's names that name
        it alone ("ARADMM"; not "CIFAR-100")."""
        paper = self.retriever.source_for(paper_id).paper
        names = [n for n in names_in(question) if self.retriever.mentioned(n) == [paper_id]]
        own = " ".join([paper.title, *paper.authors, *names])
        return stems(own) | joined_compounds(own)  # "outcome-based" as "outcomebased" too

    def _compared_to(self, question: str, scope: set[str]) -> str | None:
        """The paper a follow-up comparison describes after its verb ("how does it compare to
        the gauss-newton / grokking paper"): the first of the description's two best matches
        that is not the paper before, when the corpus answers the description
        (`min_relevance`)."""
        described = compared_to(question)
        if not described:
            return None
        found = self.relevance.matches(described, 2, self.settings.retrieval_mode)
        return next((s.paper.paper_id for s in found if s.paper.paper_id not in scope), None)

    def _with_abstracts(self, ids: set[str]) -> list:
        """The papers, their abstracts filled in (the catalog keeps metadata only)."""
        abstracts = self.retriever.store.abstracts(sorted(ids))
        return [
            self.retriever.catalog.get(pid).model_copy(update={"abstract": abstracts.get(pid, "")})
            for pid in sorted(ids)
        ]

    def _known_word(self, word: str) -> bool:
        """Whether the word is English (the embedder's tokenizer has it) or the corpus uses it
        ("compress" is no typo of "compare")."""
        lexicon = self.relevance.lexicon
        return lexicon.is_word(word) or any(lexicon.frequencies(stems(word)).values())

    def gibberish(self, question: str) -> bool:
        """Whether no word of the question is an English word, a word of the corpus or a typo
        of one ("asdfgh qwerty"): short as it is, it carries on no conversation."""
        words = letter_words(question)
        typos = self.relevance.lexicon.typos(stems(" ".join(words)))
        return bool(words) and not typos and not any(self._known_word(w) for w in words)

    def spelled_stems(self, text: str) -> set[str]:
        """The text's stems, with the corpus's abbreviations also read as their words."""
        return stems(self.relevance.spelled(text))

    def _new_group(self, question: str, scope: set[str] | None) -> bool:
        """Whether the question describes a group the conversation's papers are not ("the two
        quantum papers" after an answer about FIRE, or about two PINN papers): fewer of them
        than it counts, or some that never use its topic words."""
        group, topic = compared_group(question), topic_of(question)
        if not group or not topic:
            return False
        if not scope or len(scope) < group:
            return True
        abstracts = self.retriever.store.abstracts(list(scope))
        return any(not topic <= stems(abstract) for abstract in abstracts.values())
