"""Every claim as its abstract states it: names checked as names (rag.answer.naming and the
stated_names check), summaries, contributions and comparisons made of the papers' own sentences
(rag.answer.roles), "the first two" resolved, the passage format never copied into an answer,
and the ungrounded-names metric. Hand-made papers and a word-overlap embedder: fast."""

import pytest

from rag.answer.checking import CHECKS
from rag.answer.checks.names import StatedNames
from rag.answer.citations import parse_sentence
from rag.answer.conversation import by_description, fits_none, scope_of_follow_up
from rag.answer.draft import Draft
from rag.answer.intent import Kind, carries_on, classify, refers_back
from rag.answer.naming import names_in, ungrounded, unstated_by_cited
from rag.answer.prompts import without_prompt_format
from rag.answer.roles import composed, naming_sentence, naming_sentences, roles, shaped_papers
from rag.answer.shapes import shape_of
from rag.answer.verdict import Reason
from rag.evaluate import ungrounded_names
from rag.models import Message
from tests.test_checks import claim, reasons, review_of, source

REINIT = source(
    1,
    "REINIT: Reinitialization for Plastic Networks",
    "Networks trained on changing data lose plasticity. Existing resets are hard to tune and "
    "fail to restore it. We propose REINIT, a reinitialization that balances stability and "
    "plasticity. REINIT is evaluated on CIFAR-10 with ResNet-18, OpenWebText and Atari games. "
    "Experiments show that REINIT outperforms standard resets in every domain. Code is "
    "available at https://example.org/reinit.",
    named=True,
)
PRICER = source(
    2,
    "PRICER: Bayesian Dynamic Pricing",
    "Dynamic pricing must learn demand from sales. However, prices are discrete. We introduce "
    "PRICER, a Bayesian pricing method built on large language models. It achieves lower regret "
    "than prior methods.",
    named=True,
)


@pytest.mark.parametrize(
    "question, shape",
    [
        ("Summarize the paper on plastic networks", "summary"),
        ("give me an overview of REINIT", "summary"),
        ("tl;dr of the REINIT paper", "summary"),
        ("what is REINIT about?", "summary"),
        ("that paper on plastic networks - whats it about", "summary"),
        ("the plastic networks paper: what is it about?", "summary"),
        ("quick summry of the REINIT paper", "summary"),
        ("eli5 the REINIT paper", "summary"),
        ("Could you outline the paper about plastic networks?", "summary"),
        ("What does PRICER propose?", "contribution"),
        ("what does REINIT do", "contribution"),
        ("wat does REINIT introduce", "contribution"),
        ("reinit key idea?", "contribution"),
        ("What is proposed in the REINIT work on plastic networks?", "contribution"),
        ("plastic networks paper, whats the new idea", "contribution"),
        ("whats REINIT's reset trick exactly", "contribution"),
        ("what does smith et al's plasticity paper find about resets", None),  # the sentence on it
        ("Break down the REINIT paper for me", "summary"),
        ("In a nutshell, what does REINIT do?", "summary"),  # the summary word wins
        ("tell me about reinit", "summary"),
        ("What do Smith, Jones and Lee show about plastic networks?", "contribution"),
        ("What is the main result of the REINIT paper?", "contribution"),
        (
            "What new pricing method do the PRICER authors propose for dynamic pricing?",
            "contribution",
        ),
        ("What does the paper asking whether networks stay plastic establish?", "contribution"),
        ("Compare REINIT and PRICER", "comparison"),
        ("the two pricing papers, how are they different", "comparison"),
        ("How does the REINIT paper relate to the PRICER paper on regret?", "comparison"),
        ("how does REINIT differ from PRICER?", "comparison"),
        ("REINIT vs PRICER", "comparison"),
        ("how is REINIT different from the pricing paper", "comparison"),
        ("What distinguishes REINIT from PRICER?", "comparison"),
        ("How does REINIT handle different domains?", None),
        ("What datasets does REINIT evaluate on?", "names"),
        ("which benchmarks did they use", "names"),
        ("what models does REINIT evaluate", "names"),
        ("Give me a short summary of the Πnet paper.", "summary"),
        ("models + datasets in the REINIT paper?", "names"),
        ("Which architectures and datasets was REINIT benchmarked on?", "names"),
        ("reinit - which architectures n datasets", "names"),
        ("models/datasets in the reinit paper?", "names"),
        ("what archs were used in the folding vs pruning study, and which datasets", "names"),
        ("how does the folding vs pruning study compare to REINIT", "comparison"),
        ("the folding paper vs the pruning study", "comparison"),
        ("tl;dr of the paper comparing weight folding w/ pruning", "summary"),
        ("compare the gradient vs hessian queries paper w/ the newton one", "comparison"),
        ("how does the microscopy one compare to the sparse mask one", "comparison"),
        ("how does the paper that compares X with Y differ from REINIT", "comparison"),
        (
            "What is the Lovelace paper on inferring how a network's outputs change with its "
            "hyperparameters about?",
            "summary",
        ),
        ("Which work models how weights evolve during test-time adaptation?", None),  # a verb
        ("what diffusion model does REINIT use to synthesize audio", None),  # taken for granted
        ("How does REINIT balance stability and plasticity?", None),
        ("What learning rate does REINIT use, compared with SGD?", None),
        ("reinit whats the contribution", "contribution"),
        ("REINIT and PRICER, what do they have in common", "comparison"),
        ("reinit and pricer - what do they share and how r they different", "comparison"),
        ("Which model architectures are covered by the checkpoints of REINIT?", "names"),
        ("Which model architectures are covered in the folding-versus-pruning study?", "names"),
        ("besides adam which optimizers does the sharpness paper cover", "names"),
        ("which other optimizers besides Adam does REINIT cover", "names"),
        ("which optimizers lead to plastic networks", None),  # no paper asked of
        ("Besides Adam, which adaptive optimizers does REINIT's analysis apply to?", "names"),
        ("which existing permutation sgd algos does REINIT cover", "names"),
        ("What method does REINIT propose?", "contribution"),
        ("which methods do papers use for pruning", None),
        ("What are the contributions?", "contribution"),
    ],
)
def test_the_shape_an_answer_is_asked_for(question, shape):
    assert shape_of(question) == shape


@pytest.mark.parametrize(
    "question, parts",
    [
        (
            "model folding vs transposable N:M masks, how do these two papers differ",
            ["model folding", "transposable N:M masks"],
        ),
        (
            "the sharpness paper vs the bilevel SAM/GAN paper: what do they say",
            ["the sharpness paper", "the bilevel SAM/GAN paper"],
        ),
        (
            "How do the pricing paper and the bandit paper differ in their guarantees?",
            ["the pricing paper", "the bandit paper"],
        ),
        (
            "compare the sharpness paper with the bilevel one",
            ["the sharpness paper", "the bilevel one"],
        ),
        ("which papers compare folding with pruning", []),
    ],
)
def test_a_comparison_describes_its_two_papers_apart(question, parts):
    from rag.answer.shapes import compared_parts

    assert compared_parts(question) == parts


def test_a_follow_up_asking_its_own_question_does_not_inherit_the_earlier_shape():
    asked = classify("what's the speedup", "tell me about REINIT what's the speedup")
    assert asked.shape is None
    carried = classify("and PRICER?", "summarize REINIT and PRICER?")
    assert carried.shape == "summary"  # "and X?" asks for the same


def test_a_summary_fragment_is_no_list():
    intent = classify("REINIT summary")
    assert not intent.is_list and intent.kind == Kind.SUMMARY


def test_an_abstract_s_problem_contribution_and_result():
    found = roles(REINIT.paper)
    assert found.problem.startswith("Existing resets are hard to tune")
    assert found.contribution.startswith("We propose REINIT")
    assert found.result.startswith("Experiments show")  # the code link is no result
    outlook = REINIT.paper.abstract.replace(
        "Code is", "Overall, our results highlight the potential of REINIT. Code is"
    )
    measured = REINIT.paper.model_copy(update={"abstract": outlook})
    assert roles(measured).result.startswith("Experiments show")  # a measured result, not hopes


def test_a_summary_is_the_paper_s_own_problem_method_and_result_each_cited():
    draft = Draft(intent=classify("Summarize REINIT"), backend="test")
    answer = composed("summary", [REINIT], draft)
    lines = answer.text.split("\n")
    assert len(lines) == 4 and all(line.endswith("[1].") for line in lines)
    assert lines[0].startswith("REINIT: Reinitialization for Plastic Networks — problem: Existing")
    assert lines[1].startswith("Contribution: We propose REINIT")
    assert lines[2].startswith("Also: REINIT is evaluated")  # it says more of the method
    assert lines[3].startswith("Result:")
    assert answer.citations[0].evidence.startswith("We propose REINIT")
    assert all(s.supported for s in answer.sentences) and not answer.abstained


def test_a_summary_says_background_where_no_sentence_states_a_problem():
    """The first sentence of an abstract that states no problem before its proposal is labelled
    background; a problem stated in a later clause ("... still depend on ...") is the problem."""
    brain = source(
        7,
        "SYN: Homeostatic Decoding",
        "The human brain balances stability and plasticity through homeostasis. Inspired by this, "
        "we propose SYN, a framework for continual EEG decoding. SYN is validated on three EEG "
        "datasets.",
        named=True,
    )
    answer = composed("summary", [brain], Draft(intent=classify("Summarize SYN"), backend="t"))
    assert answer.text.startswith("SYN: Homeostatic Decoding — background: The human brain")
    assert answer.text.split("\n")[-1].startswith("Result: SYN is validated")
    still = brain.paper.model_copy(
        update={
            "abstract": "Models are large. Prior work compresses linear layers, but nonlinear "
            "layers still depend on floating point. We propose SYN, a framework for them."
        }
    )
    assert roles(still).problem.startswith("Prior work compresses linear layers")


def test_what_a_paper_proposes_is_its_contribution_sentence_highlighted():
    draft = Draft(intent=classify("What does PRICER propose?"), backend="test")
    answer = composed("contribution", [PRICER], draft)
    assert answer.text == (
        "PRICER: Bayesian Dynamic Pricing: We introduce PRICER, a Bayesian pricing method built "
        "on large language models [1].\nIt achieves lower regret than prior methods [1]."
    )  # the sentence going on about it ("It ...") follows
    assert answer.citations[0].evidence.startswith("We introduce PRICER")


def test_a_comparison_states_each_paper_under_its_own_citation():
    intent = classify("Compare REINIT and PRICER")
    papers = shaped_papers(intent, [REINIT, PRICER])
    answer = composed("comparison", papers, Draft(intent=intent, backend="test"))
    by_paper = {c.number: c.title for c in answer.citations}
    assert sorted(by_paper.values()) == sorted([REINIT.paper.title, PRICER.paper.title])
    for sentence in answer.sentences:
        (number,) = sentence.citations
        name = by_paper[number].split(":")[0]
        assert name in sentence.text or "REINIT" not in sentence.text  # never the other's claim
    one = REINIT.model_copy(update={"named": True})
    unrelated = PRICER.model_copy(update={"named": False, "relevance": 0.2})
    assert shaped_papers(intent, [one, unrelated]) == []  # one paper is no comparison
    described = PRICER.model_copy(update={"named": False, "relevance": 0.45})
    assert shaped_papers(intent, [one, described]) == [one, described]  # "the paper on X"


def test_a_comparison_of_papers_described_as_a_group_is_no_list_unless_it_asks_for_papers():
    described = classify("plasticity papers - how do the reset one and the pricing one differ")
    assert described.shape == "comparison" and not described.is_list
    assert classify("which papers compare resets with pricing?").is_list
    first = REINIT.model_copy(update={"relevance": 0.45, "named": False})
    other = source(3, "Other", "Else.", relevance=0.5)
    best = PRICER.model_copy(update={"relevance": 0.7, "named": False})
    assert shaped_papers(described, [first, other, best]) == [best, other]  # most relevant two


def test_what_a_paper_shows_is_its_contribution_and_result():
    draft = Draft(intent=classify("What does REINIT show about plasticity?"), backend="test")
    answer = composed("contribution", [REINIT], draft)
    said = [s.text.split(": ")[-1][:20] for s in answer.sentences]
    assert said == ["We propose REINIT, a", "REINIT is evaluated ", "Experiments show tha"]
    proposes = Draft(intent=classify("What does REINIT propose?"), backend="test")
    said = [
        s.text.split(": ")[-1][:20] for s in composed("contribution", [REINIT], proposes).sentences
    ]
    assert said == ["We propose REINIT, a", "REINIT is evaluated ", "Experiments show tha"]


def test_a_contribution_is_the_main_one_with_its_result():
    """ "Our main result is ..." is the contribution whatever verb the question asks with; a
    proposal added to it ("Additionally, we propose ...") is not, even asked with its verb; a
    closing "Together, these results ..." is the result only when no other is stated."""
    theory = source(
        13,
        "Queries",
        "We study learning ReLUs. Our main result is an efficient learner with few queries. "
        "We complement it by showing that the bound is near-optimal. Finally, we establish "
        "that queries are necessary. Together, these results settle the question.",
    )
    found = roles(theory.paper, verb="establish")
    assert found.contribution.startswith("Our main result")
    assert found.result == "Finally, we establish that queries are necessary."
    suggests = theory.paper.abstract.replace(
        "Together, these results settle", "These findings suggest that queries settle"
    )
    found = roles(theory.paper.model_copy(update={"abstract": suggests}))
    assert found.result == "Finally, we establish that queries are necessary."
    molecules = source(
        14,
        "Molecules",
        "Localization needs sparse emitters. In this work, we derive a loss that removes NMS. "
        "Additionally, we propose an iterative network. Experiments show that both help.",
    )
    assert roles(molecules.paper, verb="propos").contribution.startswith("In this work")
    own = source(15, "QNN", "Theory is lacking. We propose a model and prove that it is universal.")
    assert roles(own.paper).antecedent == ""  # "it" is the model it proposes


def test_a_comparison_gives_each_paper_s_sentence_on_what_it_asks_about():
    """ "Compare their regret": the sentence of each paper on regret, after what it proposes;
    none from its background, none when the question asks about nothing but the papers."""
    pricer = source(
        2,
        "PRICER: Bayesian Dynamic Pricing",
        "Pricing must learn demand. However, regret is hard to bound. We introduce PRICER, a "
        "Bayesian pricing method. Its regret is bounded by O(sqrt(T)). Experiments show that "
        "PRICER outperforms baselines by 12%.",
        named=True,
    )
    intent = classify("Compare REINIT and PRICER in terms of regret")
    answer = composed("comparison", [REINIT, pricer], Draft(intent=intent, backend="test"))
    assert "In particular: Its regret is bounded by O(sqrt(T)) [2]." in answer.text
    assert "hard to bound" not in answer.text  # background
    assert "In particular" not in answer.text.split("PRICER")[0]  # REINIT says nothing of it
    lost = classify("Compare REINIT and PRICER: how do they deal with losing plasticity?")
    answer = composed("comparison", [REINIT, PRICER], Draft(intent=lost, backend="test"))
    assert "lose plasticity" not in answer.text  # REINIT's background sentence
    plain = classify("Compare REINIT and PRICER")
    answer = composed("comparison", [REINIT, PRICER], Draft(intent=plain, backend="test"))
    assert "In particular" not in answer.text
    # the paper's name typed in lowercase is an aspect word its contribution uses too: the
    # sentence on regret is still given, not the contribution again
    typed = classify("reinit vs pricer, regret wise")
    answer = composed("comparison", [REINIT, pricer], Draft(intent=typed, backend="test"))
    assert "In particular: Its regret is bounded by O(sqrt(T)) [2]." in answer.text


def test_a_summary_gives_what_a_paper_shows_before_it_proposes_in_at_most_four_lines():
    """ "We show that ..." before the contribution is a finding; past four lines, the
    background and the method's detail are left out."""
    flow = source(
        8,
        "Randomized Flows",
        "Flows are used for optimization. However, for short times they only match gradient "
        "descent. We show that randomizing the time accelerates the flow. We prove that FLOW "
        "attains Nesterov's rates. FLOW runs on GPUs with a fused kernel. Experiments show that "
        "FLOW is 2x faster.",
        named=True,
    )
    answer = composed("summary", [flow], Draft(intent=classify("Summarize FLOW"), backend="t"))
    labels = [line.split(": ")[0].split(" — ")[-1] for line in answer.text.split("\n")]
    assert labels == ["problem", "Finding", "Contribution", "Result"]
    found = Draft(intent=classify("what does FLOW show about time"), backend="t")
    first = composed("contribution", [flow], found).sentences[0].text
    assert first.startswith("Randomized Flows: We show that randomizing")  # what it found
    assert "randomizing the time" in answer.text and "fused kernel" not in answer.text


def test_what_datasets_lists_the_sentence_naming_them():
    assert naming_sentence(REINIT.paper).startswith("REINIT is evaluated on CIFAR-10")
    assert naming_sentence(PRICER.paper) == ""  # names no dataset: left to the normal path
    one = source(3, "Shapes", "We learn shapes. We validate it on the infinite dSprites dataset.")
    assert naming_sentence(one.paper) == "We validate it on the infinite dSprites dataset."
    field = source(4, "Waves", "We decode brains. It is validated on three EEG datasets.")
    assert naming_sentence(field.paper) == ""  # 'EEG' says what the data are, not which
    # no sentence on evaluation names anything: the one listing names does
    listed = "Our proof covers adaptive methods, including RMSProp, Adam-mini, and Adalayer."
    proof = source(6, "Sharp Adam", f"We prove Adam reduces sharpness. {listed}")
    assert naming_sentence(proof.paper) == listed
    single = source(7, "Sharp Adam", "We prove it for adaptive methods, such as RMSProp.")
    assert naming_sentence(single.paper) == ""  # one name is no list
    # the next sentence saying what else it was run on comes with it
    two = source(
        5,
        "Masks",
        "We prune. It is tested on Wanda, SparseGPT and ALPS. Masks matter. Experiments show that "
        "LLaMA3.2-8B keeps its accuracy.",
    )
    assert naming_sentences(two.paper) == [
        "It is tested on Wanda, SparseGPT and ALPS.",
        "Experiments show that LLaMA3.2-8B keeps its accuracy.",
    ]
    assert naming_sentences(REINIT.paper) == [naming_sentence(REINIT.paper)]
    groups = source(  # formulas name things too
        6,
        "Groups",
        "We learn groups. We validate it on the infinite dSprites dataset. On synthetic data, we "
        "further validate it on the orthogonal group $O(n)$ and the linear group $GL(n)$.",
    )
    assert naming_sentences(groups.paper)[1].endswith("the linear group $GL(n)$.")


def test_the_x_one_is_the_paper_of_the_earlier_answer_its_words_describe():
    third = source(3, "Graph Attacks on Citation Networks", "We attack graphs with microscopes.")
    third.paper.authors = ["Ada Hazan"]
    papers = [REINIT.paper, PRICER.paper, third.paper]
    assert by_description("what does the hazan one prove", papers) == {"p3"}
    assert by_description("the microscopy one vs the pricing one", papers) == {"p3", "p2"}
    assert by_description("which of those is the quantum one", papers) is None  # none uses it
    assert by_description("what does the first one prove", papers) is None
    assert fits_none("what does the lecun one prove", papers)  # a paper none of them is
    assert not fits_none("what does the hazan one prove", papers)
    assert not fits_none("what does the first one prove", papers)
    assert not fits_none("how do the first and second ones differ?", papers)
    assert refers_back("what does the hazan one prove")
    assert refers_back("how is that different from the model folding paper")
    assert refers_back("how does SAFA-SNN compare to that?")
    assert not refers_back("what is the difference between FIRE and AnaCP")
    assert refers_back("tldr of that one") and refers_back("summarize how that approach works")
    assert not refers_back("what approach does FIRE take")
    assert refers_back("hows that different from the relu regression w/ queries paper")
    assert refers_back("How does the method work?") and refers_back("limits of the approach?")
    assert not refers_back("which paper has the method that beats Adam")
    assert refers_back("ok and how does the algorithm work")
    assert not refers_back("Which paper uses RL to train the model?")
    assert shape_of("How do the Jiang et al. paper and the SepNN paper each deal with X?") == (
        "comparison"
    )
    assert shape_of("do FIRE and AnaCP cite each other") is None
    assert carries_on("does the proof cover other optimizers too? which ones")
    for counted in (
        "Which two control tasks were used to compare X against Y?",
        "list the 5 datasets X uses",
    ):
        assert shape_of(counted) == "names", counted  # names of what it counts, whatever the verb
    assert shape_of("which two papers compare pruning and folding") == "comparison"
    assert not classify("list the 5 datasets X uses", named={"p1"}).is_list  # one paper's names
    assert not carries_on("is it too slow for large graphs")
    chosen = classify("which of those is the pricing one and how does it work", scope={"p2"})
    assert not chosen.is_list  # one paper chosen: answered about it, not listed


def test_the_first_two_are_the_first_two_papers_of_the_earlier_answer():
    third = source(3, "Graph Attacks on Citation Networks", "We attack graphs.")
    papers = [REINIT.paper, PRICER.paper, third.paper]
    answer = (
        "Graph Attacks on Citation Networks: We attack graphs [1].\n"
        "REINIT: Reinitialization for Plastic Networks: We propose REINIT [2].\n"
        "PRICER: Bayesian Dynamic Pricing: We introduce PRICER [3]."
    )
    history = [Message(role="user", content="q"), Message(role="assistant", content=answer)]
    assert scope_of_follow_up("compare the first two", history, papers) == {"p3", "p1"}
    assert scope_of_follow_up("what does the last one propose?", history, papers) == {"p2"}
    assert scope_of_follow_up("how do the first and second ones differ?", history, papers) == {
        "p3",
        "p1",
    }
    assert scope_of_follow_up("compare the first paper with the last one", history, papers) == {
        "p3",
        "p2",
    }
    assert scope_of_follow_up("which of those attack graphs?", history, papers) == {
        "p1",
        "p2",
        "p3",
    }


def test_names_are_acronyms_camel_case_alphanumerics_and_capitals_inside_a_sentence():
    sentence = "In our tests, REINIT beats Adam on ImageNet, GPT-4 and MNIST with Atari games."
    assert names_in(sentence) == ["REINIT", "Adam", "ImageNet", "GPT-4", "MNIST", "Atari"]


def test_a_name_the_cited_abstract_does_not_state_is_ungrounded():
    invented = "REINIT is evaluated on MNIST, CIFAR-10 and ImageNet."
    assert ungrounded(invented, [REINIT]) == ["MNIST", "ImageNet"]
    assert ungrounded("PRICER builds on LLMs.", [PRICER]) == []  # initials of its words
    assert ungrounded("REINIT reaches 97.5% accuracy.", [REINIT]) == ["97.5"]
    question = "Does REINIT use ImageNet?"
    assert ungrounded("REINIT uses ImageNet.", [REINIT], question) == ["ImageNet"]
    assert ungrounded("The abstract does not mention ImageNet.", [REINIT], question) == []
    not_only = "REINIT not only uses ImageNet but also beats baselines."  # no denial
    assert ungrounded(not_only, [REINIT], question) == ["ImageNet"]


def test_a_sentence_naming_what_its_paper_does_not_state_is_rewritten_or_left_out():
    question = classify("What datasets does REINIT evaluate on?")
    rewritable = claim("REINIT is evaluated on MNIST with ResNet-18 and Atari games.", 1)
    review = review_of(question, [REINIT], [rewritable])
    verdicts = StatedNames().run(review)
    assert reasons(verdicts) == [Reason.RESTATED_NAMES]  # its own sentence says what it meant
    assert review.sentences[0].text.startswith("REINIT: Reinitialization for Plastic Networks: ")
    assert "CIFAR-10" in review.sentences[0].text and "MNIST" not in review.sentences[0].text
    invented = claim("It was trained by Zorblax on ImageNet.", 1)
    review = review_of(question, [REINIT], [invented, claim("We propose REINIT.", 1)])
    verdicts = StatedNames().run(review)
    assert reasons(verdicts) == [Reason.UNSTATED_NAMES] and verdicts[0].outcome == "note"
    assert "'Zorblax'" in verdicts[0].detail and "'ImageNet'" in verdicts[0].detail
    assert [s.text for s in review.sentences] == ["We propose REINIT."]


def test_each_paper_a_sentence_cites_must_state_what_the_sentence_says_of_it():
    both, _ = parse_sentence("REINIT and PRICER both use CIFAR-10 and LLMs [1][2].", 2)
    assert both.parts == []  # one run of markers: all of it cites both papers
    cited = {1: REINIT, 2: PRICER}
    assert unstated_by_cited(both, cited, [REINIT, PRICER]) == ["LLMs", "CIFAR-10"]
    each, _ = parse_sentence("REINIT uses CIFAR-10 [1], while PRICER builds on LLMs [2].", 2)
    assert [numbers for _, numbers in each.parts] == [[1], [2]]
    assert unstated_by_cited(each, cited, [REINIT, PRICER]) == []
    swapped, _ = parse_sentence("REINIT builds on LLMs [1], while PRICER uses CIFAR-10 [2].", 2)
    assert unstated_by_cited(swapped, cited, [REINIT, PRICER]) == ["LLMs", "CIFAR-10"]
    edited = each.model_copy(update={"text": "REINIT uses MNIST."})  # parts no longer its text
    assert unstated_by_cited(edited, cited, [REINIT, PRICER]) == ["MNIST"]


def test_numbers_inside_names_are_no_figures():
    assert ungrounded("REINIT is tested on 10 datasets.", [REINIT]) == ["10"]  # not CIFAR-10's
    assert ungrounded("REINIT is tested on CIFAR-10.", [REINIT]) == []


def test_a_name_only_one_cited_paper_states_is_restated_from_that_paper():
    question = classify("How do REINIT and PRICER relate?")
    both = claim("Both improve on Atari games with ResNet-18.", 1, 2)
    review = review_of(question, [PRICER, REINIT], [both])
    verdicts = StatedNames().run(review)
    assert reasons(verdicts) == [Reason.RESTATED_NAMES]
    assert review.sentences[0].citations == [2]  # REINIT's own sentence, cited to REINIT only
    assert review.sentences[0].text.startswith("REINIT: Reinitialization for Plastic Networks: ")


def test_the_names_check_runs_after_support_and_before_a_draft_is_withheld():
    names = [type(check).__name__ for check in CHECKS]
    assert names.index("Support") < names.index("StatedNames") < names.index("Withheld")


@pytest.mark.parametrize(
    "copied, clean",
    [
        ("Venue: NeurIPS 2025 Text: REINIT resets weights [1].", "REINIT resets weights [1]."),
        (
            "Authors: A. Author, B. Writer Venue: ICLR 2026 · Applications Text: We propose X [2].",
            "We propose X [2].",
        ),
        ("[1] Title: REINIT Text: REINIT resets weights [1].", "REINIT REINIT resets weights [1]."),
        ("REINIT changes the venue of training.", "REINIT changes the venue of training."),
    ],
)
def test_the_passage_format_is_not_copied_into_an_answer(copied, clean):
    assert without_prompt_format(copied) == clean


def test_eval_counts_sentences_naming_what_neither_abstract_nor_question_states():
    draft = Draft(intent=classify("Summarize REINIT"), backend="test")
    answer = composed("summary", [REINIT], draft)
    assert ungrounded_names(answer)[:2] == (4, 0)  # each line names REINIT, all stated
    answer.sentences[1].text = "We propose REINIT and test it on MNIST."
    naming, flawed, things = ungrounded_names(answer)
    assert (naming, flawed) == (4, 1) and things[0].startswith("MNIST")


def test_a_paper_s_own_name_matches_as_typed_a_dataset_it_uses_does_not():
    from rag.retrieve.metadata import MetadataIndex

    papers = [REINIT.paper, PRICER.paper]
    names = {"REINIT": ["p1"], "CLVS": ["p2"], "ImageNet": ["p2"]}
    index = MetadataIndex(papers, names)
    abstracts = {"p2": "We propose Class-Level View Selection (CLVS). We test it on ImageNet."}
    index.abstract_of = abstracts.get
    assert index.mentioned("summarize reinit pls") == ["p1"]  # a title's name, any case
    assert index.mentioned("clvs vs something") == ["p2"]  # introduced by its paper
    assert index.mentioned("imagenet accuracy?") == []  # only used by it
    assert index.mentioned("reinit", as_written=True) == []  # answer sentences: as written


@pytest.mark.parametrize(
    "question, is_list",
    [
        ("federated learning papers", True),
        ("spectral bias", True),
        ("REINIT summary", False),  # a shape
        ("batch size for REINIT", False),  # a detail of one paper
    ],
)
def test_a_fragment_is_a_search_unless_it_asks_about_one_paper(question, is_list):
    named = {"p1"} if "REINIT" in question and "batch" not in question else set()
    assert classify(question, named=named).is_list is is_list


def test_what_only_asks_for_a_shape_is_not_searched():
    intent = classify("Can you summarize the paper that recovers screens from reflected light?")
    assert intent.shape == "summary" and intent.query == "recovers screens from reflected light?"
    assert classify("How does REINIT work?").query == "How does REINIT work?"


def test_a_false_premise_about_a_named_paper_is_said_to_be_unstated():
    from rag.answer.about import unstated

    intent = classify("What accuracy does REINIT reach on ImageNet?", named={"p1"})
    assert unstated(intent, REINIT) == ["ImageNet"]
    stated = classify("What does REINIT report on CIFAR-10?", named={"p1"})
    assert unstated(stated, REINIT) == []


def test_names_an_abstract_only_counts_are_said_not_to_be_named():
    counted = source(
        3, "EEGNET: Decoding", "We propose EEGNET. It is validated on three EEG datasets."
    )
    for question in (
        "What are the names of the EEG datasets used to validate EEGNET?",
        "what were the three eeg datasets",  # the names path, though it names no paper
    ):
        intent = classify(question)
        assert intent.shape == "names"
        answer = composed("names", [counted], Draft(intent=intent, backend="test"))
        assert answer.abstained and answer.reason == Reason.NOT_STATED
    intent = classify("What are the names of the datasets used to validate REINIT?")
    assert composed("names", [REINIT], Draft(intent=intent, backend="test")).citations
    other = classify("What are the names of the EEG datasets used to validate EEGNET?")
    answer = composed("names", [REINIT], Draft(intent=other, backend="test"))
    assert answer.reason == Reason.NOT_STATED and "never mentions 'EEG'" in answer.text


def test_data_an_abstract_never_names_is_said_not_to_be_named():
    """ "What dataset does X evaluate on" of an abstract that names no data and speaks of none
    is not_stated; one naming what it evaluates on, or speaking of the kind, is answered."""
    unnamed_data = source(3, "ATTACKER: Graphs", "We propose ATTACKER. It scales to larger graphs.")
    intent = classify("what dataset does ATTACKER evaluate on")
    assert intent.shape == "names"
    answer = composed("names", [unnamed_data], Draft(intent=intent, backend="test"))
    assert answer.reason == Reason.NOT_STATED and "does not name the dataset" in answer.text
    counted = source(6, "COUNT: Removal", "We propose COUNT. It wins on five benchmark datasets.")
    intent = classify("list the 5 benchmark datasets used in the COUNT paper", named={"p6"})
    answer = composed("names", [counted], Draft(intent=intent, backend="test"))
    assert (
        answer.reason == Reason.NOT_STATED and "does not name the benchmark datasets" in answer.text
    )
    one = source(4, "ONE: Graphs", "We propose ONE. We evaluate it on Cora.")
    intent = classify("what dataset does ONE evaluate on")
    answer = composed("names", [one], Draft(intent=intent, backend="test"))
    assert answer is None or not answer.abstained  # None: the normal path answers
    spoken = source(5, "SPOKE: Video", "We propose SPOKE. It wins on several VideoQA datasets.")
    intent = classify("what dataset does SPOKE evaluate on")
    answer = composed("names", [spoken], Draft(intent=intent, backend="test"))
    assert answer is None or answer.reason != Reason.NOT_STATED


def test_a_typed_dataset_name_with_digits_is_a_name():
    assert names_in("anacp results on cifar-100") == ["cifar-100"]
    assert "cifar-100" in ungrounded("It reaches 90% on cifar-100.", [REINIT])


def test_a_kind_the_abstract_speaks_of_without_names_is_said_not_to_be_named():
    from rag.answer.about import unnamed

    counted = source(
        3, "EEGNET: Decoding", "We propose EEGNET. It is validated on three EEG datasets."
    )
    named = source(
        4, "NAMER: Data", "We propose NAMER. It is validated on the TUH and SEED datasets."
    )
    elsewhere = source(5, "ELSE: Data", "We propose ELSE. We evaluate it on ResNet-18.")
    intent = classify("which eeg datasets did they test on")
    assert unnamed(intent, counted) == ["datasets"]
    assert unnamed(intent, named) == []
    assert unnamed(intent, elsewhere) == []  # no sentence speaks of datasets: not decided here
    assert unnamed(classify("which models were checked"), counted) == []
    games = source(
        6, "RESET: Plasticity", "We run HumanoidBench with SAC and Atari games with DQN."
    )
    assert unnamed(classify("Which specific Atari games were used with DQN?"), games) == ["games"]
    editions = source(7, "BIT: Speech", "We set a new state of the art on the BCI ’24 benchmarks.")
    assert unnamed(classify("what benchmarks did it set sota on"), editions) == []
    scenes = source(8, "SEER: Screens", "Evaluated across four scene categories, SEER wins.")
    asked = classify("what are the 4 scene categories seer was tested on")
    assert unnamed(asked, scenes) == ["categories"]  # a generic kind: read by its describing words


def test_contrastive_is_a_topic_and_by_contrast_asks_no_comparison():
    assert classify("contrastive learning papers").topic == {"contrast", "learn"}
    assert classify("contrast FIRE with AnaCP").topic == {"fire", "anacp"}
    assert classify("summarize equivariance by contrast").shape == "summary"
    assert classify("compare and contrast FIRE and AnaCP").shape == "comparison"


def test_search_heading_a_compound_is_a_topic_and_searching_for_papers_is_not():
    assert classify("Are there any papers on neural architecture search?").topic == {
        "neural",
        "architectur",
        "search",
    }
    assert classify("search for papers on pruning").topic == {"prune"}
    assert classify("any sparsity papers").topic == {"sparsiti"}  # the frame holds the topic
    assert classify("anything on search?").topic == set()


def test_a_comparison_of_a_described_group_says_how_many_it_compares():
    from rag.answer.shapes import compared_group

    assert compared_group("How do the two quantum papers in this collection differ?") == 2
    assert compared_group("compare the pruning papers") == 3
    assert compared_group("Which papers compare Adam with SGD?") is None  # a list
    assert compared_group("compare AnaCP and FIRE") is None  # named, not described
    assert classify("how do the two quantum papers differ").topic == {"quantum"}


def test_a_premise_the_abstract_denies_is_answered_with_the_denying_sentence():
    from rag.answer.premises import contradicted

    paper = source(
        6,
        "NC: Optimizers",
        "Optimizers shape neural collapse. We prove that NC cannot emerge under decoupled "
        "weight decay, as in AdamW. Training with SGD reaches NC quickly.",
    )
    denied = contradicted(
        "Why does the paper find that decoupled weight decay speeds up the emergence of NC?",
        [paper],
    )
    assert denied and "cannot emerge" in denied[1]
    assert not contradicted("Why does the paper find that SGD reaches NC quickly?", [paper])
    assert not contradicted("Why does decoupled weight decay matter?", [paper])  # no premise


def test_a_premise_of_what_a_described_paper_studies_is_checked_against_its_abstract():
    """ "why does X <P> in the <described> paper": P is X's, checked in the paper so described;
    denied only by a sentence on X, and no premise when P itself keeps something from happening."""
    from rag.answer.premises import contradicted

    paper = source(
        6,
        "Optimizer choice matters for the emergence of Neural Collapse",
        "Optimizers shape neural collapse. We prove that NC (neural collapse) cannot emerge "
        "under decoupled weight decay, as in AdamW. Training with SGD reaches NC quickly.",
    )
    asked = "why does adamw give the strongest neural collapse in the optimizer choice paper"
    denied = contradicted(asked, [paper])
    assert denied and "cannot emerge" in denied[1]
    for question in [
        "why does SGD reach neural collapse in the optimizer choice paper",  # said of SGD
        "why does decoupled weight decay prevent neural collapse in the optimizer paper",
    ]:
        assert not contradicted(question, [paper]), question


def test_a_technique_a_what_question_takes_for_granted_is_a_premise():
    from rag.answer.about import WHAT_USED

    match = WHAT_USED.search("what diffusion model does the BIT framework use to make audio")
    assert match and match.group("what") == "diffusion model"


def test_a_contribution_goes_on_with_the_sentence_that_says_how_and_skips_a_scope():
    paper = source(
        7,
        "SMOM: Momentum for Compositional Problems",
        "Compositional problems matter. In this paper, we focus on a nonsmooth class of them. "
        "Existing results are slow. We propose SMOM, a momentum method with guarantees. "
        "SMOM tracks the inner functions with a moving average. Experiments show a 2x speedup.",
    )
    found = roles(paper.paper)
    assert found.contribution.startswith("We propose SMOM")  # not "we focus on"
    assert found.detail.startswith("SMOM tracks")
    answer = composed(
        "contribution", [paper], Draft(intent=classify("what does SMOM propose"), backend="test")
    )
    assert (
        answer.text.split("\n")[1] == "SMOM tracks the inner functions with a moving average [1]."
    )


def test_a_second_proposal_an_enumeration_the_asked_verb_and_a_second_question():
    """A summary or contribution gives the second thing a paper proposes ("We further develop
    ..."), an enumeration's next item, the sentence with the verb asked ("what did they
    introduce") and the one answering a second question ("..., and how is it made scalable?")."""
    paper = source(
        8,
        "Bilevel Nets",
        "Training is a min-max problem. However, gradient methods struggle with it. In this "
        "paper, we propose a bilevel framework for such problems. The bilevel framework adds no "
        "cost. We further develop a single-loop algorithm with guarantees. To ensure "
        "scalability, we use a first-order approximation. To measure progress, we introduce a "
        "new metric, GAP0. Experiments show a 2x speedup.",
    )
    found = roles(paper.paper)
    assert found.also.startswith("We further develop") and found.problem.startswith("However")
    summary = composed("summary", [paper], Draft(intent=classify("tldr"), backend="test"))
    assert "Also: We further develop" in summary.text and summary.text.count("[1]") == 4
    introduced = roles(paper.paper, "introduc")
    assert introduced.contribution.startswith("To measure progress, we introduce")
    intent = classify("What does the bilevel paper propose, and how is it made scalable?")
    answer = composed("contribution", [paper], Draft(intent=intent, backend="test"))
    assert answer.text.split("\n")[-1].startswith("To ensure scalability")
    listed = source(
        9,
        "Removal",
        "We propose a removal approach. Our approach introduces: (1) a decorrelation module. "
        "(2) a smoothed removal mechanism. Experiments show gains.",
    )
    assert roles(listed.paper).detail.endswith("(2) a smoothed removal mechanism.")


def test_a_role_sentence_leaning_on_the_one_before_comes_with_it():
    """ "... DeltaZero, that solves this problem": the sentence saying which problem comes
    first; "We formally prove that this improves ..." likewise; not "In this work, we ..."."""
    paper = source(
        10,
        "Tree Metrics",
        "Trees are useful. Mapping a metric to its closest tree metric is still open. In this "
        "work, we introduce DeltaZero, that solves this problem. It uses a smooth surrogate. "
        "Experiments show gains.",
    )
    found = roles(paper.paper)
    assert found.antecedent == "Mapping a metric to its closest tree metric is still open."
    answer = composed(
        "contribution", [paper], Draft(intent=classify("what does DeltaZero do"), backend="t")
    )
    first, second = answer.text.split("\n")[:2]
    assert first.startswith("Tree Metrics: Mapping a metric") and second.startswith("In this work")
    summary = composed("summary", [paper], Draft(intent=classify("tldr"), backend="t"))
    assert summary.text.count("Mapping a metric") == 1  # the problem line already says it
    plain = source(11, "Plain", "Trees are useful. In this work, we introduce X. X is fast.")
    assert roles(plain.paper).antecedent == ""
    fixed = source(12, "Fix", "BN statistics drift in RL. To overcome this, we propose Y. Y works.")
    assert roles(fixed.paper).antecedent == "BN statistics drift in RL."


ANSWERED = Message(role="assistant", content="It names CIFAR-10 [1].")


def test_what_about_another_paper_asks_the_last_question_again_of_it():
    from rag.answer.conversation import asked_again

    def own_names(text):
        return {name for name in ("FIRE", "AnaCP", "EvA") if name in text}

    history = [Message(role="user", content="what datasets does FIRE use"), ANSWERED]
    for question in ("and what about AnaCP?", "how about AnaCP", "same for AnaCP", "and AnaCP?"):
        assert asked_again(question, history, own_names) == "what datasets does AnaCP use"
    assert asked_again("and what about its results?", history, own_names) is None  # no paper
    assert asked_again("and FIRE?", history, own_names) is None  # the same paper
    both = [Message(role="user", content="compare FIRE and EvA"), ANSWERED]
    assert asked_again("and AnaCP?", both, own_names) is None  # which one it replaces is unclear


def test_what_is_a_papers_name_asks_what_the_paper_proposes():
    assert classify("what is RLAF", named={"p1"}).shape == "contribution"
    assert classify("whats G&C exactly?", named={"p1"}).shape == "contribution"
    assert classify("what is neural collapse").shape is None  # a topic: the prose answer
    assert classify("what is RLAF's reward signal", named={"p1"}).shape is None


def test_asking_nothing_of_a_paper_but_what_it_does_asks_its_contribution():
    from rag.answer.intent import asks_what_it_does
    from rag.sentences import stems

    own = stems("Adaptive Riemannian ADMM Deng Jin ARADMM")
    for question in (
        "what does ARADMM achieve",
        "what is proven about ARADMM",
        "deng & jin paper - whats the contribution",
    ):
        assert asks_what_it_does(classify(question, named={"p1"}), own), question
    for question in (
        "ARADMM results on sparse PCA",
        "what GPU does ARADMM use",
        "who wrote ARADMM",
    ):
        assert not asks_what_it_does(classify(question, named={"p1"}), own), question


def test_a_name_written_with_latex_and_a_summary_asked_with_an_aside():
    from rag.sentences import stems

    assert stems("our network (IR$^4$Net) reads screens") >= stems("the IR4Net paper")
    assert shape_of("whats the IR4Net paper about, the one w/ screen side channel attacks") == (
        "summary"
    )
    assert classify("which papers run experiments on cifar").topic == {"cifar"}
