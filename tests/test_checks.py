"""Each check of the answer loop alone (rag/answer/checks), on hand-made papers and a fake
embedder whose cosine is word overlap: fast, deterministic, asserting on reason codes."""

import math
import re

import pytest

from rag.answer.checking import CHECKS, Checker
from rag.answer.checks import Check, Review, Tools
from rag.answer.checks.declined import Declined
from rag.answer.checks.figure import Figure
from rag.answer.checks.judge import Judge
from rag.answer.checks.key_word import KeyWord
from rag.answer.checks.leader import OverlookedLeader
from rag.answer.checks.led import LedPapers
from rag.answer.checks.named import CitedNames
from rag.answer.checks.support import Support
from rag.answer.checks.withheld import Withheld
from rag.answer.draft import Draft
from rag.answer.intent import Intent, classify
from rag.answer.verdict import Reason
from rag.llm.fake import FakeBackend
from rag.models import AnswerSentence, Paper, Source
from rag.text import CANNOT_ANSWER
from rag.tuning import AnswerTuning


class WordsEmbedder:
    """Each word its own dimension: the cosine of two texts is their (normalized) word overlap."""

    name, window = "words", 256

    def __init__(self):
        self.vocabulary: dict[str, int] = {}

    def embed(self, texts: list[str]) -> list[list[float]]:
        counts = []
        for text in texts:
            words = re.findall(r"[a-z0-9]+", text.lower())
            counts.append({self.vocabulary.setdefault(w, len(self.vocabulary)): 0 for w in words})
            for w in words:
                counts[-1][self.vocabulary[w]] += 1
        size = len(self.vocabulary)
        vectors = []
        for count in counts:
            vector = [0.0] * size
            for index, n in count.items():
                vector[index] = float(n)
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            vectors.append([v / norm for v in vector])
        return vectors


class NoMetadata:
    def mentioned(self, text: str, as_written: bool = False) -> list[str]:
        return []


def source(number: int, title: str, abstract: str, relevance: float = 0.6, named=False) -> Source:
    paper = Paper(
        paper_id=f"p{number}",
        title=title,
        title_source="metadata",
        abstract=abstract,
        source_file="f",
    )
    return Source(paper=paper, passage=abstract, score=1.0, relevance=relevance, named=named)


GRAPHS = source(
    1,
    "Robust Graph Attacks",
    "We study adversarial attacks on graph neural networks. Our attack lowers node "
    "classification accuracy by 12% on citation graphs.",
)
CLUSTERS = source(
    2,
    "Clustering With Missing Views",
    "We cluster samples whose views are missing. The method imputes views with a shared "
    "encoder and clusters the samples.",
    relevance=0.3,
)


def review_of(
    intent: Intent,
    sources: list[Source],
    sentences: list[AnswerSentence] | None = None,
    raw: str = "",
    judge=None,
    **draft_fields,
) -> Review:
    tools = Tools(WordsEmbedder(), NoMetadata(), AnswerTuning(), judge or (lambda: None))
    draft = Draft(intent=intent, backend="test", **draft_fields)
    return Review(intent, draft, sources, list(sentences or []), raw, tools)


def claim(text: str, *numbers: int, supported: bool | None = True) -> AnswerSentence:
    return AnswerSentence(text=text, citations=list(numbers), supported=supported)


def reasons(verdicts) -> list[Reason]:
    return [v.reason for v in verdicts]


def test_a_draft_that_declines_citing_nothing_is_a_decline():
    review = review_of(classify("How do graph attacks work?"), [GRAPHS], raw=CANNOT_ANSWER)
    assert reasons(Declined().run(review)) == [Reason.MODEL_DECLINED]
    figure = review_of(
        classify("How many nodes are attacked?"), [GRAPHS], raw=CANNOT_ANSWER, writer_is_model=False
    )
    assert reasons(Declined().run(figure)) == [Reason.NO_FIGURE]
    cited = review_of(classify("How?"), [GRAPHS], [claim("Attacks.", 1)], raw=CANNOT_ANSWER)
    assert Declined().run(cited) == []


def test_a_sentence_naming_a_title_gets_its_citation():
    review = review_of(
        classify("What attacks graphs?"),
        [GRAPHS, CLUSTERS],
        [claim("Robust Graph Attacks lowers accuracy.", supported=None)],
    )
    CitedNames().run(review)
    assert review.sentences[0].citations == [1]


def test_support_marks_what_the_cited_abstract_says_and_moves_a_misplaced_citation():
    review = review_of(
        classify("How are missing views handled?"),
        [GRAPHS, CLUSTERS],
        [
            claim("The method imputes views with a shared encoder.", 1, supported=None),
            claim("Bananas grow on tall tropical trees everywhere.", 1, supported=None),
        ],
    )
    Support().run(review)
    moved, unrelated = review.sentences
    assert moved.citations == [2] and moved.supported
    assert unrelated.supported is False
    assert review.evidence["p2"].startswith("The method imputes views")


def test_nothing_supported_is_withheld():
    review = review_of(classify("What?"), [GRAPHS], [claim("Bananas.", 1, supported=False)])
    assert reasons(Withheld().run(review)) == [Reason.NO_SUPPORT]
    review.sentences[0].supported = True
    assert Withheld().run(review) == []


def test_the_overlooked_leader_answers_with_its_own_sentence():
    leader = GRAPHS.model_copy(update={"relevance": 0.7})
    review = review_of(
        classify("How do adversarial attacks on graph neural networks work?"),
        [leader, CLUSTERS],
        [claim("Something vague.", 2, supported=False)],
    )
    assert reasons(OverlookedLeader().run(review)) == [Reason.OVERLOOKED]
    assert review.overlooked and review.sentences[0].citations == [1]
    assert review.sentences[0].text.startswith("Robust Graph Attacks: ")


def test_sentences_of_papers_the_leader_clearly_outranks_are_dropped():
    leader = GRAPHS.model_copy(update={"relevance": 0.7})
    review = review_of(
        classify("How do graph attacks work?"),
        [leader, CLUSTERS],
        [claim("Attacks lower accuracy.", 1), claim("Views are imputed.", 2)],
    )
    verdicts = LedPapers().run(review)
    assert reasons(verdicts) == [Reason.LED] and verdicts[0].papers == [2]
    assert [s.citations for s in review.sentences] == [[1]]
    both = review_of(
        classify("How do graph attacks work?"),
        [leader, CLUSTERS],
        [claim("Attacks lower accuracy; views are imputed.", 1, 2), claim("Views are imputed.", 2)],
    )
    LedPapers().run(both)  # a sentence citing the leader too stays
    assert [s.citations for s in both.sentences] == [[1, 2]]


class EmptiesAll(Check):
    """A check written for this test: it repairs every sentence away."""

    name = "empties_all"

    def run(self, review: Review) -> list:
        review.sentences = []
        return [self.verdict("repair", Reason.LED)]


def test_an_answer_the_repairs_leave_empty_is_declined_not_shown_empty():
    tools = Tools(WordsEmbedder(), NoMetadata(), AnswerTuning(), lambda: None)
    draft = Draft(intent=classify("How do graph attacks work?"), backend="test", can_judge=False)
    raw = "Robust Graph Attacks lowers node classification accuracy on citation graphs [1]."
    answer = Checker(tools, (*CHECKS, EmptiesAll())).check(raw, [GRAPHS], draft)
    assert answer.abstained and answer.reason == Reason.NO_SUPPORT and answer.text


def test_a_paper_that_ignores_the_question_key_word_is_rejected_unless_named():
    question = classify("Which paper tackles graph oversquashing?")
    sentences = [claim("It attacks graph neural networks.", 1)]
    verdicts = KeyWord().run(review_of(question, [GRAPHS], sentences))
    assert reasons(verdicts) == [Reason.IGNORED_WORD] and verdicts[0].detail == "oversquashing"
    assert verdicts[0].outcome == "reject"
    named = GRAPHS.model_copy(update={"named": True})
    verdicts = KeyWord().run(review_of(question, [named], sentences))
    assert reasons(verdicts) == [Reason.NAMED_IGNORES_WORD] and verdicts[0].outcome == "note"
    summary = classify("Summarize: oversquashing", summary=True)
    assert KeyWord().run(review_of(summary, [GRAPHS], sentences)) == []


def test_a_comparison_describes_each_paper_in_its_own_words():
    question = classify("graph attacks vs imputation")
    assert question.shape == "comparison"
    sentences = [claim("It attacks graph neural networks.", 1), claim("It clusters samples.", 2)]
    assert KeyWord().run(review_of(question, [GRAPHS, CLUSTERS], sentences)) == []
    alone = question.model_copy(update={"shape": None})  # one paper must use the words itself
    verdicts = KeyWord().run(review_of(alone, [GRAPHS, CLUSTERS], sentences))
    assert [v.detail for v in verdicts] == ["imputation", "graph"]


def test_a_typo_of_a_word_the_paper_uses_is_no_ignored_key_word():
    from rag.answer.checks.key_word import ignored_word
    from rag.answer.decision import Lexicon

    used = {"graph": 3, "attack": 2, "neural": 5, "network": 5}
    words = Lexicon(lambda ws: {w: used.get(w, 0) for w in ws}, 10, used)
    question = "which papers study graph atacks"
    embedder = WordsEmbedder()
    assert ignored_word(question, GRAPHS, embedder, 0.0, topic={"graph", "atack"}) == "atacks"
    assert (
        ignored_word(question, GRAPHS, embedder, 0.0, topic={"graph", "atack"}, lexicon=words)
        is None
    )


def test_words_a_paper_never_uses_that_carry_the_question_are_its_ignored_topic():
    """Together they carry `ignored_share` of the question and the question without them is
    `ignored_margin` closer to the paper: all of them, or none."""
    from rag.answer.checks.key_word import ignored_words

    embedder, tuning = WordsEmbedder(), AnswerTuning()
    off = "graph neural networks for protein folding"
    assert ignored_words(off, GRAPHS, embedder, tuning) == ["protein", "folding"]
    one = {"graph", "neural", "network", "protein"}  # "protein" alone carries too little
    assert ignored_words(off, GRAPHS, embedder, tuning, one) == []
    assert (
        ignored_words("adversarial attacks on graph neural networks", GRAPHS, embedder, tuning)
        == []
    )
    strict = tuning.model_copy(update={"ignored_share": 0.9})
    assert ignored_words(off, GRAPHS, embedder, strict) == []
    far = tuning.model_copy(update={"ignored_margin": 0.9})
    assert ignored_words(off, GRAPHS, embedder, far) == []


def test_without_a_model_a_which_paper_answer_must_meet_the_last_condition():
    question = classify("Which paper attacks graph neural networks on protein molecules?")
    sentences = [claim("It attacks graph neural networks.", 1)]
    review = review_of(question, [GRAPHS], sentences, can_judge=False)
    verdicts = Judge().run(review)
    assert reasons(verdicts) == [Reason.MISSING_CONDITION]
    assert verdicts[0].detail == "protein molecules"
    met = classify("Which paper attacks graph neural networks on citation graphs?")
    assert Judge().run(review_of(met, [GRAPHS], sentences, can_judge=False)) == []


def test_the_model_judges_a_which_paper_answer_and_a_failing_judge_is_noted():
    question = classify("Which paper attacks graph neural networks?")
    sentences = [claim("It attacks graph neural networks.", 1)]
    saying_no = FakeBackend(reply="No")
    assert reasons(Judge().run(review_of(question, [GRAPHS], sentences, judge=lambda: saying_no)))
    saying_yes = FakeBackend(reply="Yes")
    assert Judge().run(review_of(question, [GRAPHS], sentences, judge=lambda: saying_yes)) == []

    def broken():
        raise RuntimeError("model gone")

    verdicts = Judge().run(review_of(question, [GRAPHS], sentences, judge=broken))
    assert reasons(verdicts) == [Reason.JUDGE_FAILED] and verdicts[0].outcome == "note"
    prose = classify("How do attacks on graph neural networks work?")
    assert Judge().run(review_of(prose, [GRAPHS], sentences, judge=lambda: saying_no)) == []


def test_a_figure_question_is_answered_by_the_sentence_stating_it_or_declined():
    question = classify("By how much does the attack lower accuracy?")
    review = review_of(question, [GRAPHS], [claim("The attack lowers accuracy.", 1)])
    assert reasons(Figure().run(review)) == [Reason.STATED_FIGURE]
    assert "12%" in review.sentences[0].text
    no_figure = review_of(question, [CLUSTERS], [claim("It clusters samples.", 1)])
    assert reasons(Figure().run(no_figure)) == [Reason.NO_FIGURE]
    stated = review_of(question, [GRAPHS], [claim("It lowers accuracy by 12%.", 1)])
    assert Figure().run(stated) == []


class BannedWord(Check):
    """A check written for this test: a sentence saying 'banana' is rejected."""

    name = "banned_word"

    def run(self, review: Review) -> list:
        return [
            self.verdict("reject", Reason.JUDGE, papers=s.citations)
            for s in review.sentences
            if "banana" in s.text.lower()
        ]


def test_a_new_check_is_one_class_and_one_entry_in_the_loop():
    tools = Tools(WordsEmbedder(), NoMetadata(), AnswerTuning(), lambda: None)
    draft = Draft(intent=classify("How do graph attacks work?"), backend="test", can_judge=False)
    raw = "Robust Graph Attacks lowers node classification accuracy on citation graphs [1]."
    plain = Checker(tools).check(raw, [GRAPHS], draft)
    assert not plain.abstained and plain.citations[0].title == GRAPHS.paper.title
    banned = raw.replace("citation graphs", "banana graphs")
    checked = Checker(tools, (*CHECKS, BannedWord())).check(banned, [GRAPHS], draft)
    assert checked.abstained and checked.reason == Reason.JUDGE


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.name)
def test_every_check_has_a_name_and_its_own_module(check):
    assert check.name and type(check).__module__.startswith("rag.answer.checks.")


def test_a_model_s_sentence_citing_no_paper_is_left_out_with_a_notice():
    from rag.answer.checks.uncited import Uncited

    cited = claim("The attack perturbs graph structure.", 1)
    loose = claim("Its advantage is an identical regret scaling.", supported=None)
    review = review_of(classify("How do graph attacks work?"), [GRAPHS], [cited, loose])
    verdicts = Uncited().run(review)
    assert review.sentences == [cited] and reasons(verdicts) == [Reason.UNCITED]
    assert "1 of the model's sentences" in verdicts[0].notice()
    alone = review_of(classify("How do graph attacks work?"), [GRAPHS], [loose])
    assert Uncited().run(alone) == [] and alone.sentences == [loose]  # nothing cited: not here
    quoted = review_of(classify("x"), [GRAPHS], [cited, loose], writer_is_model=False)
    assert Uncited().run(quoted) == []  # the answer's own lines, no model's
