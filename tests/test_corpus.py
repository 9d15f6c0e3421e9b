from pathlib import Path

import pytest

from rag.corpus import load_corpus, read_file
from rag.errors import CorpusError
from rag.models import paper_id_for
from tests.conftest import SEEDS, TITLES, abstract, write_jsonl

BARE = SEEDS / "000_9842054095807b27.txt"
WITH_AREAS = SEEDS / "003_b68677460ef15ad0.txt"


def test_bare_seed_layout_gets_derived_titles_without_sidecar():
    papers, problems = read_file(BARE, 20_000)
    assert problems == [] and len(papers) == 19
    assert all(p.title and p.title_source == "derived" for p in papers)
    assert papers[0].abstract.startswith("Efficient neural networks are essential")
    assert all(p.authors == [] and p.area is None for p in papers)


def test_area_layout_parses_area_subarea_and_authors():
    papers, problems = read_file(WITH_AREAS, 20_000)
    assert problems == [] and len(papers) == 20
    first = papers[0]
    assert (first.area, first.subarea) == ("Theory", "Learning Theory")
    assert first.authors == ["Jialiang Tang", "Jialin Zhang", "Xiaoming Sun"]
    assert first.abstract.startswith("Quantum machine learning (QML)")
    # some entries carry authors but no area line
    assert any(p.authors and p.area is None for p in papers)
    truncated = [p for p in papers if p.authors_truncated]
    assert len(truncated) == 1 and truncated[0].authors[-1] == "Francis Willett"


def test_titles_sidecar_gives_every_seed_paper_its_real_title(seed_titles):
    corpus = load_corpus([SEEDS], TITLES, 20_000)
    assert corpus.problems == []
    assert len(corpus.papers) == 58
    assert {p.title for p in corpus.papers} == set(seed_titles.values())
    assert all(p.title_source == "metadata" for p in corpus.papers)
    by_title = {p.title: p for p in corpus.papers}
    pricing = by_title[
        "A Bayesian Approach to Contextual Dynamic Pricing using the Proportional Hazards "
        "Model with Discrete Price Data"
    ]
    assert pricing.venue == "NeurIPS 2025" and pricing.url


def test_sidecar_completes_a_truncated_author_list():
    corpus = load_corpus([WITH_AREAS], TITLES, 20_000)
    paper = next(p for p in corpus.papers if "Yizi Zhang" in p.authors)
    assert len(paper.authors) == 12 and not paper.authors_truncated


def test_paper_id_ignores_case_and_whitespace():
    assert paper_id_for("Deep  Nets\nwork.") == paper_id_for("deep nets work.")
    assert paper_id_for("deep nets work.") != paper_id_for("deep nets fail.")


def test_jsonl_and_csv_corpora(tmp_path):
    jsonl = write_jsonl(
        tmp_path / "c.jsonl",
        [
            {
                "title": "Graph Things",
                "abstract": abstract("graphs"),
                "authors": ["Ada Lovelace"],
                "venue": "ICML 2025",
                "area": "Theory · Graphs",
                "url": "https://x.org/1",
            },
            {"abstract": abstract("untitled stuff"), "authors": "A. One, B. Two"},
        ],
    )
    papers, problems = read_file(jsonl, 20_000)
    assert problems == []
    assert papers[0].title == "Graph Things" and papers[0].title_source == "metadata"
    assert (papers[0].area, papers[0].subarea, papers[0].venue) == ("Theory", "Graphs", "ICML 2025")
    assert papers[1].title_source == "derived" and papers[1].authors == ["A. One", "B. Two"]

    csv_file = tmp_path / "c.csv"
    csv_file.write_text(
        'Title,Abstract,Authors\n"Multi, line","' + abstract("csv") + '\nsecond line",X Y\n'
    )
    papers, problems = read_file(csv_file, 20_000)
    assert problems == [] and papers[0].title == "Multi, line" and papers[0].authors == ["X Y"]
    assert "second line" in papers[0].abstract


def test_bad_records_are_reported_by_line_and_the_rest_kept(tmp_path):
    bad = tmp_path / "bad.jsonl"
    good = '{"title": "Fine", "abstract": "%s"}\n' % abstract("fine things")
    bad.write_bytes(
        good.encode()
        + b'{"title": "broken", "abstract": \n'
        + b'{"title": "empty", "abstract": "  "}\n'
        + ('{"title": "huge", "abstract": "%s"}\n' % ("word " * 10_000)).encode()
        + b'{"title": "latin1 \xe9\xe8", "abstract": "'
        + abstract("bytes").encode()
        + b'"}\n'
        + b'["not", "an", "object"]\n'
    )
    papers, problems = read_file(bad, 20_000)
    assert [p.title for p in papers] == ["Fine"]
    messages = {problem.line: problem.message for problem in problems}
    assert set(messages) == {2, 3, 4, 5, 6}
    assert "malformed JSON" in messages[2]
    assert "empty abstract" in messages[3]
    assert "limit" in messages[4]
    assert "UTF-8" in messages[5]
    assert all(str(problem).startswith(f"{bad}:") for problem in problems)


def test_csv_without_abstract_column_empty_file_and_unknown_suffix(tmp_path):
    no_abstract = tmp_path / "n.csv"
    no_abstract.write_text("title,summary\nA,B\n")
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF")
    for path, expected in [
        (no_abstract, "no 'abstract' column"),
        (empty, "file is empty"),
        (pdf, "unsupported file type"),
    ]:
        papers, problems = read_file(path, 20_000)
        assert papers == [] and expected in problems[0].message


def test_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(CorpusError, match="does not exist"):
        load_corpus([tmp_path / "nope"], None, 20_000)


def test_duplicate_abstracts_are_reported_once(tmp_path):
    text = abstract("twins")
    path = write_jsonl(tmp_path / "d.jsonl", [{"abstract": text}, {"abstract": text.upper()}])
    corpus = load_corpus([path], None, 20_000)
    (kept,), (problem,) = corpus.papers, corpus.problems
    assert kept.source_file == str(path) and problem.line == 2
    assert "duplicate" in problem.message and f"({path}:1)" in problem.message  # the one kept


def test_folder_entries_that_are_not_files_are_skipped_and_the_rest_indexed(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    write_jsonl(folder / "good.jsonl", [{"title": "Good", "abstract": abstract("good")}])
    (folder / "sub.jsonl").mkdir()  # a folder named like a corpus file
    (folder / "loop.jsonl").symlink_to(folder / "loop.jsonl")  # a link to itself
    (folder / "gone.csv").symlink_to(tmp_path / "missing.csv")  # a dangling link
    loaded = load_corpus([folder], None, 20_000)
    assert [p.title for p in loaded.papers] == ["Good"]
    skipped = {Path(p.file).name: p.message for p in loaded.problems}
    assert skipped == {
        "sub.jsonl": "skipped: a folder",
        "loop.jsonl": "skipped: a broken or looping link",
        "gone.csv": "skipped: a broken or looping link",
    }


def test_a_file_of_garbage_gives_twenty_problems_and_a_summary(tmp_path):
    garbage = tmp_path / "random.jsonl"
    garbage.write_bytes(b"\x00\xff{oops\n" * 5_000)
    papers, problems = read_file(garbage, 20_000)
    assert papers == [] and len(problems) == 21
    assert problems[-1].message == (
        "… and 4,980 more rejected records; the file does not look like JSONL"
    )


def test_a_short_or_ambiguous_titles_entry_renames_nothing(tmp_path):
    records = [
        {"abstract": "We propose a new efficient method for sparse attention in long texts. " * 3},
        {"abstract": "We propose a new efficient method for graph coloring with few colors. " * 3},
        {"abstract": "We propose a new efficient method for graph matching at scale. " * 3},
    ]
    corpus = write_jsonl(tmp_path / "c.jsonl", records)
    titles = write_jsonl(
        tmp_path / "t.jsonl",
        [
            {"abstract_start": "We propose", "title": "Too Short"},
            {"abstract_start": "We propose a new efficient method for sparse", "title": "Sparse"},
            {"abstract_start": "We propose a new efficient method for graph", "title": "Graphs"},
        ],
    )
    loaded = load_corpus([corpus], titles, 20_000)
    assert sorted(p.title for p in loaded.papers if p.title_source == "metadata") == ["Sparse"]
    messages = " | ".join(p.message for p in loaded.problems)
    assert "at least 30 are needed" in messages
    assert "'Graphs' matches 2 abstracts; not applied" in messages


def test_unused_csv_columns_and_long_rows_are_noted_once_and_rejected_nowhere(tmp_path):
    body = "".join(f'T{n},"{abstract(f"topic {n}")}",note {n},2020,extra\n' for n in range(5))
    corpus = tmp_path / "c.csv"
    corpus.write_text("title,abstract,notes,year\n" + body)
    papers, problems = read_file(corpus, 20_000)
    assert len(papers) == 5 and {p.year for p in papers} == {2020}
    assert [(p.message, p.warning) for p in problems] == [
        (
            (
                "column 'notes' not used (used: title, abstract, authors, area, subarea, "
                "venue, year, url, keywords)"
            ),
            True,
        ),
        (
            (
                "5 rows have more cells than the header (first at line 2); the extra cells "
                "were ignored"
            ),
            True,
        ),
    ]


def test_a_duplicate_names_its_line_and_the_line_of_the_first(tmp_path):
    records = [{"title": "A", "abstract": abstract("x")}, {"title": "B", "abstract": abstract("y")}]
    corpus = write_jsonl(tmp_path / "c.jsonl", [*records, {**records[0], "title": "A again"}])
    loaded = load_corpus([corpus], None, 20_000)
    assert [str(p) for p in loaded.problems] == [
        f"{corpus}:3: duplicate abstract of 'A' ({corpus}:1) skipped"
    ]
