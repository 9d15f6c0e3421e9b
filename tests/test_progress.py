"""A long ingest says how far it is: a bar on a terminal, text lines in a log, JSON lines with
`rag ingest --json` (stdout keeps its one JSON object of counts)."""

import io
import json

from typer.testing import CliRunner

from rag.cli import app
from rag.index import progress
from rag.index.progress import BarProgress, TextProgress, progress_class


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_rate_and_time_left_come_from_what_is_done_so_far(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(progress.time, "monotonic", clock)
    out = io.StringIO()
    with TextProgress("Indexing papers", 100, "paper", out) as shown:
        clock.now = 110.0
        shown.advance(25)
        assert (shown.rate(), shown.eta_s()) == (2.5, 30.0)
        clock.now = 112.0  # too soon for another line
        shown.advance(5)
        clock.now = 150.0
        shown.advance(70)
    assert out.getvalue().splitlines() == [
        "Indexing papers: 25/100 papers in 10 s (2.5 papers/s, ~30 s left)",
        "Indexing papers: 100/100 papers in 50 s (2.0 papers/s)",
    ]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_bar_and_a_log_gets_lines():
    assert progress_class("auto", Terminal()) is BarProgress
    assert progress_class("auto", io.StringIO()) is TextProgress
    bar = io.StringIO()
    with BarProgress("Indexing papers", 10, "paper", bar) as shown:
        shown.advance(10)
    assert "10/10" in bar.getvalue() and "paper/s" in bar.getvalue()


def test_ingest_json_prints_progress_lines_on_stderr_and_counts_on_stdout(monkeypatch):
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", "fake")
    result = CliRunner().invoke(app, ["ingest", "--json"])
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)
    assert counts["added"] == 58 and counts["seconds"] > 0 and counts["papers_per_s"] > 0
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    assert lines and {line["progress"] for line in lines} == {"Indexing papers"}
    assert {"elapsed_s", "rate", "eta_s", "unit"} <= lines[0].keys()
    last = lines[-1]
    assert last["final"] and last["done"] == last["total"] == 58 and last["rate"] > 0
