"""Property-based tests: corpus files, model output and questions from the hostile end of the
input space (garbage bytes, wrong JSON types, marker storms, huge lines) never crash, never
lose a good record, and never produce a citation that names no source."""

import csv
import io
import json
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from rag.answer.citations import MARKER, MAX_RANGE, marker_numbers, parse_answer, render, renumber
from rag.answer.pipeline import MAX_QUESTION_CHARS, Answerer, check_question
from rag.config import Settings
from rag.corpus import MAX_PROBLEMS_PER_FILE, SUFFIXES, load_corpus, read_file
from rag.errors import RagError
from rag.llm.fake import FakeBackend
from rag.models import Paper, Source, paper_id_for
from rag.sentences import split_sentences
from rag.tuning import AnswerTuning
from tests.conftest import abstract, write_jsonl

FUZZ = hypothesis_settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
MAX_CHARS = 20_000
LINE_BREAKS = re.compile(r"\r\n|\r|\n")

# ---------------------------------------------------------------- corpus files


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """One folder for every generated file (hypothesis examples cannot use tmp_path)."""
    return tmp_path_factory.mktemp("fuzz")


def read_bytes_as(folder: Path, name: str, data: bytes):
    """read_file on `data`; an unusable file may only raise the project's own errors."""
    path = folder / name
    path.write_bytes(data)
    try:
        papers, problems = read_file(path, MAX_CHARS)
    except RagError as error:
        assert str(error)
        return path, [], []
    assert all(problem.file == str(path) and problem.message for problem in problems)
    for paper in papers:  # everything kept can be stored: JSON-serializable, valid UTF-8
        paper.model_dump_json().encode()
        assert paper.abstract.strip() and len(paper.abstract) <= MAX_CHARS
    return path, papers, problems


@pytest.mark.slow
@FUZZ
@given(data=st.binary(max_size=3000), suffix=st.sampled_from(SUFFIXES))
def test_arbitrary_bytes_never_crash_a_reader(folder, data, suffix):
    read_bytes_as(folder, "bytes" + suffix, data)


@pytest.mark.slow
@FUZZ
@given(text=st.text(max_size=2000), suffix=st.sampled_from(SUFFIXES))
def test_arbitrary_text_never_crashes_a_reader(folder, text, suffix):
    read_bytes_as(folder, "text" + suffix, text.encode("utf-8", errors="surrogatepass"))


# Text that JSON and CSV carry fine, including line separators JSON allows inside strings.
FIELD_TEXT = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\r"), max_size=80
).map(lambda text: text + "\u2028\x85 words")
GOOD_ABSTRACT = st.builds(
    lambda text, n: f"Abstract {n}: {text}", FIELD_TEXT, st.integers(0, 10**9)
)
GOOD_RECORD = st.fixed_dictionaries(
    {"abstract": GOOD_ABSTRACT},
    optional={
        "title": FIELD_TEXT,
        "authors": st.one_of(FIELD_TEXT, st.lists(FIELD_TEXT, max_size=3)),
        "venue": FIELD_TEXT,
        "extra": st.recursive(st.none() | st.integers(), st.lists, max_leaves=5),
    },
)
WRONG_JSON = st.sampled_from(
    [
        "[1, 2, 3]",
        "42",
        '"just a string"',
        "null",
        "true",
        '{"title": "no abstract"}',
        '{"abstract": ["a", "list"]}',
        '{"abstract": {"nested": {"deeper": 1}}}',
        '{"abstract": 12345}',
        '{"abstract": "   "}',
        '{"abstract": "fine", "title": {"an": "object"}}',
        '{"abstract": "fine", "authors": {"an": "object"}}',
        '{"abstract": "a lone surrogate \\ud800 escape"}',
        '{"abstract": "fine", "authors": ["\\udc80"]}',
        "[" * 5_000 + "]" * 5_000,
        "9" * 5_000,
        '{"abstract": "' + "long " * 5_000 + '"}',
        '{"abstract": "unterminated',
        "\x00\x00\x00",
        "\ufeff{}",
    ]
).map(str.encode)
INVALID_BYTES = st.sampled_from([b"\xff\xfe\xfd", b'{"abstract": "bad \xc3\x28 bytes"}', b"\x80"])


def unusable_json_line(line: bytes) -> bool:
    """Whether a generated garbage line really is garbage (random text almost always is)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return True
    return not (isinstance(record, dict) and isinstance(record.get("abstract"), str))


GARBAGE_LINE = st.one_of(
    WRONG_JSON,
    INVALID_BYTES,
    st.text(st.characters(blacklist_characters="\r\n"), min_size=1, max_size=60)
    .filter(str.strip)
    .map(lambda text: text.encode("utf-8", errors="surrogatepass"))
    .filter(unusable_json_line),
)


@pytest.mark.slow
@FUZZ
@given(
    lines=st.lists(
        st.one_of(GOOD_RECORD.map(lambda r: ("good", r)), GARBAGE_LINE.map(lambda g: ("bad", g))),
        min_size=1,
        max_size=MAX_PROBLEMS_PER_FILE,  # past it, the rest are summed up in one line
    ),
    crlf=st.booleans(),
)
def test_jsonl_keeps_every_good_record_and_names_every_bad_line(folder, lines, crlf):
    abstracts = [item for kind, item in lines if kind == "good"]
    assume(len({paper_id_for(r["abstract"]) for r in abstracts}) == len(abstracts))
    encoded = [
        json.dumps(item, ensure_ascii=False).encode() if kind == "good" else item
        for kind, item in lines
    ]
    data = (b"\r\n" if crlf else b"\n").join(encoded)
    path, papers, problems = read_bytes_as(folder, "mixed.jsonl", data)

    assert [p.paper_id for p in papers] == [paper_id_for(r["abstract"]) for r in abstracts]
    bad_lines = [number for number, (kind, _) in enumerate(lines, start=1) if kind == "bad"]
    assert [problem.line for problem in problems] == bad_lines
    assert all(str(p).startswith(f"{path}:{p.line}: ") for p in problems)


@pytest.mark.slow
@FUZZ
@given(
    rows=st.lists(
        st.tuples(st.sampled_from(["good", "empty", "blank line"]), FIELD_TEXT, GOOD_ABSTRACT),
        min_size=1,
        max_size=20,
    ),
    bom=st.booleans(),
)
def test_csv_keeps_every_good_row_and_names_every_bad_one(folder, rows, bom):
    """Quotes, commas and newlines inside fields, blank lines, Excel's BOM."""
    good = [item for kind, _, item in rows if kind == "good"]
    assume(len({paper_id_for(text) for text in good}) == len(good))
    assume(any(kind != "blank line" for kind, _, _ in rows))  # else: "no abstracts found"
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["Title", "abstract", "venue"])
    bad_lines = []
    for kind, title, text in rows:
        line = len(LINE_BREAKS.findall(out.getvalue())) + 1
        if kind == "blank line":
            out.write("\n")
        elif kind == "empty":
            bad_lines.append(line)
            writer.writerow([title, "", "v"])
        else:
            writer.writerow([title, text, "v"])
    data = ("\ufeff" if bom else "") + out.getvalue()
    path, papers, problems = read_bytes_as(folder, "mixed.csv", data.encode())

    assert [p.paper_id for p in papers] == [paper_id_for(text) for text in good]
    assert [problem.line for problem in problems] == bad_lines
    assert all(str(p) == f"{path}:{p.line}: empty abstract" for p in problems)


@pytest.mark.slow
@FUZZ
@given(
    good=st.lists(GOOD_ABSTRACT, min_size=1, max_size=5, unique_by=paper_id_for),
    tail=st.text(st.characters(blacklist_categories=["Cs"]), max_size=200),
)
def test_csv_unbalanced_quote_keeps_the_rows_before_it(folder, good, tail):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["abstract"])
    writer.writerows([text] for text in good)
    data = out.getvalue() + '"' + tail  # a quote that never closes swallows the rest
    _, papers, _ = read_bytes_as(folder, "quote.csv", data.encode())
    kept = [p.paper_id for p in papers]
    assert kept[: len(good)] == [paper_id_for(text) for text in good]


def test_megabyte_lines_are_rejected_with_their_line_and_the_rest_is_kept(folder):
    good = {"title": "Good", "abstract": abstract("good things")}
    lines = [
        json.dumps({"abstract": "word " * 200_000}),  # 1 MB abstract: over the limit
        "x" * 1_000_000,  # 1 MB of garbage
        json.dumps(good),
        '{"abstract": "with a NUL \\u0000 escape"}',
    ]
    path, papers, problems = read_bytes_as(folder, "huge.jsonl", "\n".join(lines).encode())
    assert [p.title for p in papers] == ["Good", "with a NUL \x00 escape"]
    assert [str(p)[: len(str(path)) + 4] for p in problems] == [f"{path}:1: ", f"{path}:2: "]
    assert "over the 20,000 limit" in problems[0].message
    assert "malformed JSON" in problems[1].message


@pytest.mark.slow
@FUZZ
@given(sidecar=st.binary(max_size=2000) | GARBAGE_LINE)
def test_garbage_titles_sidecar_never_breaks_the_corpus(folder, sidecar):
    corpus = write_jsonl(folder / "c.jsonl", [{"abstract": abstract("sidecars")}])
    titles = folder / "titles.jsonl"
    titles.write_bytes(sidecar)
    loaded = load_corpus([corpus], titles, MAX_CHARS)
    assert len(loaded.papers) == 1 and loaded.papers[0].title.strip()
    loaded.papers[0].model_dump_json().encode()


def test_a_sidecar_entry_with_an_empty_start_does_not_retitle_every_paper(tmp_path):
    corpus = write_jsonl(tmp_path / "c.jsonl", [{"abstract": abstract("x")}])
    titles = write_jsonl(tmp_path / "t.jsonl", [{"abstract_start": " ", "title": "Everything"}])
    loaded = load_corpus([corpus], titles, MAX_CHARS)
    assert [p.title_source for p in loaded.papers] == ["derived"]
    assert [p.line for p in loaded.problems] == [1]


# ---------------------------------------------------------------- citations


def source(number: int) -> Source:
    paper = Paper(
        paper_id=f"p{number}",
        title=f"Paper number {number}",
        title_source="metadata",
        abstract="Something.",
        source_file="f",
    )
    return Source(paper=paper, passage="Something.", score=1.0, relevance=1.0)


SOURCES = [source(n) for n in range(1, 6)]

BRACKETS = ["[", "]", "[[", "]]", "[1", "1]", "[1,", "[Source", "sources 2]", "【", "】"]
FRAGMENTS = ["[[2]]", "[[2]3]", " and ", ", ", "-", "–", "\n", ". ", "e.g. ", "et al. ", "!", "?"]
MARKERISH = st.one_of(
    st.integers(-3, 12).map(lambda n: f"[{n}]"),
    st.integers(0, 10**25).map(lambda n: f"[{n}]"),
    st.tuples(st.integers(0, 9), st.integers(0, 10**7)).map(lambda r: f"[{r[0]}-{r[1]}]"),
    st.integers(0, 9).map(lambda n: f"【{n}】"),
    st.sampled_from(BRACKETS + FRAGMENTS),
    st.text(max_size=12),
)


def assert_citations_are_sound(raw: str, n_sources: int):
    """No exception; every citation names a source; only checked markers remain as brackets."""
    sentences, dropped = parse_answer(raw, n_sources)
    assert all(1 <= n <= n_sources for s in sentences for n in s.citations)
    assert not any(bracket in s.text for s in sentences for bracket in "[]【】")
    citations = renumber(sentences, SOURCES[:n_sources])
    assert [c.number for c in citations] == list(range(1, len(citations) + 1))
    text = render(sentences)
    for marker in MARKER.finditer(text):
        assert re.fullmatch(r"\[\d+\]", marker.group(0)), text
        assert 1 <= int(marker.group(1)) <= len(citations), text
    return sentences, dropped


@pytest.mark.slow
@hypothesis_settings(max_examples=400, deadline=None)
@given(parts=st.lists(MARKERISH, max_size=60), n_sources=st.integers(0, 5))
def test_no_model_output_yields_a_citation_without_a_source(parts, n_sources):
    assert_citations_are_sound("".join(parts), n_sources)


@pytest.mark.slow
@hypothesis_settings(max_examples=200, deadline=None)
@given(raw=st.text(max_size=500), n_sources=st.integers(0, 5))
def test_arbitrary_text_parses(raw, n_sources):
    assert_citations_are_sound(raw, n_sources)


@pytest.mark.slow
@hypothesis_settings(max_examples=200, deadline=None)
@given(text=st.text(st.sampled_from("ab .!?\n[]1e.g"), max_size=300) | st.text(max_size=300))
def test_sentence_splitting_keeps_every_character_in_order(text):
    sentences = split_sentences(text)
    assert "".join("".join(sentences).split()) == "".join(text.split())
    assert all(s == s.strip() and s for s in sentences)


def test_huge_numbers_and_ranges_are_dropped_not_expanded():
    assert len(marker_numbers("1-1000000")) == MAX_RANGE + 1
    sentences, dropped = parse_answer(
        "Claim [99999999999999999999]. Other [12345]. Big [" + "9" * 5000 + "]. Fine [2].", 3
    )
    assert [s.citations for s in sentences] == [[], [], [], [2]] and dropped == 3
    assert [c.paper_id for c in renumber(sentences, SOURCES[:3])] == ["p2"]
    assert render(sentences) == "Claim. Other. Big. Fine [1]."


STORMS = {
    "markers": "[1]" * 33_000,
    "out of range": "[99] " * 20_000,
    "ranges": "[1-1000000]" * 9_000,
    "line per marker": "[2]\n" * 25_000,
    "abbreviations": "e.g. " * 20_000,
    "unclosed": "[1" * 50_000,
    "closers": "]]" * 50_000,
    "nested": "[" * 30_000 + "1]1]" * 10_000,
    "spaces": " " * 100_000,
    "one huge number": "[" + "7" * 99_998 + "]",
    "sentences": "A claim about things [1][2]. " * 3_500,
    "lenticular": "【3】" * 33_000,
}


@pytest.mark.slow
@pytest.mark.parametrize("raw", STORMS.values(), ids=STORMS.keys())
def test_a_100k_marker_storm_parses_without_hanging(raw):
    """The bound only catches a hang (a backtracking pattern), not a slower parser."""
    started = time.perf_counter()
    sentences, _ = assert_citations_are_sound(raw[:100_000], 3)
    assert time.perf_counter() - started < 60
    assert sum(len(s.citations) for s in sentences) <= 3 * max(1, len(sentences))


# ---------------------------------------------------------------- questions

BAD_QUESTIONS = {"empty": "", "whitespace": " \n\t\u3000 ", "huge": "why? " * 20_000}


@pytest.mark.parametrize("question", BAD_QUESTIONS.values(), ids=BAD_QUESTIONS.keys())
def test_unusable_questions_get_a_message(question):
    with pytest.raises(RagError, match="question") as error:
        check_question(question)
    if question.strip():
        assert f"{MAX_QUESTION_CHARS:,}" in str(error.value)


def test_unusable_questions_never_reach_the_model(tmp_path):
    from rag.index import run_ingest

    settings = Settings(
        embedding_model="fake", data_dir=tmp_path / "data", answer=AnswerTuning(min_relevance=0.0)
    )
    corpus = write_jsonl(
        tmp_path / "c.jsonl", [{"title": "Graphs", "abstract": abstract("graphs")}]
    )
    run_ingest(settings, [corpus], show_progress=False)
    backend = FakeBackend()
    answerer = Answerer(settings, backend=backend)
    for question in BAD_QUESTIONS.values():
        with pytest.raises(RagError):
            list(answerer.ask(question))
        with pytest.raises(RagError):
            list(answerer.summarize(question))
    assert backend.prompts == []
    answer = list(answerer.ask("How are graphs handled?"))[-1]
    assert len(backend.prompts) == 1 and answer.citations  # a real question does reach it
