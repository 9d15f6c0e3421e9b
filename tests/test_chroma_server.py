"""The same ingest and listing against a real `chroma run` server process."""

import socket
import time

import pytest

from rag.config import Settings
from rag.errors import StoreError
from rag.index import open_store, run_ingest
from tests.conftest import free_port, start_chroma, stop


@pytest.fixture
def chroma_server(tmp_path):
    port = free_port()
    process = start_chroma(tmp_path / "server", port)
    yield port
    stop(process)


@pytest.mark.slow
def test_ingest_and_list_against_a_chroma_server(chroma_server, tmp_path, seed_titles):
    settings = Settings(
        embedding_model="fake",
        data_dir=tmp_path / "data",
        chroma_host="127.0.0.1",
        chroma_port=chroma_server,
    )
    report = run_ingest(settings, show_progress=False)
    assert (report.added, report.errors) == (58, 0)
    assert run_ingest(settings, show_progress=False).unchanged == 58
    assert {p.title for p in open_store(settings).papers()} == set(seed_titles.values())
    assert not (tmp_path / "data" / "chroma").exists()  # nothing went to the embedded store


def test_unreachable_server_is_a_clear_error(tmp_path):
    settings = Settings(embedding_model="fake", chroma_host="127.0.0.1", chroma_port=free_port())
    with pytest.raises(StoreError, match="chroma run"):
        open_store(settings)


def test_a_chroma_server_that_never_answers_is_one_clear_error_within_the_timeout(tmp_path):
    from rag.config import Settings
    from rag.errors import StoreError
    from rag.index import open_store

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)  # accepts connections (the kernel does) and never answers
    try:
        settings = Settings(
            embedding_model="fake",
            data_dir=tmp_path / "data",
            chroma_host="127.0.0.1",
            chroma_port=listener.getsockname()[1],
            chroma_timeout_s=1,
        )
        started = time.monotonic()
        with pytest.raises(StoreError, match="no answer within 1 s .RAG_CHROMA_TIMEOUT_S"):
            open_store(settings)
        assert time.monotonic() - started < 60  # only a hang fails
    finally:
        listener.close()
