from hypothesis import given, settings as hypothesis_settings, strategies as st

from rag.answer.citations import cite_named_titles, parse_answer, render, renumber
from rag.answer.prompts import CANNOT_ANSWER, is_cannot_answer
from rag.models import Paper, Source
from rag.sentences import split_sentences


def source(title: str) -> Source:
    paper = Paper(
        paper_id=title.lower().replace(" ", "-"),
        title=title,
        title_source="metadata",
        abstract=f"{title} does things.",
        source_file="f",
    )
    return Source(paper=paper, passage=paper.abstract, score=1.0, relevance=0.9)


SOURCES = [
    source("Alpha Networks For Graphs"),
    source("Beta Optimizers Revisited"),
    source("Gamma Rays And Transformers"),
]


def test_every_marker_form_is_parsed():
    raw = (
        "One [1]. Two [2, 3]. Three [1][3]. Four [1-2]. Five [Source 2]. Six 【3】. "
        "Seven [sources 1 and 3]."
    )
    sentences, dropped = parse_answer(raw, 3)
    assert [s.citations for s in sentences] == [[1], [2, 3], [1, 3], [1, 2], [2], [3], [1, 3]]
    assert [s.text for s in sentences][:2] == ["One.", "Two."] and dropped == 0


def test_numbers_outside_the_sources_are_dropped_and_counted():
    sentences, dropped = parse_answer("Claim [9]. Other [0][2]. Ignore this [99] storm [4-5].", 3)
    assert [s.citations for s in sentences] == [[], [2], []]
    assert dropped == 1 + 1 + 1 + 2


def test_renumbering_follows_first_use_and_render_places_markers():
    sentences, _ = parse_answer("First claim [3]. Second claim [1][3]. Third claim [2]", 3)
    citations = renumber(sentences, SOURCES)
    assert [(c.number, c.title) for c in citations] == [
        (1, "Gamma Rays And Transformers"),
        (2, "Alpha Networks For Graphs"),
        (3, "Beta Optimizers Revisited"),
    ]
    assert render(sentences) == "First claim [1]. Second claim [2][1]. Third claim [3]"


def test_a_title_named_without_a_marker_gets_one():
    sentences, _ = parse_answer("Beta Optimizers Revisited shows momentum helps.", 3)
    cite_named_titles(sentences, SOURCES)
    assert sentences[0].citations == [2]


def test_marker_after_the_stop_stays_with_its_sentence():
    assert split_sentences("Alpha works. [1] Beta fails, e.g. here. [2]\n[3]") == [
        "Alpha works. [1]",
        "Beta fails, e.g. here. [2] [3]",
    ]


def test_cannot_answer_variants():
    assert is_cannot_answer(CANNOT_ANSWER)
    assert is_cannot_answer("Sorry, the sources do not contain information about that.")
    assert not is_cannot_answer("Alpha Networks answer this [1].")


@hypothesis_settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=30),
            st.integers(-5, 200).map(lambda n: f"[{n}]"),
            st.sampled_from(["[", "]", "[1,", "[Source", "【", "\n", ". "]),
        ),
        max_size=40,
    )
)
def test_no_input_produces_an_invalid_citation(parts):
    sentences, _ = parse_answer("".join(parts), 3)
    citations = renumber(sentences, SOURCES)
    assert all(1 <= n <= len(citations) for s in sentences for n in s.citations)
    assert {c.paper_id for c in citations} <= {s.paper.paper_id for s in SOURCES}


def test_repeated_sentences_and_clauses_are_said_once():
    raw = (
        "AnaCP adapts features, without gradient updates, without gradient updates [1]. "
        "FIRE balances stability and plasticity [2]. "
        "AnaCP adapts features, without gradient updates [2]."
    )
    sentences, _ = parse_answer(raw, 2)
    assert render(sentences) == (
        "AnaCP adapts features, without gradient updates [1][2]. "
        "FIRE balances stability and plasticity [2]."
    )


def test_a_sentence_repeated_after_its_title_is_said_once():
    raw = "FIRE: Balancing: FIRE resets weights [1]. FIRE resets weights [1]. AnaCP adapts [2]."
    sentences, _ = parse_answer(raw, 2, ["FIRE: Balancing", "AnaCP"])
    assert render(sentences) == "FIRE: Balancing: FIRE resets weights [1]. AnaCP adapts [2]."
    sentences, _ = parse_answer("FIRE resets weights [1]. AnaCP: FIRE resets weights [2].", 2)
    assert len(sentences) == 2  # "AnaCP:" is no title here
    sentences, _ = parse_answer("A: It adapts [1]. B: It adapts [2].", 2, ["A", "B"])
    assert render(sentences) == "A: It adapts [1]. B: It adapts [2]."  # two papers' lines


def test_choosing_among_papers_after_an_answer_that_named_one_goes_back_to_the_list():
    """ "Which of those is about X?" named one; "And which one does Y?" chooses from the list."""
    from rag.answer.conversation import scope_of_follow_up
    from rag.models import Message

    papers = [s.paper for s in SOURCES]
    history = [
        Message(role="user", content="Which papers are about learning?"),
        Message(
            role="assistant", content="Alpha Networks For Graphs and Beta Optimizers Revisited."
        ),
        Message(role="user", content="Which of those is about graphs?"),
        Message(role="assistant", content="Alpha Networks For Graphs, on graphs."),
    ]
    both = {"alpha-networks-for-graphs", "beta-optimizers-revisited"}
    assert scope_of_follow_up("And which one is about optimizers?", history, papers) == both
    assert scope_of_follow_up("What datasets does it use?", history, papers) == {
        "alpha-networks-for-graphs"
    }
    assert scope_of_follow_up("Which papers use graphs?", history, papers) is None
    # a position counts in the list, not in the one-paper answer after it
    assert scope_of_follow_up("compare the first two", history, papers) == both
    assert scope_of_follow_up("summarize the second one", history, papers) == {
        "beta-optimizers-revisited"
    }
