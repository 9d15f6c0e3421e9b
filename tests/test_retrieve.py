import json

from typer.testing import CliRunner

from rag.cli import app
from rag.index import open_store
from rag.index.bm25 import BM25Index
from rag.models import Paper
from rag.retrieve import Filters, best_per_paper, reciprocal_rank_fusion
from rag.retrieve.metadata import MetadataIndex
from tests.conftest import PRICING, PRICING_QUESTION

SEPARABLE = (
    "Separable Neural Networks: Approximation Theory, NTK Regime, and Preconditioned "
    "Gradient Descent"
)


def titles(sources) -> list[str]:
    return [source.paper.title for source in sources]


def test_reciprocal_rank_fusion_rewards_agreement():
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "c", "a"]], k=60)
    assert list(fused) == ["b", "a", "c"]
    assert fused["b"] == 1 / 62 + 1 / 61


def test_chunks_group_into_their_best_paper():
    hits = [("p1#1", 0.9), ("p2#0", 0.8), ("p1#0", 0.7)]
    assert best_per_paper(hits) == {"p1": ("p1#1", 0.9), "p2": ("p2#0", 0.8)}


def test_authors_and_asked_for_labels_are_found_in_questions():
    def paper(pid, authors, area=None, subarea=None):
        return Paper(
            paper_id=pid,
            title=pid,
            title_source="derived",
            authors=authors,
            area=area,
            subarea=subarea,
            abstract="x",
            source_file="f",
        )

    index = MetadataIndex(
        [
            paper("p1", ["Daniel M. Kane"], "Theory", "Learning Theory"),
            paper("p2", ["Song Mei", "Daniel M. Kane"]),
        ]
    )
    assert index.mentioned("What did Daniel M. Kane publish?") == ["p1", "p2"]
    assert index.mentioned("any papers by song mei or others") == ["p2"]
    assert index.mentioned("kane and mei") == []
    assert index.mentioned("Which papers are in the Learning Theory subarea?") == ["p1"]
    assert index.mentioned("Is there a statistical learning theory of this?") == []


def test_a_surname_written_as_a_name_calls_its_one_paper():
    """ "Tönshoff and Grohe's SAT paper" (or "Tonshoff", as typed) is their paper; a surname of
    several papers' authors ("Kane") or a short one ("Mei") is no paper; one in lower case
    is from 5 letters on ("grohe"), and shorter ones when "et al" follows."""
    index = MetadataIndex(
        [
            Paper(
                paper_id=pid,
                title=pid,
                title_source="derived",
                authors=authors,
                abstract="x",
                source_file="f",
            )
            for pid, authors in [
                ("p1", ["Daniel M. Kane"]),
                ("p2", ["Song Mei", "Daniel M. Kane"]),
                ("p3", ["Jan Tönshoff", "Martin Grohe"]),
            ]
        ]
    )
    assert index.mentioned("Tönshoff and Grohe's SAT paper vs the other one") == ["p3"]
    assert index.mentioned("what does Tonshoff show") == ["p3"]
    assert index.mentioned("What does Kane show?") == []
    assert index.mentioned("What does Mei show?") == []
    assert index.mentioned("what does grohe show") == ["p3"]  # 5 letters: no word is it
    assert index.mentioned("what does kane show") == []
    assert index.mentioned("the grohe et al paper") == ["p3"]  # "et al" says it is a surname
    assert index.mentioned("the Kane et al. paper") == ["p1"]  # of two, p1's first author
    assert index.mentioned("the Mei et al. paper") == []  # 3 letters: too short to tell


def paper(pid: str, title: str, abstract: str = "x") -> Paper:
    return Paper(
        paper_id=pid, title=title, title_source="derived", abstract=abstract, source_file="f"
    )


def test_a_paper_called_by_its_title_name_is_what_the_question_is_about():
    fire, legacy = paper("p1", "FIRE: Balancing Plasticity"), paper("p2", "LEGACY: Compression")
    index = MetadataIndex([fire, legacy], {"FIRE": ["p1"], "LEGACY": ["p2"], "ImageNet": ["p2"]})
    assert index.mentioned("What top-1 accuracy does FIRE report on ImageNet?") == ["p1"]
    assert index.mentioned("Which paper reports top-1 accuracy on ImageNet?") == ["p2"]
    assert index.mentioned("Do FIRE and LEGACY both use ImageNet?") == ["p1", "p2"]


def test_a_name_a_paper_introduces_is_the_subject_not_a_dataset_another_uses():
    bridging = paper(
        "p1",
        "Bridging Arbitrary and Tree Metrics",
        "We introduce a framework, coined DeltaZero, that solves this problem.",
    )
    legacy = paper("p2", "LEGACY: Compression", "On ImageNet, LEGACY improves accuracy.")
    index = MetadataIndex([bridging, legacy], {"DeltaZero": ["p1"], "ImageNet": ["p2"]})
    index.abstract_of = {"p1": bridging.abstract, "p2": legacy.abstract}.get
    assert index.mentioned("What accuracy does DeltaZero reach on ImageNet?") == ["p1"]
    assert index.mentioned("Which paper reports accuracy on ImageNet?") == ["p2"]


def test_a_papers_code_repository_is_its_name():
    shot = paper("p1", "Optimal transport for microscopy", "Code: https://github.com/LAB/SHOT.")
    other = paper("p2", "Shots in the dark", "We take a SHOT at it.")
    index = MetadataIndex([shot, other], {"SHOT": ["p1"]})
    index.abstract_of = {"p1": shot.abstract, "p2": other.abstract}.get
    assert index.mentioned("what license is the shot code (microscopy paper) under") == ["p1"]


def test_a_title_phrase_or_an_acronym_the_paper_introduces_names_it():
    from rag.index.bm25 import method_names

    bit = paper(
        "p1",
        "A neural model for speech decoding",
        "We introduce a Brain-to-Text (BIT) framework. It beats Proximal Policy Optimization (PPO).",
    )
    laf = paper(
        "p2",
        "Learning from Algorithm Feedback: SAT Guidance",
        "We study class-incremental learning (CIL) with PPO.",
    )
    names = method_names([bit, laf])
    assert names["BIT"] == ["p1"] and "PPO" not in names and "CIL" not in names
    index = MetadataIndex([bit, laf], names)
    assert index.mentioned("main idea of Reinforcement Learning from Algorithm Feedback?") == ["p2"]
    assert index.mentioned("what does BIT decode?") == ["p1"]


def test_an_abbreviation_another_paper_spells_out_names_no_paper():
    from rag.index.bm25 import abbreviations, method_names

    sep = paper("p1", "Separable nets", "Uses include physics-informed neural networks (PINNs).")
    newton = paper("p2", "A Newton method", "We train physics informed neural networks.")
    fire = paper("p3", "FIRE: resets", "We propose Frobenius-Isometry REinitialization (FIRE).")
    odd = paper("p4", "Odd", "A tool (XYZ) whose letters spell nothing before it.")
    # FIRE's initials are not "fire" (it capitalises "REinitialization"): no abbreviation
    assert abbreviations([sep, newton, fire, odd]) == {"pinn": "physics informed neural networks"}
    guess = paper("p5", "Guessing", "Weights are drawn by Guess & Check (G&C) until they fit.")
    assert abbreviations([guess]) == {"g&c": "guess check"}
    names = method_names([sep, newton, fire])
    assert "PINNs" not in names and names["FIRE"] == ["p3"]
    assert method_names([sep])["PINNs"] == ["p1"]  # spelled out by no other paper: its own
    assert method_names([guess, fire])["G&C"] == ["p5"]  # a name joined by "&" names it
    index = MetadataIndex([guess, fire], method_names([guess, fire]))
    assert index.mentioned("why does G&C get worse with width") == ["p5"]


def test_a_paper_the_question_describes_is_the_one_it_asks_about(retriever):
    folding = "Cut Less, Fold More: Model Compression through the Lens of Projection Geometry"
    [described] = retriever.described("how is tsenor different from the model folding paper")
    assert retriever.catalog.get(described).title == folding
    assert folding in titles(retriever.search("what does the model folding paper show", 1))
    [screen] = retriever.described("tldr the one about reading a screen from light off walls?")
    assert retriever.catalog.get(screen).title.startswith("Physically-Guided Optical Inversion")
    assert retriever.described("what does the first paper say") == []  # the conversation's
    assert retriever.described("what does the learning paper say") == []  # many papers learn
    [microscopy] = retriever.described("HTI, the single molecule localization one and TSENOR")
    assert retriever.catalog.get(microscopy).title.startswith("Optimal transport unlocks")
    assert retriever.described("argues Hermite is the wrong basis and that one should") == []


def test_exact_method_name_ranks_its_paper_first(retriever):
    for mode in ("hybrid", "bm25"):
        found = retriever.search(PRICING_QUESTION, k=5, mode=mode)
        assert titles(found)[0] == PRICING, mode


def test_name_like_words_are_told_from_title_case_words():
    from rag.sentences import name_tokens, title_name

    text = "AnaCP beats SGD on ImageNet-1k with ResNet-18, a Few-Shot SIGMA-style RFT-Inf trick"
    assert name_tokens(text) == {"AnaCP", "ImageNet-1k", "ResNet-18", "SIGMA-style", "RFT-Inf"}
    assert title_name("FIRE: Frobenius-Isometry Reinitialization") == "FIRE"
    assert title_name("Cut Less, Fold More: Model Compression") is None


def test_a_named_method_makes_its_paper_fully_relevant(retriever):
    """Short questions that name a method have a low cosine with any chunk; the name (from the
    title, or a name-like word only its abstract uses) is what makes the paper relevant."""
    cases = {
        "What is AnaCP?": "AnaCP:",  # the title's name
        "How does FIRE balance stability and plasticity?": "FIRE:",
        "DeltaZero — what problem does it solve?": None,  # only its abstract names it
    }
    for question, title_start in cases.items():
        top = retriever.search(question, 3)[0]
        assert top.relevance == 1.0, question
        if title_start:
            assert top.paper.title.startswith(title_start)
    assert retriever.search("forest fire spread prediction", 3)[0].relevance < 0.37  # not 'FIRE'


def test_paraphrase_without_acronyms_finds_the_paper(retriever):
    question = (
        "Which work sets prices for products when only a few discrete price levels are allowed?"
    )
    assert PRICING in titles(retriever.search(question, k=5))


def test_results_are_whole_papers_with_passage_and_relevance(retriever):
    found = retriever.search("continual learning without forgetting", k=5)
    assert len(found) == 5 and len({s.paper.paper_id for s in found}) == 5
    for source in found:
        assert source.passage[:80] in source.paper.abstract
        assert 0 <= source.relevance <= 1 and source.paper.abstract
    assert [s.score for s in found] == sorted((s.score for s in found), reverse=True)


def test_filters_apply_before_ranking(retriever):
    only_iclr = retriever.search("neural networks", k=10, filters=Filters(venue="iclr"))
    assert len(only_iclr) == 10 and all(s.paper.venue == "ICLR 2026" for s in only_iclr)
    by_meng = retriever.search("reinforcement learning", k=5, filters=Filters(author="deyu MENG"))
    assert titles(by_meng) == [SEPARABLE]
    area = retriever.search("spiking networks", k=5, filters=Filters(area="probabilistic methods"))
    assert area and all(s.paper.subarea == "Probabilistic Methods" for s in area)
    chosen = {s.paper.paper_id for s in only_iclr[:2]}
    assert {
        s.paper.paper_id
        for s in retriever.search("anything", k=5, filters=Filters(paper_ids=chosen))
    } == chosen
    assert retriever.search("x", filters=Filters(author="Nobody Atall")) == []
    for mode in ("dense", "bm25"):
        found = retriever.search("optimization", k=5, mode=mode, filters=Filters(venue="ICLR"))
        assert found and all(s.paper.venue == "ICLR 2026" for s in found)


def test_named_author_is_relevant_and_ranked_first(retriever):
    found = retriever.search("What did Deyu Meng work on?", k=3)
    assert titles(found)[0] == SEPARABLE and found[0].relevance == 1.0


def test_off_topic_question_has_low_relevance(retriever):
    on_topic = retriever.search(PRICING_QUESTION, k=1)[0]
    off_topic = retriever.search("What is a good recipe for sourdough bread?", k=1)[0]
    assert off_topic.relevance < on_topic.relevance - 0.2


def test_bm25_index_matches_chroma(seed_index):
    lexical = BM25Index(seed_index.bm25_dir)
    stored = open_store(seed_index).collection.get(include=[])["ids"]
    assert sorted(lexical.chunk_ids) == sorted(stored)
    assert len(lexical.papers) == 58


def test_search_cli_json(seed_index, monkeypatch):
    monkeypatch.setenv("RAG_DATA_DIR", str(seed_index.data_dir))
    result = CliRunner().invoke(app, ["search", PRICING_QUESTION, "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert rows[0]["title"] == PRICING
    assert {"paper_id", "title", "score", "passage", "relevance", "authors"} <= set(rows[0])
    result = CliRunner().invoke(app, ["search", "anything", "--author", "Deyu Meng", "--json"])
    assert [row["title"] for row in json.loads(result.stdout)] == [SEPARABLE]
