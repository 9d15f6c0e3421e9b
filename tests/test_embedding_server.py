"""RAG_EMBEDDING_BACKEND=openai: ingest and questions embedded by an OpenAI-compatible server —
a local fake speaking the protocol (batches, concurrency, errors), and a real Infinity server
serving the bundled model (the same vectors, so an index built remotely is queried locally)."""

import os
import subprocess
import time

import httpx
import numpy as np
import pytest

from rag.config import BUNDLED_EMBEDDER, Settings
from rag.errors import ConfigError, EmbeddingError, StoreError
from rag.index import open_store, run_ingest
from rag.index.embedder import FakeEmbedder, bundled_model_path, embedder_from_settings
from rag.retrieve import Retriever
from rag.sentences import evidence_sentences
from tests.conftest import PRICING, PRICING_QUESTION, REPO, abstract, free_port, write_jsonl
from tests.fake_servers import (
    echo_auth_handler,
    embeddings_handler,
    hanging_handler,
    raw_handler,
    serve,
)

INFINITY = REPO / ".venv-infinity" / "bin" / "infinity_emb"  # scripts/setup.sh test puts it
MIN_COSINE = 0.999


def server_settings(tmp_path, url: str, **server) -> Settings:
    """The bundled model's name and tokenizer, its vectors from the server at `url`."""
    return Settings(
        data_dir=tmp_path / "data",
        embedding_model=BUNDLED_EMBEDDER,
        embedding_backend="openai",
        embedding_server={"base_url": url, **server},
    )


class Mirrored(FakeEmbedder):
    """Another model under the same name: the fake's vectors, negated."""

    def embed(self, texts):
        return [[-value for value in vector] for vector in super().embed(texts)]


@pytest.mark.slow  # the seeds, chunked with the bundled tokenizer (importing transformers)
def test_ingest_and_questions_go_to_the_server_in_concurrent_batches(tmp_path):
    handler = embeddings_handler(FakeEmbedder().embed, pause_s=0.05)
    with serve(handler) as url:
        settings = server_settings(tmp_path, url, batch_size=8, concurrency=3)
        assert run_ingest(settings, show_progress=False).added == 58
        inputs = [request["body"]["input"] for request in handler.requests]
        assert max(map(len, inputs)) == 8 and 2 <= handler.most_in_flight <= 3
        assert {request["body"]["model"] for request in handler.requests} == {BUNDLED_EMBEDDER}

        retriever = Retriever(settings)
        found = retriever.search(PRICING_QUESTION, k=3)
        assert [PRICING_QUESTION] in [r["body"]["input"] for r in handler.requests]
        assert PRICING in [source.paper.title for source in found]
        # each text got its own vector although the server answered in reverse order
        for chunk_id, text, _ in retriever.store.rows()[:5]:
            assert retriever.store.query(FakeEmbedder().embed([text])[0], 1)[0][0] == chunk_id


def test_an_index_refuses_a_server_serving_another_model_under_its_name(tmp_path):
    def paper(topic: str):
        record = {"title": topic.capitalize(), "abstract": abstract(topic)}
        return write_jsonl(tmp_path / f"{topic}.jsonl", [record])

    with serve(embeddings_handler(FakeEmbedder().embed)) as url:
        run_ingest(server_settings(tmp_path, url), [paper("pricing")], show_progress=False)
    mirrored = "vectors differ.*cosine -1.0000.*RAG_EMBEDDING_SERVER"
    with (
        serve(embeddings_handler(Mirrored().embed)) as url,
        pytest.raises(StoreError, match=mirrored),
    ):
        Retriever(server_settings(tmp_path, url)).search("How are products priced?")
    flat = embeddings_handler(lambda texts: [[1.0, 0.0]] * len(texts))
    with serve(flat) as url, pytest.raises(StoreError, match="2 dimensions, the index has 64"):
        run_ingest(server_settings(tmp_path, url), [paper("proteins")], show_progress=False)
    assert open_store(server_settings(tmp_path, url)).count() == 1  # nothing was written


def test_a_busy_server_is_asked_again(tmp_path):
    handler = embeddings_handler(FakeEmbedder().embed, busy_first=2)
    with serve(handler) as url:
        embedder = embedder_from_settings(server_settings(tmp_path, url))
        vectors = embedder.embed(["a question"])
    assert np.allclose(vectors, FakeEmbedder().embed(["a question"]))
    assert len(handler.requests) == 3


@pytest.mark.parametrize(
    ("handler", "server", "message"),
    [
        (None, {}, "Cannot reach the embeddings server.*Start it"),
        (echo_auth_handler(401), {"api_key": "sk-secret"}, "HTTP 401.*__API_KEY to a key"),
        (echo_auth_handler(404), {}, "HTTP 404.*BASE_URL .many servers answer under /v1"),
        (raw_handler(b"<html>hi</html>", "text/html"), {}, "did not answer 2 vectors.*<html>"),
        (hanging_handler(), {"timeout_s": 1}, "no answer within 1 s .RAG_EMBEDDING_SERVER__TIME"),
    ],
    ids=["unreachable", "bad key", "wrong path", "not embeddings", "hung"],
)
def test_server_failures_are_one_message_saying_what_to_do(tmp_path, handler, server, message):
    def embed(url):
        embedder = embedder_from_settings(server_settings(tmp_path, url, **server))
        with pytest.raises(EmbeddingError, match=message) as raised:
            embedder.embed(["one", "two"])
        assert "RAG_EMBEDDING_BACKEND=torch" in str(raised.value)
        assert "sk-secret" not in str(raised.value)  # the proxy echoed it; we do not

    if handler is None:
        embed(f"http://127.0.0.1:{free_port()}")
        return
    with serve(handler) as url:
        embed(url)


def test_the_openai_backend_without_a_url_says_which_setting(tmp_path):
    with pytest.raises(ConfigError, match="RAG_EMBEDDING_SERVER__BASE_URL"):
        embedder_from_settings(Settings(embedding_backend="openai"))


@pytest.fixture(scope="module")
def infinity():
    """Infinity (its own virtualenv) serving the bundled model from its folder; its base URL."""
    if not INFINITY.exists():
        pytest.fail(f"{INFINITY} is missing: run `scripts/setup.sh test`, which installs it")
    port = free_port()
    command = [
        str(INFINITY), "v2", "--model-id", str(bundled_model_path()),
        "--served-model-name", BUNDLED_EMBEDDER, "--host", "127.0.0.1", "--port", str(port),
        "--device", "cpu", "--no-model-warmup",
    ]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "DO_NOT_TRACK": "1"}
    server = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            assert server.poll() is None, "Infinity exited while starting"
            try:
                if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail("Infinity did not start within 180 s")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow
def test_infinity_gives_the_bundled_models_vectors_so_indexes_are_shared(
    infinity, tmp_path, real_embedder, seed_index
):
    remote = server_settings(tmp_path, infinity)
    assert run_ingest(remote, show_progress=False).added == 58
    store = open_store(remote)
    chunks = store.collection.get(include=["documents", "embeddings"])
    sentences = store.sentence_vectors([s for p in store.papers() for s in evidence_sentences(p)])
    texts = chunks["documents"] + list(sentences)  # what ingest embeds: 126 chunks, 490 sentences
    served = np.asarray([*chunks["embeddings"], *sentences.values()])
    cosines = (served * np.asarray(real_embedder.embed(texts))).sum(axis=1)
    assert len(texts) > 600 and cosines.min() >= MIN_COSINE, cosines.min()

    # built remotely, asked locally; built locally, asked through the server
    here = Retriever(remote.model_copy(update={"embedding_backend": "torch"}), real_embedder)
    assert here.search(PRICING_QUESTION, k=1)[0].paper.title == PRICING
    there = seed_index.model_copy(update={"embedding_backend": "openai"})
    there = there.model_copy(update={"embedding_server": remote.embedding_server})
    assert Retriever(there).search(PRICING_QUESTION, k=1)[0].paper.title == PRICING
