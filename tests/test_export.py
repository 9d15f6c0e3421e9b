"""Answers taken away: Markdown with [n] markers and references, BibTeX that parses."""

import bibtexparser
from markdown_it import MarkdownIt

from rag import export
from rag.models import Answer, AnswerSentence, Citation, Paper, Source

BISECLE = Paper(
    paper_id="b1",
    title="Bisecle: Binding and Separation in Continual Video Language Understanding",
    title_source="metadata",
    authors=["Yue Tan", "Xiaoqian Hu", "Hao Xue", "Céline D'Aubigné"],
    venue="NeurIPS 2025",
    url="https://openreview.net/forum?id=1",
    abstract="We bind and separate. Regret is $\\widetilde{O}(T^{2/3})$.",
    source_file="seeds/a.txt",
)
OT = Paper(
    paper_id="o2",
    title="On {Optimal} Transport & Flows_2",
    title_source="metadata",
    authors=["Émile Zoë"],
    authors_truncated=True,
    year=2024,
    venue="Journal of Machine Learning Research",
    keywords=["transport", "flows"],
    abstract="Transport.",
    source_file="lib.bib",
)


def source(paper: Paper) -> Source:
    return Source(paper=paper, passage=paper.abstract, score=1.0, relevance=0.8)


def cited(paper: Paper, number: int) -> Citation:
    return Citation(number=number, paper_id=paper.paper_id, title=paper.title)


def answer(layout="prose", supported=True) -> Answer:
    sentences = [
        AnswerSentence(text="Bisecle binds **and** separates <b>videos</b>.", citations=[1]),
        AnswerSentence(text="Transport is solved.", citations=[2], supported=supported),
    ]
    return Answer(
        question="How?",
        text="…",
        sentences=sentences,
        citations=[cited(BISECLE, 1), cited(OT, 2)],
        sources=[source(BISECLE), source(OT)],
        backend="fake",
        layout=layout,
    )


def test_markdown_has_markers_references_and_renders_only_what_we_wrote():
    shown = export.markdown(answer())
    assert shown.splitlines()[0] == (  # bold stays bold (abstracts spell acronyms with it)
        r"Bisecle binds **and** separates \<b\>videos\</b\>. [1] Transport is solved. [2]"
    )
    assert shown.splitlines()[-2:] == [
        (
            "1. **Bisecle: Binding and Separation in Continual Video Language Understanding** — "
            "Yue Tan, Xiaoqian Hu, Hao Xue et al. · NeurIPS 2025 · https://openreview.net/forum?id=1"
        ),
        (
            r"2. **On {Optimal} Transport \& Flows\_2** — Émile Zoë et al. · "
            "Journal of Machine Learning Research, 2024"
        ),
    ]
    html = MarkdownIt("commonmark").render(shown)
    assert "<b>" not in html and "&lt;b&gt;videos" in html and html.count("<strong>") == 4


def test_list_answers_are_a_list_and_unsupported_sentences_say_so():
    shown = export.markdown(answer(layout="list", supported=False))
    assert shown.startswith("- Bisecle binds")
    assert "\n- Transport is solved. [2] *(not supported by the cited abstract)*\n" in shown


def test_a_declined_answer_has_no_references():
    declined = Answer(
        question="Bread?",
        text="The corpus does not answer.",
        abstained=True,
        backend="fake",
        notices=["k = 99 is outside 1..20; using 20."],
    )
    assert (
        export.markdown(declined) == "> ⚠ k = 99 is outside 1..20; using 20.\n\n"
        "The corpus does not answer."
    )
    assert export.answer_bibtex([declined]) == ""


def test_bibtex_parses_back_with_every_field_and_stable_keys():
    text = export.answer_bibtex([answer(), answer(), None])  # the same papers twice: merged
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks
    first, second = library.entries
    assert (first.key, first.entry_type) == ("tan2025bisecle", "inproceedings")
    assert first["booktitle"] == "Advances in Neural Information Processing Systems"
    assert first["year"] == "2025"
    assert first["author"] == "Yue Tan and Xiaoqian Hu and Hao Xue and Céline D'Aubigné"
    assert (second.key, second.entry_type) == ("zoe2024optimal", "article")
    assert second["title"] == (  # LaTeX prints it as written, and the entry always parses
        r"On \textbraceleft{}Optimal\textbraceright{} Transport \& Flows\_2"
    )
    assert second["author"] == "Émile Zoë and others" and second["keywords"] == "transport, flows"
    assert export.bibtex_key(BISECLE) == "tan2025bisecle"  # same paper, same key, every time


SAQNN = Paper(
    paper_id="s3",
    title="SAQNN: Spectral Adaptive Quantum Neural Network as a Universal Approximator",
    title_source="metadata",
    authors=["Jialiang Tang"],
    url="https://arxiv.org/abs/2602.09718",
    abstract="Quantum.",
    source_file="seeds/b.txt",
)


def unbraced(text: str) -> str:
    return text.replace("{", "").replace("}", "")


def test_bibtex_has_the_year_the_proceedings_and_protected_capitals_in_two_parsers():
    from pybtex.database import parse_string

    iclr = BISECLE.model_copy(
        update={
            "paper_id": "f4",
            "venue": "ICLR 2026",
            "title": "FIRE: Balancing the Stability-Plasticity Tradeoff",
        }
    )
    sentence_case = OT.model_copy(
        update={"paper_id": "o5", "title": "Spectral bias in Fourier networks", "venue": None}
    )
    workshop = BISECLE.model_copy(update={"paper_id": "w6", "venue": "NeurIPS 2025 Workshop on X"})
    papers = [BISECLE, iclr, SAQNN, sentence_case, workshop]
    text = export.bibtex(papers)
    entries = {entry.key: entry for entry in bibtexparser.parse_string(text).entries}
    other = parse_string(text, "bibtex").entries  # a second parser reads the same
    assert list(entries) == list(other) and len(entries) == 5
    saqnn = entries["tang2026saqnn"]  # no venue: still its year (its arXiv id's)
    assert (saqnn.entry_type, saqnn["year"], saqnn["eprint"]) == ("misc", "2026", "2602.09718")
    assert saqnn["title"].startswith("{SAQNN}: Spectral")
    fire = entries["tan2026fire"]
    assert fire["booktitle"] == "International Conference on Learning Representations"
    assert fire["title"] == "{FIRE}: Balancing the {Stability-Plasticity} Tradeoff"
    assert entries["zoe2024spectral"]["title"] == "Spectral bias in {Fourier} networks"
    assert entries["tan2025bisecle"]["booktitle"].startswith("Advances in Neural")
    assert entries["tan2025biseclew6"]["booktitle"] == "NeurIPS 2025 Workshop on X"
    for paper, (key, entry) in zip(papers, other.items()):
        assert unbraced(entry.fields["title"]) == paper.title  # what was protected, as written
        assert unbraced(entries[key]["title"]) == paper.title
        assert entry.fields["year"] == entries[key]["year"]


def test_different_papers_with_the_same_key_get_different_keys():
    twin = BISECLE.model_copy(update={"paper_id": "b9", "abstract": "Another."})
    keys = [e.key for e in bibtexparser.parse_string(export.bibtex([BISECLE, twin])).entries]
    assert keys == ["tan2025bisecle", "tan2025bisecleb9"]


def test_a_conversation_is_one_document_numbered_as_the_chat_numbers_its_answers():
    whole = export.conversation_markdown([None, answer(), None, answer(layout="list")])
    assert whole.startswith("# Conversation\n\n## 1. How?")  # the stopped first turn: no number
    assert "## 2. How?" in whole and "## 3." not in whole


def test_a_decline_lists_its_suggestions_with_one_line_each_or_none():
    from rag.text import CANNOT_ANSWER

    text = CANNOT_ANSWER + " The closest papers in the corpus are listed as suggestions."
    declined = Answer(question="Q?", text=text, abstained=True, backend="fake")
    assert export.markdown(declined) == CANNOT_ANSWER  # none offered: none promised
    suggested = declined.model_copy(update={"suggestions": [source(BISECLE)]})
    assert export.markdown(suggested) == (
        f"{CANNOT_ANSWER}\n\nThe closest papers:\n\n- **Bisecle: Binding and Separation in "
        "Continual Video Language Understanding** — We bind and separate."
    )
