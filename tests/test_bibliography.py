"""Reference-manager exports: BibTeX (Zotero, JabRef, Mendeley) and RIS, read as users export
them, down to `rag ingest library.bib` and `rag papers`."""

import json
import subprocess
import sys

import pytest

from rag.corpus import read_file
from rag.corpus.bibliography import bibtex_records, ris_records
from rag.corpus.records import RecordError, build_paper
from tests.conftest import REPO, abstract, write_jsonl

DATA = REPO / "tests" / "data"
ZOTERO_BIB = DATA / "zotero.bib"
ZOTERO_RIS = DATA / "zotero.ris"


def problems_of(path) -> list[tuple[int | None, str]]:
    return [(problem.line, problem.message) for problem in read_file(path, 20_000)[1]]


def test_bibtex_fields_are_decoded_to_unicode_and_math_is_kept():
    papers, _ = read_file(ZOTERO_BIB, 20_000)
    assert [p.title for p in papers] == [
        "Sparse Attention for Long Documents: A Study of BERT Variants",
        "Dense Retrieval for Open-Domain Question Answering in Japanese",
        "Graph Neural Networks for Çay Leaf Disease Detection",
    ]
    sparse, dense, leaf = papers
    assert sparse.authors == ["Jörg Müller", "María García", "Ana van der Berg"]
    assert sparse.venue == "Advances in Neural Information Processing Systems"  # @string
    assert (sparse.year, sparse.keywords) == (
        2021,
        ["transformers", "sparse attention", "long documents"],
    )
    assert sparse.url.endswith("/hash/3f5ee243547dee91fbd053c1c4a845aa-Abstract.html")
    assert sparse.abstract.startswith(
        "Transformers such as BERT scale quadratically with sequence length, $O(n^2)$. "
        "We propose a sparse attention pattern with $k \\ll n$ global tokens that cuts memory "
        "by 60% on documents"
    )
    assert dense.url == "https://doi.org/10.1162/tacl_a_00555"  # from the doi, `\_` unescaped
    assert dense.venue == "Transactions of the Association for Computational Linguistics"
    assert (dense.authors, dense.authors_truncated) == (["Kenji Sato", "Yui Tanaka"], True)
    assert "2–5 times" in dense.abstract and dense.year == 2023
    assert leaf.authors == ["Ayşe Öztürk", "Emre Demir"]
    assert leaf.abstract.startswith("Tea (çay) growers in Rize")
    assert "94.1% accuracy" in leaf.abstract and "Ayşe's team" in leaf.abstract
    assert leaf.url == "https://doi.org/10.1109/CVPRW56347.2022.00042"
    assert leaf.keywords == ["agriculture", "Camellia sinensis"]


def test_bibtex_entries_without_abstract_and_duplicate_keys_are_named_with_their_line():
    assert problems_of(ZOTERO_BIB) == [
        (34, "entry 'lee_survey_2020' has no abstract; skipped"),
        (60, "duplicate key 'sato_dense_2023' (first at line 20); skipped"),
    ]
    lines = ZOTERO_BIB.read_text().splitlines()
    assert lines[33].startswith("@misc{lee_survey_2020,")
    assert lines[59].startswith("@article{sato_dense_2023,")


def test_unreadable_bibtex_entries_are_rejected_and_the_rest_kept():
    text = (
        "@article{broken,\n  title = {Unclosed {brace,\n  abstract = {lost}\n\n"
        "@article{twice,\n  title = {A},\n  title = {B},\n  abstract = {x}\n}\n"
        "@article{commas,\n  author = {A, B, C, D},\n  abstract = {y}\n}\n"
        "@article{good,\n  abstract = {Kept 95% (a bare %, as typed)},\n"
        "  year = {n.d.},\n  doi = {doi:10.1/x}\n}\n"
    )
    records, rejected = bibtex_records(text)
    assert rejected == [
        (
            1,
            (
                "entry 'broken' cannot be parsed (Unexpected block start: `@article`. "
                "Was still looking for field-value closing `}`); skipped"
            ),
        ),
        (5, "entry 'twice' has the field 'title' more than once; skipped"),
    ]
    assert [line for line, _ in records] == [10, 14]  # a name that does not split: kept
    paper = build_paper(records[1][1], "x.bib", 20_000)
    assert (paper.abstract, paper.year, paper.url) == (
        "Kept 95% (a bare %, as typed)",
        None,
        "https://doi.org/10.1/x",
    )


def test_ris_export_is_read_with_display_names_and_doi_links(tmp_path):
    papers, problems = read_file(ZOTERO_RIS, 20_000)
    assert [(p.line, p.message) for p in problems] == [
        (33, "record 'Deep Learning' has no abstract (AB); skipped")
    ]
    claims, federated = papers
    assert claims.title == "Contrastive Pretraining for Scientific Claim Verification"
    assert claims.authors == ["Ayşe Öztürk", "Thi Minh Nguyen"]
    assert (claims.venue, claims.year) == ("Journal of Machine Learning Research", 2022)
    assert claims.url == "https://doi.org/10.5555/jmlr.2022.0042"  # DO, not doubled
    assert claims.keywords == ["claim verification", "contrastive learning"]
    assert federated.url == "https://aclanthology.org/2020.emnlp-main.101"  # UR wins over DO
    assert federated.authors == ["Piotr Kowalski", "João Silva"]
    assert federated.abstract.endswith("with 40% of labels flipped.")
    # Zotero writes RIS with Windows line ends
    crlf = tmp_path / "windows.ris"
    crlf.write_bytes(ZOTERO_RIS.read_bytes().replace(b"\n", b"\r\n"))
    again, crlf_problems = read_file(crlf, 20_000)
    assert [p.model_dump(exclude={"source_file"}) for p in again] == [
        p.model_dump(exclude={"source_file"}) for p in papers
    ]
    assert [(p.line, p.message) for p in crlf_problems] == [(p.line, p.message) for p in problems]


def test_an_unfinished_ris_record_is_rejected_with_its_line():
    text = "TY  - JOUR\nAB  - First.\nTY  - JOUR\nTI  - Second\nAB  - Second.\nER  - \n"
    records, rejected = ris_records(text)
    assert rejected == [(1, "record has no end tag 'ER  -'; skipped")]
    assert [(line, record["abstract"]) for line, record in records] == [(3, "Second.")]


@pytest.mark.parametrize(
    ("suffix", "text", "message"),
    [
        (".bib", "Not BibTeX at all.\n", "no BibTeX entries (@article{…}) found; is this a BibTeX"),
        (
            ".ris",
            '{"title": "JSON, not RIS"}\n',
            "no RIS records (TY  - … ER  -) found; is this an RIS",
        ),
    ],
)
def test_a_file_that_is_not_the_format_says_so(tmp_path, suffix, text, message):
    path = tmp_path / f"library{suffix}"
    path.write_text(text)
    papers, problems = read_file(path, 20_000)
    assert papers == [] and [p.message for p in problems] == [message + " export?"]


def test_year_and_keywords_are_read_from_jsonl_and_csv(tmp_path):
    records = [
        {"abstract": abstract("a"), "year": 2019, "keywords": ["RAG", "retrieval", "rag"]},
        {"abstract": abstract("b"), "year": "2020-06", "keywords": "graphs; GNN, trees"},
        {"abstract": abstract("c"), "year": "in press"},
        {"abstract": abstract("d"), "year": 19},
        {"abstract": abstract("e"), "year": [2019]},
    ]
    papers, problems = read_file(write_jsonl(tmp_path / "c.jsonl", records), 20_000)
    assert [(p.year, p.keywords) for p in papers] == [
        (2019, ["RAG", "retrieval"]),
        (2020, ["graphs", "GNN", "trees"]),
        (None, []),
    ]
    assert [(p.line, p.message) for p in problems] == [
        (4, "'year' must be a four-digit year like 2019, not 19"),
        (5, "'year' must be a four-digit year like 2019, not a list"),
    ]
    csv = tmp_path / "c.csv"
    csv.write_text(f'abstract,year,keywords\n"{abstract("f")}",2021.0,"x; y"\n')
    papers, problems = read_file(csv, 20_000)
    assert problems == [] and (papers[0].year, papers[0].keywords) == (2021, ["x", "y"])


def test_keywords_must_be_text_or_a_list():
    with pytest.raises(RecordError, match="'keywords' must be a list or text"):
        build_paper({"abstract": "A.", "keywords": {"a": 1}}, "c.jsonl", 20_000)


def test_keywords_are_searchable_by_bm25(settings):
    from rag.index import run_ingest
    from rag.index.bm25 import BM25Index

    run_ingest(settings, [ZOTERO_BIB], show_progress=False)
    lexical = BM25Index(settings.bm25_dir)
    leaf = next(p for p in lexical.papers if p.title.startswith("Graph Neural Networks"))
    # "Camellia sinensis" is only in the keywords, not in the title or abstract
    assert [chunk_id for chunk_id, _ in lexical.search("Camellia", 5)] == [f"{leaf.paper_id}#0"]


def rag(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rag", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.slow
def test_rag_ingest_a_zotero_library_and_list_its_papers(monkeypatch):
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", "fake")
    ingest = rag("ingest", str(ZOTERO_BIB), "--json")
    assert ingest.returncode == 1, ingest.stderr  # some entries were skipped
    report = json.loads(ingest.stdout)
    assert (report["papers"], report["added"], report["errors"]) == (3, 3, 2)
    assert f"rejected: {ZOTERO_BIB}:34: entry 'lee_survey_2020' has no abstract" in ingest.stderr
    assert "Traceback" not in ingest.stderr
    listed = json.loads(rag("papers", "--json").stdout)
    assert sorted((p["title"], p["year"]) for p in listed) == [
        ("Dense Retrieval for Open-Domain Question Answering in Japanese", 2023),
        ("Graph Neural Networks for Çay Leaf Disease Detection", 2022),
        ("Sparse Attention for Long Documents: A Study of BERT Variants", 2021),
    ]


@pytest.mark.slow
def test_rag_ingest_of_a_garbage_bib_is_one_clear_message(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", "fake")
    garbage = tmp_path / "library.bib"
    garbage.write_bytes(b"%PDF-1.7\n\x00\x9c\xff binary {{{ @@@ }\n")
    result = rag("ingest", str(garbage))
    assert result.returncode == 2
    assert "no BibTeX entries (@article{…}) found; is this a BibTeX export?" in result.stderr
    assert "Traceback" not in result.stderr
