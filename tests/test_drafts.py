"""How the answer pipeline treats a model's draft: what it keeps, completes or withholds (fake
backend over the real seed index and embedder)."""

import pytest

from rag.answer.intent import classify
from rag.answer.pipeline import Answerer
from rag.answer.verdict import Reason
from rag.llm.fake import FakeBackend

BISECLE = "Bisecle: Binding and Separation in Continual Learning for Video Language Understanding"
QUESTION = "Which method binds and separates concepts for continual video-language learning?"


@pytest.fixture
def ask(seed_index, retriever):
    def run(reply: str, question: str = QUESTION):
        answerer = Answerer(seed_index, retriever=retriever, backend=FakeBackend(reply=reply))
        return list(answerer.ask(question))[-1]

    return run


@pytest.mark.parametrize(
    "reply",
    [f'It is titled "{BISECLE}" [1].', f"[1] Title: {BISECLE}", f"Yes: {BISECLE.upper()} [1]."],
)
def test_a_draft_that_only_names_the_paper_gets_the_papers_own_sentence(ask, reply):
    answer = ask(reply)
    assert not answer.abstained and [c.title for c in answer.citations] == [BISECLE]
    (line,) = answer.sentences
    assert line.text.startswith(f"{BISECLE}: ") and line.supported
    assert line.text.removeprefix(f"{BISECLE}: ").rstrip(".") in answer.sources[0].paper.abstract


def test_a_sentence_with_a_claim_of_its_own_is_checked_as_written(ask):
    answer = ask(f"{BISECLE} predicts protein structures from amino-acid sequences [1].")
    assert not any(s.supported and "protein" in s.text for s in answer.sentences)


class Misattributing(FakeBackend):
    """Writes a claim of Bisecle's abstract and cites another paper for it."""

    def __init__(self, opening: str, cited: str = "SPICED"):
        super().__init__()
        self.opening, self.cited = opening, cited

    def stream(self, prompt):
        number = {s.paper.title.split(":")[0]: n for n, s in enumerate(prompt.sources, 1)}
        bisecle = next(s.paper for s in prompt.sources if s.paper.title.startswith("Bisecle"))
        claim = next(x for x in bisecle.abstract.split(". ") if "hippocamp" in x.lower())
        yield f"{self.opening}{claim} [{number[self.cited]}]."


SPICED = "SPICED: A Synaptic Homeostasis-Inspired Framework for Unsupervised Continual EEG Decoding"


@pytest.mark.parametrize("opening", ["", "SPICED: ", "In SPICED, ", f"{SPICED} shows that "])
def test_a_claim_cited_to_the_wrong_paper_is_given_to_the_paper_that_makes_it(
    seed_index, retriever, opening
):
    question = "How do continual learning methods inspired by the brain avoid forgetting?"
    answerer = Answerer(seed_index, retriever=retriever, backend=Misattributing(opening))
    answer = list(answerer.ask(question))[-1]
    assert [c.title for c in answer.citations] == [BISECLE] and answer.sentences[0].supported
    assert "SPICED" not in answer.text and answer.text.startswith(
        opening.replace(SPICED, BISECLE).replace("SPICED", "Bisecle")
    )


ANACP = "AnaCP: Toward Upper-Bound Continual Learning via Analytic Contrastive Projection"


def test_a_claim_naming_an_unrelated_paper_is_renamed_to_the_paper_that_makes_it(
    seed_index, retriever
):
    """AnaCP, shown beside Bisecle, says nothing of the hippocampus."""
    question = "How do continual learning methods inspired by the brain avoid forgetting?"
    backend = Misattributing(f"{ANACP} shows that ", cited="AnaCP")
    answer = list(Answerer(seed_index, retriever=retriever, backend=backend).ask(question))[-1]
    assert [c.title for c in answer.citations] == [BISECLE] and answer.sentences[0].supported
    assert answer.text.startswith(f"{BISECLE} shows that ") and "AnaCP" not in answer.text


OTHER = "Gradient-Variation Online Adaptivity for Accelerated Optimization with Hölder Smoothness"


@pytest.mark.parametrize(
    ("question", "claim"),
    [
        (  # the best paper is about federated learning, not privacy
            "Is there a federated learning method with formal differential privacy guarantees?",
            "provides federated learning methods with formal differential privacy guarantees",
        ),
        (  # the best paper attacks graph networks; it never mentions over-smoothing
            "Which paper prevents over-smoothing in deep graph neural networks?",
            "prevents over-smoothing in deep graph neural networks",
        ),
    ],
)
def test_a_restated_question_is_not_renamed_to_a_paper_that_lacks_its_terms(
    seed_index, retriever, question, claim
):
    """A claim restating the question about a paper that does not support it is not moved to
    the best paper when that paper lacks any of the question's words the claim uses."""
    answerer = Answerer(seed_index, retriever=retriever, backend=FakeBackend())
    number = 1 + [s.paper.title for s in answerer.retriever.search(question, 5)].index(OTHER)
    answerer._backend = FakeBackend(reply=f"{OTHER} {claim} [{number}].")
    answer = list(answerer.ask(question))[-1]
    assert answer.abstained or not any(s.supported for s in answer.sentences)


def test_a_claim_naming_two_papers_cited_to_the_wrong_one_is_flagged(seed_index, retriever):
    question = "How do continual learning methods inspired by the brain avoid forgetting?"
    backend = Misattributing("Unlike Bisecle, SPICED says: ")
    answer = list(Answerer(seed_index, retriever=retriever, backend=backend).ask(question))[-1]
    assert answer.abstained or answer.sentences[0].supported is False


FIRE = "FIRE: Frobenius-Isometry Reinitialization for Balancing the Stability-Plasticity Tradeoff"


def test_naming_the_best_paper_in_the_questions_words_identifies_it(ask):
    question = (
        "Which paper reinitializes network weights with an isometry to balance stability and "
        "plasticity in continual learning?"
    )
    answer = ask(f"{FIRE} reinitializes network weights with an isometry [1].", question)
    assert [c.title for c in answer.citations] == [FIRE] and answer.sentences[0].supported
    assert (
        answer.sentences[0].text.removeprefix(f"{FIRE}: ")[:-1] in answer.sources[0].paper.abstract
    )


class PointingAtTheWeakest(FakeBackend):
    """Answers a "which paper" question by pointing at the least relevant source."""

    def stream(self, prompt):
        weakest = min(range(len(prompt.sources)), key=lambda n: prompt.sources[n].relevance)
        yield f"The paper that does this is [{weakest + 1}]."


def test_a_draft_pointing_at_a_weaker_paper_answers_with_the_paper_the_question_describes(
    seed_index, retriever
):
    question = (
        "Which paper reinitializes network weights with an isometry to balance stability and "
        "plasticity in continual learning?"
    )
    answerer = Answerer(seed_index, retriever=retriever, backend=PointingAtTheWeakest())
    answer = list(answerer.ask(question))[-1]
    assert [c.title for c in answer.citations] == [FIRE] and answer.sentences[0].supported


def test_a_restated_question_identifies_the_paper_the_which_paper_question_describes(retriever):
    from rag.answer.checks.identified import identified
    from rag.answer.intent import classify
    from rag.models import AnswerSentence
    from tests.test_checks import review_of

    question = (
        "Which paper reinitializes network weights with an isometry to balance stability and "
        "plasticity in continual learning?"
    )
    sources = retriever.search(question, 5)
    assert sources[0].paper.title == FIRE
    weaker = next(n for n, s in enumerate(sources, 1) if s.relevance < sources[0].relevance - 0.1)

    def restating(number: int, question_: str = question, claim: str = "") -> list[int]:
        claim = claim or f"{sources[number - 1].paper.title} balances stability and plasticity."
        review = review_of(classify(question_), sources)
        return identified(AnswerSentence(text=claim, citations=[number]), review)

    assert restating(1) == [1] and restating(weaker) == [1]
    assert restating(weaker, claim="The paper that does this is.") == [1]
    assert restating(1, "How does FIRE balance stability and plasticity?") == []
    assert restating(weaker, claim="It predicts protein structures from sequences.") == []


@pytest.mark.parametrize(
    ("reply", "question", "wrong", "stated"),
    [
        (
            "AnaCP needs 10 times less GPU memory than joint training [1].",
            "How much GPU memory does AnaCP need compared with joint training?",
            "10",
            None,
        ),
        (  # the abstract's sentences with figures give dataset counts, not a learning rate
            "The learning rate used to train SAFA-SNN is 0.1 [1].",
            "What learning rate is used to train SAFA-SNN?",
            "0.1",
            None,
        ),
        (
            "SAFA-SNN outperforms the baselines by 7.5% at the last session on Mini-ImageNet [1].",
            "By how much does SAFA-SNN beat the baselines on Mini-ImageNet?",
            "7.5",
            "4.01",
        ),
        (
            "SAFA-SNN, a sparsity-aware spiking neural network for few-shot class-incremental "
            "learning on devices, beats the baselines by 7.5% [1].",
            "By how much does SAFA-SNN beat the baselines?",
            "7.5",
            "4.01",
        ),
        (
            (
                "ARADMM establishes an optimal iteration complexity of order "
                "$\\mathcal{O}(\\sqrt{n})$ for finding an approximate KKT point [1]."
            ),
            "What iteration complexity does ARADMM reach?",
            "\\sqrt{n}",
            "\\epsilon^{-3}",
        ),
    ],
)
def test_a_figure_the_abstract_never_states_is_never_shown(ask, reply, question, wrong, stated):
    """The claim becomes its paper's own sentence when that states the figures, else it is
    withheld."""
    answer = ask(reply, question)
    shown = [s for s in answer.sentences if s.supported]
    assert not any(wrong in s.text for s in shown)
    if stated is None:
        assert not shown
    else:
        (line,) = shown
        title = answer.sources[line.citations[0] - 1].paper
        assert stated in line.text
        assert line.text.removeprefix(f"{title.title}: ")[:-1] in title.abstract


def test_a_number_the_abstract_states_is_supported(ask):
    answer = ask(
        "SAFA-SNN outperforms the baselines by at least 4.01% at the last incremental session "
        "on Mini-ImageNet [1].",
        "By how much does SAFA-SNN beat the baselines on Mini-ImageNet?",
    )
    assert not answer.abstained and answer.sentences[0].supported


def test_numbers_are_compared_as_numbers():
    from rag.figures import quantities

    assert quantities("three datasets, >1'000 checkpoints, 4.01% and 1,000 runs") == {
        "3",
        "1000",
        "4.01",
    }
    assert quantities("one shared latent code") == set()
    assert quantities("(1) a memory, (2) a gate and 3) a loss in O(1) time") == {"1"}
    assert quantities("It has (i) three heads") == {"3"}
    assert quantities("half the population, twice as fast", worded=True) == {"0.5", "2"}
    assert quantities("half the population") == set()  # a model's "halves" is no unknown number
    assert quantities("a twice-differentiable function", worded=True) == set()


@pytest.mark.parametrize(
    ("question", "listed"),
    [
        ("Which papers study continual learning?", True),
        ("papers on spectral bias of neural networks?", True),
        ("Any works about continual learning?", True),
        ("I'm looking for papers that use optimal transport.", True),
        ("Which of those use a replay buffer?", True),
        ("Which paper studies neural collapse?", False),
        ("How does this work handle label noise?", False),
        ("What does AnaCP propose?", False),
    ],
)
def test_questions_asking_for_papers_get_a_list(question, listed):
    from rag.answer.intent import classify

    assert classify(question).is_list is listed


@pytest.mark.parametrize(
    ("question", "conditions"),
    [
        (
            "Which papers study continual learning for autonomous driving perception?",
            ["study continual learning", "autonomous driving perception"],
        ),
        ("Which papers build on spiking neural networks?", ["spiking neural networks"]),
        ("Which papers are about pruning?", []),
        ("Which of those use a replay buffer?", ["use a replay buffer"]),  # no question quoted
        ("Which one is about video understanding?", ["video understanding"]),
        ("which ones evaluate on cifar", []),
        (
            "Which papers decode brain activity, for example EEG or intracortical recordings?",
            ["decode brain activity, for example EEG or intracortical recordings"],
        ),
        (  # not split within a compound
            "Which papers train diffusion models for text-to-image generation?",
            ["train diffusion models", "text-to-image generation"],
        ),
    ],
)
def test_a_list_questions_conditions_are_its_parts_with_two_content_words(question, conditions):
    from rag.answer.intent import conditions_of

    assert conditions_of(question) == conditions


def test_an_example_or_an_item_of_a_series_meets_a_condition():
    from rag.answer.listing import uses_half
    from rag.sentences import stems

    examples = "decode brain activity, for example EEG or intracortical recordings"
    assert uses_half(examples, stems("we classify eeg signals"))
    assert not uses_half(examples, stems("we record speech"))
    series = "data from biology, medicine, or neuroscience"
    assert uses_half(series, stems("clinical medicine"))
    assert not uses_half("data from biology and medicine", stems("clinical medicine"))


@pytest.mark.parametrize(
    ("question", "counted"),
    [
        ("How many participants were recorded in the EEG datasets?", {"particip"}),
        ("On how many EEG datasets was SPICED validated?", {"eeg", "dataset"}),
        ("How many tasks?", {"task"}),
        ("Which model does BIT use, and how many parameters does it have?", {"paramet"}),
        ("At most, by how much does CaRe-BN improve performance?", set()),
        ("by how many points does CaRe-BN beat BatchNorm", {"point"}),
        ("What word error rate does the brain-to-text framework reach?", {"rate"}),
        ("What learning rate is used to train SAFA-SNN?", {"rate"}),
        ("What top-1 accuracy does FIRE report on ImageNet?", {"accuraci"}),
        ("What speedup does TSENOR reach?", set()),
        ("Up to what percentage do EUGens improve inference speed?", set()),
        ("Which work shows how long to simulate the dynamics before resetting?", None),
        ("What does AnaCP propose?", None),
        ("how much stronger is eva than previous graph attacks", set()),  # a comparative
        ("What accuracy gains does CLVS report on ImageNet?", set()),  # "gains of 2.1% on ..."
    ],
)
def test_a_question_asking_for_a_figure_says_what_it_counts(question, counted):
    from rag.figures import asked_figure

    assert asked_figure(question) == counted


def test_accented_words_read_as_typed_without_accents():
    from rag.index.bm25 import tokenize
    from rag.sentences import folded, stems

    assert folded("Hölder smoothness, Gromov’s δ") == "Holder smoothness, Gromov’s δ"
    assert stems("Hölder-smooth objectives") == stems("holder smooth objectives")
    assert tokenize(["Hölder"]) == tokenize(["holder"])


def test_how_long_the_answer_should_be_is_no_topic():
    from rag.answer.intent import topic_of

    assert topic_of("What problem does LEGACY address, in a sentence?") == {"legaci", "problem"}
    assert topic_of("briefly, what does FIRE do") == {"fire"}
    assert topic_of("papers on sentence embeddings") == {"sentenc", "embed"}


def test_a_colon_ends_what_a_comparison_names():
    from rag.answer.shapes import compared_parts

    question = "Compare the two neural collapse papers: what does each one investigate and find?"
    assert compared_parts(question) == []
    assert compared_parts("Compare AnaCP with FIRE: which is faster?") == ["AnaCP", "FIRE"]


@pytest.mark.parametrize(
    ("question", "scope"),
    [
        ("whats BIT's word error rate on imagined speech specifically", {"imagin", "speech"}),
        ("What gain on ImageNet-100 does the variable similarity method report?", {"imagenet"}),
        ("How many training runs did the study on optimizers and neural collapse do?", set()),
        ("On average, how much more does the attack on graphs reduce accuracy?", set()),
        ("What accuracy on the benchmarks does FIRE report?", set()),
        ("What does AnaCP propose for continual learning?", set()),
    ],
)
def test_a_figure_question_says_what_it_asks_the_figure_of(question, scope):
    from rag.figures import figure_scope

    assert figure_scope(question) == scope


def test_a_figure_answers_how_many_only_next_to_what_is_counted():
    from rag.figures import answers_figure

    sentence = "Validated on three EEG datasets, SPICED shows its effectiveness."
    assert answers_figure(sentence, {"dataset"}) and answers_figure(sentence, set())
    assert not answers_figure(sentence, {"particip"})
    assert not answers_figure("SPICED adapts to new subjects.", set())
    assert answers_figure("It finds all cases with only half the population tested.", {"popul"})


def test_a_figure_answers_what_measure_only_in_a_sentence_naming_the_measure():
    """ "What learning rate ...?" is not answered by "at least 4.01% improvement"."""
    from rag.figures import answers_figure

    wer = "BIT reduces the word error rate (WER) of the prior method from 24.69% to 10.22%."
    assert answers_figure(wer, {"rate"})
    assert not answers_figure("SAFA-SNN achieves at least 4.01% improvement.", {"rate"})
    assert not answers_figure("The word error rate drops sharply.", {"rate"})  # no figure


@pytest.mark.parametrize(
    ("question", "answered"),
    [
        ("On how many EEG datasets was SPICED validated?", True),
        ("How many participants were recorded in the EEG datasets used to validate SPICED?", False),
        ("How much memory does SPICED need on device?", False),
    ],
)
def test_a_question_asking_for_a_figure_is_answered_only_with_one(ask, question, answered):
    """A supported sentence that states no figure of what is asked does not answer it."""
    answer = ask(
        f"{SPICED} was validated on three EEG datasets and shows its effectiveness [1].", question
    )
    assert answer.abstained is not answered
    if not answered:
        assert any("asks for a figure" in notice for notice in answer.notices)


def test_a_figure_the_draft_leaves_out_comes_from_its_papers_sentence_stating_it(ask):
    """The model named the paper but not the figure; the paper's sentence stating it answers."""
    answer = ask(
        "TSENOR's tensor-based implementation exploits GPU parallelism for a large speedup "
        "over existing methods [1].",
        "How large a speedup does TSENOR achieve over existing methods?",
    )
    assert not answer.abstained and "100× speedup" in answer.text
    assert answer.citations[0].evidence and "100×" in answer.citations[0].evidence


class CopiesTheWeakest(FakeBackend):
    """Answers with a true sentence of the least relevant paper shown, cited to it."""

    def stream(self, prompt):
        if not prompt.sources:  # asked whether the paper answers
            yield "Yes"
            return
        self.prompts.append(prompt)
        number, weakest = min(enumerate(prompt.sources, 1), key=lambda pick: pick[1].relevance)
        yield f"{weakest.paper.abstract.split('. ')[0]} [{number}]."


@pytest.mark.parametrize(
    "question",
    [
        "Which paper shows what adaptive optimizers like Adam implicitly minimize near the "
        "minimizer manifold, unlike SGD with label noise?",
        "What do adaptive optimizers like Adam implicitly minimize near the minimizer manifold?",
    ],
)
def test_an_answer_from_a_clearly_weaker_paper_is_the_leading_paper(
    seed_index, retriever, question
):
    fake = CopiesTheWeakest()
    answer = list(Answerer(seed_index, retriever=retriever, backend=fake).ask(question))[-1]
    shown = sorted(fake.prompts[-1].sources, key=lambda s: -s.relevance)
    assert shown[0].relevance - shown[-1].relevance >= 0.1  # the draft cites a weaker paper
    assert [c.title for c in answer.citations] == [shown[0].paper.title]
    assert answer.citations[0].title.startswith("Adam Reduces a Unique Form of Sharpness")


def test_names_coined_inside_an_abstract_are_names_and_title_words_are_not():
    from rag.sentences import coined_names

    abstract = "Few-Shot learning is hard. We propose Warm-Stagger, which uses Multi-Source data."
    assert coined_names(abstract) == {"Warm-Stagger", "Multi-Source"}


class Judged(FakeBackend):
    """Restates the question as the first source's contribution; asked to judge, says `verdict`."""

    def __init__(self, verdict: str):
        super().__init__()
        self.verdict, self.judged = verdict, []

    def stream(self, prompt):
        from rag.answer.prompts import JUDGE_SYSTEM

        if prompt.messages[0].content == JUDGE_SYSTEM:
            self.judged.append(prompt.messages[1].content)
            yield self.verdict
            return
        self.prompts.append(prompt)
        restated = prompt.question[0].lower() + prompt.question[1:]
        yield f"{prompt.sources[0].paper.title} {restated} [1]."


class CopiesTheExample(Judged):
    """Cites the first source for the prompt's own example, as a small model at a loss does."""

    def stream(self, prompt):
        if not prompt.sources:  # asked to judge
            yield from super().stream(prompt)
            return
        self.prompts.append(prompt)
        title = prompt.sources[0].paper.title
        yield f"{title} speeds up matrix multiplication with tiled GPU kernels [1]."


HYBRID_IL = "Interactive and Hybrid Imitation Learning: Provably Beating Behavior Cloning"


@pytest.mark.parametrize("verdict", ["Yes", "No"])
def test_a_draft_nothing_supports_answers_with_the_paper_that_clearly_leads_if_judged_so(
    seed_index, retriever, verdict
):
    """The question describes one paper far better than any other; the draft says nothing its
    abstract supports. The paper's own sentence closest to the question answers, unless the
    model, asked whether the abstract answers the question, says No."""
    question = (
        "an imitation learning method that mixes a fixed set of expert demonstrations with "
        "interactive expert labels"
    )
    fake = CopiesTheExample(verdict)
    answer = list(Answerer(seed_index, retriever=retriever, backend=fake).ask(question))[-1]
    assert [s.paper.title for s in fake.prompts[0].sources][0] == HYBRID_IL
    assert len(fake.judged) == 1 and HYBRID_IL in fake.judged[0]
    if verdict == "No":
        assert answer.abstained and any(HYBRID_IL in notice for notice in answer.notices)
        return
    assert not answer.abstained and [c.title for c in answer.citations] == [HYBRID_IL]
    (line,) = answer.sentences
    assert "matrix multiplication" not in line.text and line.supported
    assert line.text.removeprefix(f"{HYBRID_IL}: ").rstrip(".") in answer.sources[0].paper.abstract


@pytest.mark.parametrize(
    "question",
    [
        "How does BayesCoxCP price products?",  # names its paper: the draft was wrong about it
        "How do continual learning methods avoid catastrophic forgetting?",  # none clearly leads
    ],
)
def test_a_draft_nothing_supports_is_withheld_when_no_unnamed_paper_clearly_leads(
    seed_index, retriever, question
):
    fake = CopiesTheExample("Yes")
    answer = list(Answerer(seed_index, retriever=retriever, backend=fake).ask(question))[-1]
    assert any("withheld" in notice for notice in answer.notices) and fake.judged == []
    # the draft is not shown: a decline, or (the paper named) its abstract's own sentences
    assert answer.abstained or ("BayesCoxCP" in question and Reason.EXTRACTED in answer.reasons)


@pytest.mark.parametrize("verdict", ["No.", "Yes"])
def test_a_paper_given_to_which_paper_is_shown_only_if_the_model_says_it_answers(
    seed_index, retriever, verdict
):
    """ "EvA: Evolutionary Attacks on Graphs makes GNNs provably robust ..." restates the
    question (EvA's abstract uses all its key words); the model, shown EvA's passage, is asked
    whether it answers it."""
    question = "Which paper makes graph neural networks provably robust to edge perturbations?"
    fake = Judged(verdict)
    answer = list(Answerer(seed_index, retriever=retriever, backend=fake).ask(question))[-1]
    (judged,) = fake.judged
    assert question in judged and "EvA" in judged
    assert answer.abstained is (verdict == "No.")
    if answer.abstained:
        assert any("EvA: Evolutionary Attacks on Graphs" in notice for notice in answer.notices)


@pytest.mark.parametrize("verdict", ["No", "Yes."])
def test_a_list_of_one_paper_is_shown_only_if_the_model_says_it_answers(
    seed_index, retriever, verdict
):
    """A list that names a single paper is an answer to "which paper": it is judged too."""
    question = "Which papers study attacks on machine learning models?"
    fake = Judged(verdict)
    answer = list(Answerer(seed_index, retriever=retriever, backend=fake).ask(question))[-1]
    assert fake.prompts == []  # the list itself is written without the model
    (judged,) = fake.judged
    assert question in judged
    assert answer.abstained is (verdict == "No")


def test_a_list_of_one_with_a_broken_model_is_shown_saying_it_was_not_checked(
    seed_index, retriever
):
    from rag.errors import RagError

    class Broken(FakeBackend):
        def stream(self, prompt):
            raise RagError("the model server is down")

    question = "Which papers study attacks on machine learning models?"
    answerer = Answerer(seed_index, retriever=retriever, backend=Broken())
    answer = list(answerer.ask(question))[-1]
    assert not answer.abstained and len(answer.citations) == 1
    assert any("relevance check failed" in notice for notice in answer.notices)


@pytest.mark.parametrize(
    ("question", "kept"),
    [
        (
            "What do adaptive optimizers like Adam implicitly minimize near the minimizer manifold?",
            1,
        ),
        ("How do continual learning methods avoid catastrophic forgetting?", 2),  # none leads
    ],
)
def test_an_answer_keeps_only_the_paper_that_clearly_leads_the_others_it_cites(
    seed_index, retriever, question, kept
):
    """The fake cites a true first sentence of each of the first two sources."""
    fake = FakeBackend()
    answer = list(Answerer(seed_index, retriever=retriever, backend=fake).ask(question))[-1]
    first, second = fake.prompts[0].sources[:2]
    assert (first.relevance - second.relevance >= 0.1) is (kept == 1)
    assert [c.title for c in answer.citations] == [first.paper.title, second.paper.title][:kept]


def test_the_model_judges_in_its_side_process_so_the_answer_prompt_stays_cached(
    seed_index, retriever
):
    """A local model keeps one prompt's start cached per process: the judge's prompt goes to
    the process for side tasks, never to the one that answers."""

    class Answers(Judged):
        def __init__(self):
            super().__init__("No")
            self.side = Judged("No")

        def side_tasks(self):
            return self.side

    fake = Answers()
    question = "Which paper makes graph neural networks provably robust to edge perturbations?"
    answer = list(Answerer(seed_index, retriever=retriever, backend=fake).ask(question))[-1]
    assert fake.side.judged and not fake.judged and answer.abstained
    assert len(fake.prompts) == 1 and not fake.side.prompts  # the answer, and nothing else


@pytest.mark.parametrize(
    ("question", "alternatives"),
    [
        ("sharpness / flat minima papers?", ["sharpness", "flat minima papers"]),
        ("pricing or assortment selection papers", ["pricing", "assortment selection papers"]),
        (
            "Which papers focus on continual learning, i.e. learning tasks without forgetting?",
            ["focus on continual learning", "learning tasks without forgetting"],
        ),
        (
            "Bayesian papers, e.g. Bayesian optimization",
            ["Bayesian papers", "Bayesian optimization"],
        ),
        # under a negation, alternatives are what a paper must not be
        ("rl papers? (actual reinforcement learning, not imitation learning or bandits)", []),
        ("anything on code generation w/ llms", []),  # "w/" is "with"
        (  # a series of single words: the phrase around it goes with each
            "papers where the learner can query an expert / oracle / human while learning",
            [
                "papers where the learner can query an expert",
                "papers where the learner can query an oracle",
                "papers where the learner can query an human while learning",
            ],
        ),
        (  # a topic, then its examples ending in "etc"
            "ideas from neuroscience - synapses, hebbian rules, spiking neurons etc",
            ["ideas from neuroscience", "synapses", "hebbian rules", "spiking neurons"],
        ),
        (
            "any pricing / assortment / revenue mgmt type papers",
            ["any pricing", "any assortment", "any revenue mgmt type papers"],
        ),
        (
            "Which papers address the stability-plasticity trade-off?",
            ["Which papers address the stabilityplasticity tradeoff?"],
        ),
    ],
)
def test_a_question_offering_alternatives_has_each_as_a_reading(question, alternatives):
    from rag.answer.intent import alternatives_of

    assert alternatives_of(question) == alternatives


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Which abstracts include a GitHub link to their code?", True),
        ("papers with code available?", True),
        ("any papers that release their code", True),
        ("Which papers are open-source?", True),
        ("Which papers say their code or a software package is publicly available?", True),
        ("Which papers study software engineering?", False),
        ("Which papers study code generation?", False),
        ("Which papers are publicly funded?", False),
    ],
)
def test_a_question_for_papers_linking_to_their_code_is_told_apart(question, asks):
    from rag.answer.intent import classify

    assert classify(question).asks_code is asks


def test_a_misspelt_framing_word_is_read_right_and_an_english_word_is_left_alone():
    from rag.answer.intent import classify
    from rag.answer.wording import framed_right

    english = {"taper", "spiking", "neural", "network", "quick", "the", "of", "fire"}.__contains__
    assert framed_right("spiking neural network papres?", english) == (
        "spiking neural network papers?"
    )
    assert framed_right("quick summry of the FIRE paper", english) == (
        "quick summary of the FIRE paper"
    )
    assert framed_right("which ones taper the rate", english) == "which ones taper the rate"
    assert classify(framed_right("spiking neural network papres?", english)).is_list


def test_a_trade_off_asked_at_what_cost_is_no_detail_and_a_trailing_anything_asks_for_papers():
    asked = classify("How much faster is MASKER, and at what cost in error?")
    assert not asked.details
    assert classify("what did MASKER cost to train").details == {"cost"}
    assert classify("quantum error correction w/ neural decoders, anything?").is_list
    assert classify("spiking nets for optical flow - any papers?").is_list
