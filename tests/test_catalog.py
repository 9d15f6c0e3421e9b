"""Chunk ids, and the catalog of indexed papers: its lists and its indexed title lookup."""

import random
import time
from difflib import SequenceMatcher

from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from rag.models import Paper, chunk_id_for, paper_of, title_key
from rag.retrieve.catalog import Catalog

ADAM = "Adam Reduces a Unique Form of Sharpness: Theoretical Insights Near the Minimizer Manifold"
HESSIAN = "Balancing Gradient and Hessian Queries in Non-Convex Optimization"


def paper(paper_id: str, title: str, **fields) -> Paper:
    return Paper(
        paper_id=paper_id,
        title=title,
        title_source="metadata",
        abstract="",
        source_file="x.jsonl",
        **fields,
    )


def scan(papers: list[Paper], text: str) -> str | None:
    """The title lookup as it was before the index: difflib over every title."""
    wanted, best, best_ratio = title_key(text), None, 0.0
    for candidate in papers:
        ratio = SequenceMatcher(None, wanted, title_key(candidate.title)).ratio()
        if ratio > best_ratio:
            best, best_ratio = candidate.paper_id, ratio
    return best if best_ratio >= 0.9 else None


def test_chunk_ids_name_their_paper():
    assert chunk_id_for("07d926aee5dce141", 3) == "07d926aee5dce141#3"
    assert paper_of(chunk_id_for("07d926aee5dce141", 0)) == "07d926aee5dce141"
    assert paper_of(chunk_id_for("odd#id", 12)) == "odd#id"


def test_catalog_lists_papers_areas_and_venues():
    papers = [
        paper("b", HESSIAN, area="Optimization", venue="NeurIPS 2025"),
        paper("a", ADAM, area="Theory", venue="NeurIPS 2025"),
        paper("c", "Untitled", area=None, venue="ICLR 2026"),
    ]
    catalog = Catalog(papers)
    assert [p.paper_id for p in catalog.papers()] == ["b", "a", "c"]  # index order
    assert len(catalog) == 3 and "a" in catalog and "z" not in catalog
    assert catalog.get("a").title == ADAM
    assert catalog.areas() == ["Optimization", "Theory"]
    assert catalog.venues() == ["ICLR 2026", "NeurIPS 2025"]


def test_find_title_forgives_case_punctuation_and_a_typo():
    catalog = Catalog([paper("h", HESSIAN), paper("a", ADAM)])
    assert catalog.find_title(ADAM) == "a"
    assert catalog.find_title(ADAM.upper().replace(":", " -") + "!") == "a"
    assert catalog.find_title(HESSIAN.replace("Gradient", "Gradeint")) == "h"
    assert catalog.find_title("Balancing Gradient and Hessian") is None  # too short a part
    assert catalog.find_title("Sharpness of minimizer manifolds") is None
    assert catalog.find_title("") is None
    assert Catalog([]).find_title(ADAM) is None


def test_find_title_picks_the_first_of_equal_titles():
    catalog = Catalog([paper("first", ADAM), paper("second", ADAM.upper())])
    assert catalog.find_title(ADAM.lower()) == "first"
    assert catalog.find_title(ADAM.replace("Unique", "Uniqeu")) == "first"


WORDS = ["deep", "graph", "learning", "neural", "nets", "bayes", "optimal", "transport", "a", "of"]
titles = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


@hypothesis_settings(max_examples=200, deadline=None)
@given(
    st.lists(titles, min_size=1, max_size=25),
    st.integers(0, 24),
    st.lists(st.tuples(st.integers(0, 60), st.sampled_from("xa -"), st.booleans()), max_size=4),
)
def test_find_title_answers_as_a_scan_of_every_title(corpus, pick, edits):
    """The index only narrows the candidates: the answer is always the full scan's."""
    papers = [paper(f"p{n}", title) for n, title in enumerate(corpus)]
    text = corpus[pick % len(corpus)]
    for position, character, insert in edits:  # typos: inserted or replaced characters
        position %= len(text) + 1
        text = text[:position] + character + text[position + (0 if insert else 1) :]
    assert Catalog(papers).find_title(text) == scan(papers, text)


def test_find_title_among_100k_papers():
    """Built and asked at 100k papers without a scan of every title (that takes ~25 s a
    question here); the timing guard only catches a hang, benchmarks/catalog.py measures."""
    rng = random.Random(0)
    vocabulary = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=8)) for _ in range(5000)]
    papers = [paper(f"p{n}", " ".join(rng.sample(vocabulary, 7))) for n in range(100_000)]
    started = time.perf_counter()
    catalog = Catalog(papers)
    target = papers[77_777].title
    assert catalog.find_title(target.upper()) == "p77777"
    assert catalog.find_title(target[:20] + "x" + target[21:]) == "p77777"
    assert catalog.find_title("nothing like any title here") is None
    assert time.perf_counter() - started < 60
