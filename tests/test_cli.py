"""The CLI as a user runs it: real subprocesses, the bundled embedder, a real store on disk."""

import json
import subprocess
import sys

import bibtexparser
import pytest

RAG = [sys.executable, "-m", "rag"]


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*RAG, *args], capture_output=True, text=True, env=env, timeout=600)


def test_help_imports_no_heavy_library():
    result = run("--help")
    assert result.returncode == 0 and "ingest" in result.stdout
    heavy = subprocess.run(
        [
            sys.executable,
            "-c",
            "import rag.cli, sys; print(sorted(m for m in "
            "('torch', 'chromadb', 'sentence_transformers', 'llama_index') if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
    )
    assert heavy.stdout.strip() == "[]", "rag --help must not import heavy libraries"


@pytest.mark.slow
def test_seeds_with_the_bundled_embedder_end_to_end(seed_titles):
    first = run("ingest", "--json")
    assert first.returncode == 0, first.stderr
    counts = json.loads(first.stdout)
    assert counts.pop("seconds") > 0 and counts.pop("papers_per_s") > 0
    assert counts | {"problems": [], "warnings": []} == {
        "papers": 58,
        "added": 58,
        "updated": 0,
        "unchanged": 0,
        "removed": 0,
        "errors": 0,
        "problems": [],
        "warnings": [],
    }
    listed = json.loads(run("papers", "--json").stdout)
    assert len(listed) == 58
    assert {p["title"] for p in listed} == set(seed_titles.values())
    assert {"paper_id", "title", "title_source", "authors", "venue", "area"} <= set(listed[0])
    again = json.loads(run("ingest", "--json").stdout)
    assert (again["unchanged"], again["added"], again["updated"]) == (58, 0, 0)

    ask = ("ask", "How does FIRE measure stability and plasticity?", "--backend", "extractive")
    fire = next(t for t in seed_titles.values() if t.startswith("FIRE:"))
    markdown = run(*ask, "--format", "markdown")
    assert markdown.returncode == 0, markdown.stderr
    assert f"\n\n**References**\n\n1. **{fire}** — " in markdown.stdout
    assert "extractive ·" in markdown.stderr and "extractive ·" not in markdown.stdout
    bibtex = run(*ask, "--format", "bibtex")
    entries = bibtexparser.parse_string(bibtex.stdout).entries
    assert [e["title"].replace("{", "").replace("}", "") for e in entries] == [fire]
    assert entries[0]["booktitle"] == "International Conference on Learning Representations"
    wrong = run(*ask, "--format", "html")
    assert wrong.returncode == 2 and "use one of text, markdown, bibtex, json" in wrong.stderr


@pytest.mark.slow
def test_user_errors_are_one_clear_line_without_traceback(tmp_path):
    for args, expected in [
        (["papers"], "run `rag ingest` first"),
        (["ingest", str(tmp_path / "missing.jsonl")], "does not exist"),
        (["ingest", "--titles", str(tmp_path / "t.jsonl")], "Titles file"),
    ]:
        result = run(*args)
        assert result.returncode == 2
        assert expected in result.stderr and "Traceback" not in result.stderr


def test_settings_typo_in_dotenv_is_rejected(tmp_path):
    (tmp_path / ".env").write_text("RAG_CHUNK_SIZ=100\n")
    result = run("papers")
    assert result.returncode == 2 and "chunk_siz" in result.stderr
