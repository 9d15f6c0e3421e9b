"""The calibrated answer decision (rag/answer/decision.py) and the intent rules it leans on:
fast, with hand-made papers and the word-overlap embedder of tests/test_checks.py."""

import numpy as np
import pytest

from rag.answer.about import about_paper, asked_paper
from rag.answer.decision import (
    FEATURES,
    SIGNS,
    Decision,
    Lexicon,
    PaperView,
    features,
    spelled_out,
    spelled_pairs,
    words_of,
)
from rag.answer.draft import Draft
from rag.answer.intent import classify
from rag.answer.support import unknown_names
from rag.answer.verdict import Reason
from tests.test_checks import GRAPHS, WordsEmbedder, source


def lexicon(frequencies: dict[str, int], documents: int = 10) -> Lexicon:
    return Lexicon(lambda words: {w: frequencies.get(w, 0) for w in words}, documents, frequencies)


def test_the_bundled_decision_is_fitted_with_the_signs_it_promises():
    decision = Decision.bundled()
    assert decision.features == list(FEATURES) and 0 < decision.threshold < 1
    assert decision.command and decision.metrics["pairs"] > 1000
    for name, weight in zip(decision.features, decision.weights):
        assert SIGNS.get(name, 0) * weight >= 0, name
    row = np.zeros((1, len(FEATURES)))
    covered = row.copy()
    covered[0, FEATURES.index("lexical")] = 1.0
    assert decision.probabilities(covered)[0] >= decision.probabilities(row)[0]


def test_a_paper_using_the_rare_topic_words_rates_higher_than_one_that_does_not():
    words = lexicon({"sparsiti": 2, "learn": 9})
    embedder = WordsEmbedder()
    question = np.asarray(embedder.embed(["sparsity learning"])[0])
    sparse = PaperView(
        chunks=np.zeros((0, 1)), sentences=np.zeros((0, 1)), words={"sparsiti", "learn"}
    )
    other = PaperView(chunks=np.zeros((0, 1)), sentences=np.zeros((0, 1)), words={"learn"})
    rows = features(question, {"sparsiti", "learn"}, [sparse, other], words)
    lexical, missing = FEATURES.index("lexical"), FEATURES.index("missing")
    assert rows[0, lexical] == 1.0 and rows[1, lexical] < 0.5
    assert rows[0, missing] == 0.0 and rows[1, missing] > 0.4
    probabilities = Decision.bundled().probabilities(rows)
    assert probabilities[0] > probabilities[1]


def test_a_typo_is_read_as_the_corpus_word_it_stands_for():
    words = lexicon({"gradient": 5, "compress": 3})
    assert words.corrected({"gradeint", "compress", "zzzzzzz"}) == {
        "gradient",
        "compress",
        "zzzzzzz",
    }


@pytest.mark.parametrize(
    ("question", "listed"),
    [
        ("federated learning papers", True),
        ("anything on spectral bias", True),
        ("quantum ml stuff in here?", True),
        ("which ones evaluate on cifar", True),
        ("spiking neural nets?", True),
        ("How does FIRE keep its plasticity?", False),
        ("What does the FIRE paper propose?", False),
        ("Which paper tackles over-squashing?", False),
        ("recovering whats on a screen from light reflected off walls, no physical contact", False),
    ],
)
def test_typed_searches_for_papers_are_lists(question, listed):
    assert classify(question).is_list is listed


@pytest.mark.parametrize(
    "question",
    [
        "If I want to compress gradients in distributed training, what can I use?",
        "Compare AnaCP and FIRE",
        "Summarize AnaCP",
        "Is FIRE any good?",
        "Given FIRE, what else is there?",
        "Besides Adam, which optimizers does it cover?",
    ],
)
def test_words_that_open_a_question_are_no_names(question):
    assert unknown_names(question, [GRAPHS]) == []


def test_a_made_up_name_is_still_a_name():
    assert unknown_names("Is Zorblax Quuxington the author?", [GRAPHS]) == ["Zorblax Quuxington"]


def named(source_):
    return source_.model_copy(update={"named": True})


def test_a_detail_the_named_paper_never_mentions_is_not_stated():
    paper = named(GRAPHS)
    intent = classify("What GPU did the graph attack paper run on?")
    answer = about_paper(intent, paper, Draft(intent=intent, backend="test"), WordsEmbedder())
    assert answer.abstained and answer.reason == Reason.NOT_STATED
    assert "'GPU'" in answer.text and GRAPHS.paper.title in answer.text
    asked = classify("How much does the attack lower accuracy?")
    assert about_paper(asked, paper, Draft(intent=asked, backend="test"), WordsEmbedder()) is None


def test_a_technique_the_named_paper_never_uses_is_a_false_premise_said_so():
    """ "How does X use T?" takes T for granted: when X's abstract uses none of T's informative
    words it is not_stated; a common word ("model") tells nothing, a typo is read as its word."""
    paper = named(GRAPHS)
    words = lexicon({"diffus": 2, "model": 9, "graph": 3, "attack": 3, "structur": 6, "node": 3})

    def asked(question):
        intent = classify(question)
        draft = Draft(intent=intent, backend="test")
        return about_paper(intent, paper, draft, WordsEmbedder(), lexicon=words, common=0.5)

    for question in ("How does it use a diffusion model to attack?", "how does it use difusion?"):
        answer = asked(question)
        assert (
            answer.abstained
            and answer.reason == Reason.NOT_STATED
            and "does not say it uses" in answer.text
        )
    assert asked("How does the paper use graph structure to attack?") is None  # it does
    for question in (
        "how does it train diffusion models",  # what it trains, or does it with, is granted
        "How does the attack pick nodes with a diffusion model?",
        "How does it use diffusion attacks on graphs?",  # half of the rarity: "diffusion"
    ):
        assert asked(question).reason == Reason.NOT_STATED
    assert asked("Which nodes does the paper choose to use during an attack?") is None
    assert asked("How does the paper use a model?") is None  # "model" tells nothing
    assert asked("Does the paper use a diffusion model?") is None  # no "how does ... use"


def test_a_premise_stated_first_and_asked_why_is_read_as_a_premise():
    from rag.answer.premises import reversed_premise

    result = "We prove that generalization of guessing deteriorates with increasing width."
    paper = source(1, "Guessing Nets", f"We study guessing. {result}")
    for question in (
        "the guessing paper says guessing generalizes better the wider the net gets.. why is that",
        "guessing generalizes better as nets get wider - why?",
    ):
        assert reversed_premise(question, [paper]) == (paper, result)
    assert reversed_premise("what is guessing? why does it matter", [paper]) is None


def test_higher_and_lower_are_ways_a_premise_goes_and_similarity_is_what_is_measured():
    from rag.answer.premises import reversed_premise

    result = "Strongly augmented views get lower similarity scores than weakly augmented ones."
    paper = source(1, "Variable Similarity", f"We study views. {result}")
    higher = "Why does it give strongly augmented views higher similarity than weak views?"
    assert reversed_premise(higher, [paper]) == (paper, result)
    lower = "Why does it give strongly augmented views lower similarity than weak views?"
    assert reversed_premise(lower, [paper]) is None


def test_a_premise_that_has_the_wrong_one_win_is_reversed():
    """ "why does it find that pruning beats folding" against "folding achieves higher
    accuracy"; a sentence writing both before what wins says nothing of which does."""
    from rag.answer.premises import reversed_premise, which_wins

    result = "We show that folding typically achieves higher accuracy than before."
    paper = source(
        1,
        "Fold More",
        f"We compare pruning and folding. {result} Folding is an alternative to pruning that is "
        "often superior.",
    )
    for question in (
        "why does the folding paper conclude that pruning beats folding",
        "Why does it find that structured pruning consistently outperforms folding?",
    ):
        assert reversed_premise(question, [paper]) == (paper, result)
    assert reversed_premise("why does it find that folding beats pruning", [paper]) is None
    assert which_wins("pruning beats folding", "Folding, unlike pruning, is superior.") == (
        "unclear"
    )
    assert which_wins("pruning beats folding", "Pruning gets higher accuracy.") == "winner"
    assert which_wins("pruning is fast", result) == ""  # no "A beats B"


def test_a_technique_the_paper_names_only_as_other_work_s_is_presumed():
    """ "improves both EvA and existing gradient-based attacks" uses gradients of other work; a
    technique in common words only ("gradients") is read by those words."""
    attack = named(
        source(
            2,
            "EvoAttack: Evolutionary Attacks",
            "We attack graphs by evolutionary search. A divide and conquer strategy improves "
            "both EvoAttack and existing gradient-based attacks.",
        )
    )
    words = lexicon({"gradient": 4, "evolutionari": 1, "search": 2, "edg": 2})
    intent = classify("how does EvoAttack use gradients to pick which edges to flip")
    draft = Draft(intent=intent, backend="test")
    answer = about_paper(intent, attack, draft, WordsEmbedder(), lexicon=words, common=0.3)
    assert answer.reason == Reason.NOT_STATED and "'gradients'" in answer.text
    intent = classify("how does EvoAttack use evolutionary search to pick edges")
    draft = Draft(intent=intent, backend="test")
    assert about_paper(intent, attack, draft, WordsEmbedder(), lexicon=words, common=0.3) is None


def test_why_a_named_paper_does_what_its_abstract_denies_is_a_false_premise():
    from rag.answer.premises import contradicted

    denial = "We adapt features without gradient-based training of the backbone."
    paper = named(source(1, "ANAL: Analytic Learning", f"We propose ANAL. {denial}"))
    question = (
        "Why does ANAL need gradient-based training of the backbone, and how does it avoid Q?"
    )
    assert contradicted(question, [paper]) == (paper, denial)
    assert contradicted("Why does ANAL avoid gradient-based training?", [paper]) is None
    assert contradicted("Why does ANAL not need gradient-based training?", [paper]) is None
    other = source(2, "ANAL: Analytic Learning", f"We propose ANAL. {denial}")  # not named
    assert contradicted("Why does it need gradient-based training?", [other]) is None
    other_subject = "Why do backbones need gradient-based training, and does ANAL change that?"
    assert contradicted(other_subject, [paper]) is None  # said of backbones, not of ANAL
    reason = "Sparse patterns are not preserved under transposition, which slows training."
    masks = named(source(3, "MASKS: Transposable Masks", f"{reason} We propose MASKS."))
    why = "Why is transposable sparsity needed for training with MASKS?"  # its reason, no denial
    assert contradicted(why, [masks]) is None


def test_what_a_paper_does_free_of_is_no_technique_of_its_own():
    folding = named(
        source(3, "FOLD: Compression", "We study calibration-free compression by clustering.")
    )
    words = lexicon({"calibr": 1, "data": 3, "cluster": 1})
    intent = classify("how does FOLD fine-tune with calibration data")
    draft = Draft(intent=intent, backend="test")
    answer = about_paper(intent, folding, draft, WordsEmbedder(), lexicon=words, common=0.5)
    assert answer.reason == Reason.NOT_STATED and "'calibration data'" in answer.text


def test_who_wrote_a_paper_is_answered_from_its_metadata():
    paper = source(1, "FIRE: Frobenius Isometry", "We reinitialize weights.", named=True)
    paper.paper.authors = ["Ada Lovelace", "Alan Turing"]
    intent = classify("who wrote the FIRE paper?")
    assert asked_paper(intent, [paper], relevant=True) is paper
    answer = about_paper(intent, paper, Draft(intent=intent, backend="test"), WordsEmbedder())
    assert not answer.abstained and "Ada Lovelace, Alan Turing" in answer.text
    assert answer.citations[0].evidence.startswith("FIRE: Frobenius Isometry, by Ada Lovelace")


def test_the_fit_keeps_each_weight_to_its_sign_whatever_the_data_say():
    import importlib.util

    from sklearn.preprocessing import StandardScaler

    from tests.conftest import REPO

    spec = importlib.util.spec_from_file_location("fit", REPO / "scripts" / "fit_decision.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    fit = script.fit

    rng = np.random.default_rng(0)
    rows = rng.normal(size=(400, 3, len(FEATURES)))
    labels = (rows[..., FEATURES.index("lexical")] > 0).astype(int)
    rows[..., FEATURES.index("missing")] += 2 * labels  # a quirk: missing words "predict" yes
    scaler, model = fit(rows, labels)
    weights = dict(zip(FEATURES, model.coef_[0]))
    assert weights["lexical"] > 1 and weights["missing"] <= 0
    assert isinstance(scaler, StandardScaler) and scaler.mean_.shape == (len(FEATURES),)


def test_abbreviations_are_read_as_their_words_on_both_sides():
    assert spelled_pairs({"spike net"}) == {"spike network"}
    assert spelled_pairs({"gnn explain"}) == {"graph neural", "neural network", "network explain"}
    assert lexicon({"gnn": 1, "graph": 3}).corrected({"gnn", "attack"}) == {
        "graph",
        "neural",
        "network",
        "attack",
    }
    paper = source(1, "Spikes", "Spiking neural networks (SNNs) save energy.")
    words, pairs = words_of(paper)
    assert {"spike", "neural", "network", "snns"} <= words
    assert "spike network" in pairs  # one word apart


def test_a_two_letter_abbreviation_is_a_topic_and_a_framing_word_is_no_condition():
    from rag.answer.wording import spelled

    assert spelled("any RL papers?") == "any reinforcement learning papers?"
    assert classify("rl papers").topic == {"reinforc", "learn"}
    assert classify("quantum ml stuff").topic == {"quantum"}  # ML names no topic here
    assert spelled("fl papers w/ gd") == "federated learning papers w/ gradient descent"
    assert spelled_out(["sdes"]) == ["stochast", "differenti", "equat"]


def test_a_four_letter_typo_is_corrected_and_a_generic_head_is_no_topic():
    assert lexicon({"learn": 9, "feder": 2}).corrected({"feder", "lern"}) == {"feder", "learn"}
    assert classify("evolutionary algos").topic == {"evolutionari"}  # "algorithms" frames


def test_an_abbreviation_the_corpus_defines_is_read_as_its_words_and_words_are_no_typos():
    frequencies = {"pinn": 1, "physic": 2, "inform": 2, "neural": 5, "network": 5, "float": 3}
    words = Lexicon(
        lambda ws: {w: frequencies.get(w, 0) for w in ws},
        10,
        frequencies,
        is_word=lambda w: w == "flat",
        defined={"pinn": ["physic", "inform", "neural", "network"]},
    )
    assert words.corrected({"pinn"}) == {"physic", "inform", "neural", "network"}
    assert words.corrected({"pinn"}, defined=False) == {"pinn"}  # a premise is read as written
    assert words.corrected({"flat"}) == {"flat"}  # an English word, not a typo of "float"


def test_a_typo_keeps_its_first_letter():
    words = lexicon({"learn": 9, "feder": 2})
    assert words.corrected({"lern", "unlearn"}) == {"learn", "unlearn"}  # unlearning is a topic


def test_how_central_a_topic_must_be_and_the_kind_of_result_frame_a_list_question():
    for asked in (
        "continual learning papers? the ones with methods built for it, not just tested on it",
        "continual learning papers (where its the main focus)",
        (
            "Which papers involve continual learning, either as the main subject or as a "
            "component of the proposed method?"
        ),
    ):
        assert classify(asked).topic == {"continu", "learn"}
        assert {word for part in classify(asked).conditions for word in part.split()} <= {
            "continual",
            "learning",
            "papers",
            "involve",
        }
    assert classify("which papers give complexity guarantees").topic == {"complex"}


def test_a_typo_in_a_phrase_is_corrected_side_by_side():
    words = lexicon({"learn": 5, "feder": 2})
    assert words.corrected_pairs({"feder lern", "feder learn"}) == {"feder learn"}
    assert words.corrected({"feder", "lern"}) == {"feder", "learn"}


def test_the_paper_a_description_fits_best_leads_the_others():
    words = lexicon({"screen": 1, "light": 2, "wall": 0, "learn": 9})
    embedder = WordsEmbedder()
    question = np.asarray(embedder.embed(["screen light wall"])[0])

    def view(*stems):
        return PaperView(chunks=np.zeros((0, 1)), sentences=np.zeros((0, 1)), words=set(stems))

    rows = features(
        question, {"screen", "light", "wall"}, [view("screen", "light"), view("learn")], words
    )
    lead = FEATURES.index("lead")
    assert rows[0, lead] > 0 > rows[1, lead]
    assert rows[0, lead] == rows[0, FEATURES.index("lexical")] - rows[1, FEATURES.index("lexical")]


@pytest.mark.parametrize(
    ("question", "detail"),
    [
        ("lr used for GraphLearner?", "learning rate"),
        ("What learning rate does GraphLearner use?", "learning rate"),
        ("How long does it take to train GraphLearner?", "training time"),
        ("what language is the GraphLearner code written in", "programming language"),
    ],
)
def test_a_detail_asked_in_a_phrase_the_abstract_never_states_is_not_stated(question, detail):
    from rag.answer.about import unstated

    paper = source(
        1,
        "GraphLearner: Learning on Graphs",
        "We propose GraphLearner, a graph neural network trained with Adam. It beats baselines.",
    )
    assert unstated(classify(question), paper) == [detail]
    said = source(
        1,
        "GraphLearner: Learning on Graphs",
        "We train in 3 hours with learning rate 0.1 in PyTorch.",
    )
    assert unstated(classify(question), said) == []


def test_a_premise_the_abstract_reverses_is_false_and_one_it_states_is_not():
    from rag.answer.premises import reversed_premise

    background = "Generalization of guessing gets better as networks grow deeper."
    result = "We prove that generalization of guessing deteriorates as networks grow wider."
    paper = source(1, "Guessing Nets", f"{background} {result}")
    wider = "How does the guessing paper show that guessing generalizes better as nets grow wider?"
    assert reversed_premise(wider, [paper]) == (paper, result)
    prefixed = (
        "In the guessing paper, how do they show guessing generalizes better as nets grow wider?"
    )
    assert reversed_premise(prefixed, [paper]) == (paper, result)
    deeper = "Why does guessing generalize better as networks grow deeper?"
    assert reversed_premise(deeper, [paper]) is None
    given = "since guessing generalizes better when nets are wider, does that mean width is key?"
    assert reversed_premise(given, [paper]) == (paper, result)
    improves = "why does generalization of guessing improve as networks grow wider?"
    assert reversed_premise(improves, [paper]) == (paper, result)
    assert reversed_premise("How does the guessing paper define width?", [paper]) is None


def test_a_premise_in_other_words_is_read_as_the_abstract_writes_it():
    """A size adjective is the dimension the abstract measures ("wider" is "width"), an
    abbreviation is the words the abstract defines it as ("G&C", "NC"), "no matter which" says
    the same, and what the paper sets out to refute counts for no premise."""
    from rag.answer.premises import reversed_premise

    result = "We prove that generalization under G&C deteriorates with increasing width."
    paper = source(1, "Guessing Nets", f"We study Guess & Check (G&C). {result}")
    wider = "why do wider nets generalize better under guess & check?"
    assert reversed_premise(wider, [paper]) == (paper, result)
    own = "This work explains the optimizer-dependent emergence of NC."
    refuted = "Existing analyses suggest that NC is universal across optimizers."
    collapse = source(2, "Optimizers", f"Neural Collapse (NC) is studied. {refuted} {own}")
    same = "why does the paper conclude neural collapse looks the same no matter which optimizer"
    assert reversed_premise(same, [collapse]) == (collapse, own)
    assert reversed_premise("why does NC depend on the optimizer?", [collapse]) is None


def test_as_hard_as_reverses_harder_and_states_as_hard_as():
    from rag.answer.premises import reversed_premise

    result = "We prove that learning pure states is as hard as learning mixed states."
    paper = source(1, "Pure States", f"Pure states seem simpler to learn. {result}")
    harder = "Why does the paper show that mixed states are much harder to learn than pure states?"
    assert reversed_premise(harder, [paper]) == (paper, result)
    assert reversed_premise("why is learning pure states as hard as mixed states", [paper]) is None
    also = source(2, "Pure States", "It does well as well as being hard to learn quickly.")
    assert reversed_premise(harder, [also]) is None  # "as well as" compares nothing


def test_a_follow_ups_premise_and_the_papers_own_finding_decide_which_way_it_goes():
    """ "so why does it ..." is a premise too; a sentence naming the premise's subject outranks
    one that does not, and the paper's own finding outranks background sharing more words."""
    from rag.answer.premises import reversed_premise

    result = "We prove that generalization under guessing deteriorates with increasing width."
    paper = source(1, "Guessing Nets", f"Guessing is studied. {result}")
    assert reversed_premise("so why does it generalize better as the width grows", [paper]) == (
        paper,
        result,
    )
    assert reversed_premise("ok but why does it generalize worse with width", [paper]) is None
    cannot = "We show that collapse cannot emerge under AdamW."
    momentum = "We also show the accelerating effect of momentum on collapse with SGD."
    optimizers = source(2, "Optimizers", f"{cannot} {momentum}")
    faster = "why does adamw make collapse show up faster than sgd"
    assert reversed_premise(faster, [optimizers]) == (optimizers, cannot)
    assert reversed_premise("why does momentum make collapse faster with sgd", [optimizers]) is None
    background = "In standard settings, pure states are substantially easier to learn than mixed."
    found = "In this work, we prove that pure states are as hard to learn as mixed states."
    states = source(3, "Pure States", f"{background} {found}")
    easier = (
        "Why does the paper find that pure states are substantially easier to learn than mixed?"
    )
    assert reversed_premise(easier, [states]) == (states, found)


def test_losing_to_something_is_doing_worse_and_how_does_x_p_is_denied_by_a_verb_negation():
    from rag.answer.premises import contradicted, reversed_premise

    result = "We show that folding typically outperforms pruning in accuracy."
    folding = source(1, "Folding", f"Pruning is popular. {result}")
    assert reversed_premise("why does folding always lose to pruning", [folding]) == (
        folding,
        result,
    )
    assert reversed_premise("why does folding lose less accuracy than pruning", [folding]) is None
    keeps = "Importantly, CaRe-BN does not alter inference, preserving its energy efficiency."
    stabilizes = "CaRe-BN stabilizes training without disrupting the RL training process."
    care = named(source(2, "CaRe-BN: Statistics", f"{stabilizes} {keeps}"))
    changes = "How does CaRe-BN change the inference procedure to save energy?"
    assert contradicted(changes, [care]) == (care, keeps)
    assert contradicted("how does CaRe-BN stabilize RL training", [care]) is None
    others = "Standard resets of weights are hard to tune: they fail to restore plasticity."
    fire = named(source(3, "FIRE: Resets", f"{others} FIRE balances stability and plasticity."))
    balances = "How does FIRE balance stability and plasticity when it resets weights?"
    assert contradicted(balances, [fire]) is None  # other work's failure denies nothing of FIRE
    free = "Our attack EvA works with any model, eliminating the need for a proxy loss."
    eva = named(source(4, "EvA: Attacks", free))
    assert contradicted("Why does EvA need a proxy loss?", [eva]) == (eva, free)
    assert contradicted("how does EvA avoid the need for a proxy loss", [eva]) is None


def test_a_claim_put_up_to_confirm_is_checked_against_what_the_paper_says_of_others():
    """ "X does P, right?" where the abstract says P of what X beats; a setting ("M=4") the
    abstract writes only of other work."""
    from rag.answer.premises import said_of_others

    beats = "Our policies outperform expert-supervised approaches based on handcrafted heuristics."
    solver = named(source(1, "SOLVO: Solver Guidance", f"We train a graph network. {beats}"))
    confirm = (
        "solvo trains the network by imitating expert handcrafted heuristics right? whats the loss"
    )
    assert said_of_others(confirm, [solver]) == (solver, beats)
    assert said_of_others("solvo trains a graph network, right? how", [solver]) is None
    assert (
        said_of_others("why does solvo outperform expert handcrafted heuristics", [solver]) is None
    )
    faster = "why are solvo policies faster than expert handcrafted heuristics"
    assert said_of_others(faster, [solver]) is None
    more = named(source(3, "SOLVO: Guidance", "We get more than a 2x speedup on larger problems."))
    assert said_of_others("since solvo speeds up larger problems, how much?", [more]) is None
    limited = "Existing methods either fail to scale or are restricted to M=4."
    masks = named(source(2, "MASKER: Fast Masks", f"{limited} Our solver scales to any N:M."))
    assert said_of_others("Why is the MASKER solver limited to M=4 patterns?", [masks]) == (
        masks,
        limited,
    )


def test_what_an_abstract_says_of_other_work_is_no_premise_about_the_paper():
    """ "Why is X restricted to M=4?" when existing methods are; "how does X use T" when X's
    abstract uses T only of other work or to rule it out."""
    from rag.answer.premises import said_of_others

    others = "While masks were proposed, existing methods for masks are restricted to M=4."
    paper = source(1, "MASKER: Fast Masks", f"{others} We introduce MASKER, a solver for masks.")
    paper = named(paper)
    assert said_of_others("Why is MASKER restricted to masks with M=4?", [paper]) == (
        paper,
        others,
    )
    assert said_of_others("Why is MASKER a solver for masks?", [paper]) is None
    assert said_of_others("Why does MASKER beat existing methods for masks?", [paper]) is None
    avoids = "Why does MASKER avoid the restriction of masks to M=4?"  # so it does
    assert said_of_others(avoids, [paper]) is None
    attack = named(
        source(
            2,
            "EvoAttack: Evolutionary Attacks",
            "Most existing attacks leverage gradient information. We attack graphs without "
            "gradient estimates, by evolutionary search.",
        )
    )
    words = lexicon({"gradient": 2, "inform": 3, "estim": 2, "evolutionari": 1, "search": 3})
    for question in (
        "How does EvoAttack use gradient information to perturb edges?",
        "How does EvoAttack use gradient estimates?",
    ):
        intent = classify(question)
        draft = Draft(intent=intent, backend="test")
        answer = about_paper(intent, attack, draft, WordsEmbedder(), lexicon=words, common=0.5)
        assert answer.reason == Reason.NOT_STATED and "does not say it uses" in answer.text
    intent = classify("How does EvoAttack use evolutionary search?")
    draft = Draft(intent=intent, backend="test")
    assert about_paper(intent, attack, draft, WordsEmbedder(), lexicon=words, common=0.5) is None


def test_a_setting_the_abstract_never_writes_is_not_stated():
    from rag.answer.about import unstated

    paper = source(1, "MASKER: Fast Masks", "Our masks work for any M, such as $M = 8$.")
    assert unstated(classify("Why is MASKER tested with M=4?"), paper) == ["M=4"]
    assert unstated(classify("Why is MASKER tested with M = 8?"), paper) == []
    assert unstated(classify("which optimizer did MASKER use"), paper) == ["optimizer"]
    adam = source(2, "MASKER: Fast Masks", "We train the masks with AdamW.")
    assert unstated(classify("which optimizer did MASKER use"), adam) == []


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("Which papers report experiments on CIFAR datasets?", {"cifar"}),
        ("which ones evaluate on imagenet (any variant)", {"imagenet"}),
        ("Which papers prove regret bounds?", {"regret"}),  # "regret ... optimal guarantees"
    ],
)
def test_words_that_frame_what_is_asked_are_no_topic(question, topic):
    assert classify(question).topic == topic


def test_greek_letters_are_read_as_their_names():
    from rag.answer.wording import latin

    assert latin("Summarize the Πnet paper") == "Summarize the Pinet paper"
    assert latin("β-VAE and Δ-learning") == "beta-VAE and Delta-learning"


def test_a_figure_taken_for_granted_that_the_abstract_never_states_is_a_false_premise():
    from rag.answer.premises import unstated_figure

    result = "ANACAP reaches the accuracy of joint training, within 9.8% of the upper bound."
    abstract = f"We study class-incremental learning. {result}"
    paper = source(1, "ANACAP: Analytic Projection", abstract, named=True)
    for question in (
        "anacap beats joint training by like 10%, how does it manage that",  # 9.8% rounded
        "ANACAP is 9.8% off the upper bound. Why?",
        "how does ANACAP get within 9.8% of the upper bound",
    ):
        assert unstated_figure(question, [paper]) is None, question
    for question in (
        "anacap beats joint training by like 30%, how does it manage that",
        "ANACAP reportedly cuts the error to 2%. What makes it so accurate?",
        "since ANACAP is 3x faster than joint training, what does it give up?",
    ):
        found = unstated_figure(question, [paper])
        assert found and found[0] is paper and found[2] == result, question
    assert unstated_figure("what accuracy does ANACAP reach, 10% or 20%?", [paper]) is None
    unnamed = source(2, "Cut Less, Fold More", "We fold models. Folding beats pruning by 5%.")
    assert unstated_figure("how does bit cut wer to 2%", [unnamed]) is None  # shares only "cut"
    assert unstated_figure("how does folding beat pruning by 50%", [unnamed])[1] == "50%"
