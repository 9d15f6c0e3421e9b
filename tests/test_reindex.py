"""An ingest while the app runs, by another process: the running answerers (and the UI) answer
about the new papers at the next question, instead of failing in Chroma ("Error finding id")."""

import subprocess
import sys

import pytest

from rag.answer.pipeline import Answerer
from rag.index import run_ingest
from rag.tuning import AnswerTuning
from tests.conftest import abstract, write_jsonl
from ui.app import Chat

NEW = {"title": "Zebra Stripes Explained", "abstract": abstract("zebra stripe camouflage")}


def corpus(tmp_path, extra=()):
    papers = [{"title": f"Paper {n}", "abstract": abstract(f"topic {n}")} for n in range(3)]
    return write_jsonl(tmp_path / "c.jsonl", [*papers, *extra])


def answered_from(answerer: Answerer, question: str) -> set[str]:
    *_, answer = answerer.ask(question)
    return {citation.title for citation in answer.citations}


@pytest.fixture
def served(settings, tmp_path):
    """Two answerers and a chat serving one index, as two apps on one data dir do."""
    settings = settings.model_copy(
        update={"answer": AnswerTuning(min_relevance=0.0), "llm_backend": "fake"}
    )
    run_ingest(settings, [corpus(tmp_path)], show_progress=False)
    first, second = Answerer(settings), Answerer(settings)
    chat = Chat(settings, backends={"fake": None})
    for answerer in (first, second):
        assert answered_from(answerer, "topic 1") == {"Paper 1"}
    return settings, [first, second], chat


def test_papers_another_client_ingested_are_answered(served, tmp_path):
    """The ingest writes through another Chroma client (the data dir by another name, as
    another process would): the running answerers' client still holds the old vector index."""
    settings, answerers, chat = served
    (tmp_path / "elsewhere").symlink_to(settings.data_dir)
    writer = settings.model_copy(update={"data_dir": tmp_path / "elsewhere"})
    run_ingest(writer, [corpus(tmp_path, [NEW])], show_progress=False)

    for answerer in answerers:
        assert answered_from(answerer, "zebra stripe camouflage") == {NEW["title"]}
    reply = chat.api_ask("zebra stripe camouflage", backend="fake")
    assert {c["title"] for c in reply["citations"]} == {NEW["title"]}
    assert NEW["title"] in [row[0] for row in chat.papers()]


@pytest.mark.slow
def test_an_ingest_by_another_process_is_answered_by_the_running_apps(served, tmp_path):
    settings, answerers, chat = served
    command = [sys.executable, "-m", "rag", "ingest", str(corpus(tmp_path, [NEW])), "--json"]
    done = subprocess.run(
        command,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**subprocess_env(), "RAG_DATA_DIR": str(settings.data_dir)},
    )
    assert done.returncode == 0, done.stderr

    for answerer in answerers:
        assert answered_from(answerer, "zebra stripe camouflage") == {NEW["title"]}
    reply = chat.api_ask("zebra stripe camouflage", backend="fake")
    assert {c["title"] for c in reply["citations"]} == {NEW["title"]}


def subprocess_env() -> dict:
    import os

    return {**os.environ, "RAG_EMBEDDING_MODEL": "fake", "RAG_TITLES_PATH": ""}
