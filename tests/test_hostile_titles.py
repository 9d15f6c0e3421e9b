"""Titles and authors are literal text everywhere: "[1]" in a title is no citation, Markdown in
it is no link, LaTeX in it does not run; links are kept only when they are http, https or doi."""

import bibtexparser
import pytest
from markdown_it import MarkdownIt

from rag import export
from rag.answer.citations import parse_answer
from rag.corpus import load_corpus
from rag.links import safe_url
from rag.models import Citation, Paper
from rag.tuning import AnswerTuning
from tests.conftest import abstract, write_jsonl

HOSTILE = (
    "See [1] and [2]: a [Trusted Survey](http://evil.example/phish). Of Graph Robustness "
    r"at 50% & \input{/etc/passwd}"
)
AUTHOR = "[Mallory](http://evil.example)"


def hostile_paper(**fields) -> Paper:
    return Paper(
        paper_id="h1",
        title=HOSTILE,
        title_source="metadata",
        authors=[AUTHOR, "Eve Adams"],
        venue="NeurIPS 2025",
        abstract="We survey graph robustness.",
        source_file="x.jsonl",
        **fields,
    )


def test_markers_inside_a_title_are_text_not_citations():
    raw = f"{HOSTILE}: we survey graph robustness [2]. Another paper helps [1]."
    sentences, dropped = parse_answer(raw, 2, [HOSTILE, "Other Paper"])
    assert [s.text for s in sentences] == [
        f"{HOSTILE}: we survey graph robustness.",
        "Another paper helps.",
    ]
    assert [s.citations for s in sentences] == [[2], [1]] and dropped == 0


def test_a_title_as_the_prompt_shows_it_is_restored_as_written():
    shown = "See (1) and (2): a [Trusted Survey](http://evil.example/phish). Of Graph Robustness"
    sentences, _ = parse_answer(
        f"{shown} at 50% & \\input{{/etc/passwd}} does it [1].", 1, [HOSTILE]
    )
    assert [(s.text, s.citations) for s in sentences] == [(f"{HOSTILE} does it.", [1])]


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        ("https://openreview.net/forum?id=1", "https://openreview.net/forum?id=1"),
        ("HTTP://a.example/x_(y)", "HTTP://a.example/x_(y)"),
        ("doi:10.1000/xyz", "https://doi.org/10.1000/xyz"),
        ("javascript:alert(1)", None),
        ("data:text/html,<b>x</b>", None),
        ("file:///etc/passwd", None),
        ("https://a.example/x onmouseover=alert(1)", None),
        ('https://a.example/"><script>', None),
        ("//evil.example", None),
    ],
)
def test_only_http_https_and_doi_links_are_kept(url, kept):
    assert safe_url(url) == kept
    assert hostile_paper(url=url).url == kept
    assert Citation(number=1, paper_id="h1", title="t", url=url).url == kept


def test_ingest_drops_other_links_and_says_so(tmp_path):
    records = [
        {"title": HOSTILE, "abstract": abstract("graphs"), "url": "javascript:alert(1)"},
        {"title": "Fine", "abstract": abstract("trees"), "url": "doi:10.1/abc"},
    ]
    corpus = load_corpus([write_jsonl(tmp_path / "c.jsonl", records)], None, 20_000)
    assert [paper.url for paper in corpus.papers] == [None, "https://doi.org/10.1/abc"]
    [note] = [str(problem) for problem in corpus.problems]
    assert "c.jsonl:1" in note and "'javascript:alert(1)' dropped" in note
    assert corpus.papers[0].title == HOSTILE


def test_bibtex_escapes_titles_and_authors_and_keeps_only_safe_links():
    paper = hostile_paper().model_copy(update={"url": "javascript:alert(1)"})  # an old index
    text = export.bibtex([paper])
    assert "javascript" not in text and "url =" not in text
    assert r"\textbackslash{}input\textbraceleft{}/etc/passwd\textbraceright{}" in text
    assert r"50\% \&" in text
    [entry] = bibtexparser.parse_string(text).entries
    assert entry["author"] == f"{AUTHOR} and Eve Adams"  # literal text: LaTeX has no links


def test_markdown_shows_titles_authors_and_links_as_written():
    paper = hostile_paper(url="https://a.example/[Survey](http://evil.example)")
    html = MarkdownIt("commonmark").render(export.reference(1, paper))
    assert "<a " not in html  # neither the title, the author nor the link's own text link
    assert "See [1] and [2]: a [Trusted Survey](http://evil.example/phish). Of Graph" in html
    assert f"{AUTHOR}, Eve Adams" in html and r"50% &amp; \input{/etc/passwd}" in html
    assert "https://a.example/%5BSurvey%5D%28http://evil.example%29" in html


def test_an_answer_from_a_paper_with_a_hostile_title_shows_the_title_as_written(settings, tmp_path):
    from rag.answer.pipeline import Answerer
    from rag.index import run_ingest

    settings = settings.model_copy(
        update={"answer": AnswerTuning(min_relevance=0.0), "llm_backend": "extractive"}
    )
    records = [
        {
            "title": HOSTILE,
            "authors": [AUTHOR],
            "url": "javascript:alert(1)",
            "abstract": (
                "We survey graph robustness under adversarial attacks. Certified defenses cost "
                "accuracy on clean graphs."
            ),
        },
        *({"title": f"Paper {n}", "abstract": abstract(f"topic {n}")} for n in range(3)),
    ]
    run_ingest(settings, [write_jsonl(tmp_path / "c.jsonl", records)], show_progress=False)
    *_, answer = Answerer(settings).ask("Which paper surveys graph robustness under attacks?")
    assert answer.text.startswith(f"{HOSTILE}: We survey graph robustness")
    assert [(c.number, c.title, c.url) for c in answer.citations] == [(1, HOSTILE, None)]
    assert "javascript" not in export.answer_bibtex([answer]) + str(answer.summary())
