"""Scale-out of the LLM: the `openai` backend against a real OpenAI-compatible server
(llama.cpp's, serving the bundled model in its own process), as the README shows."""

import subprocess
import sys
import time

import httpx
import pytest
from pydantic import SecretStr

from rag.answer.pipeline import Answerer
from tests.conftest import BUNDLED_MODEL, PRICING, PRICING_QUESTION, free_port

pytestmark = pytest.mark.slow


@pytest.fixture
def llama_server(tmp_path):
    """`python -m llama_cpp.server` on a free loopback port; its base URL. Its log goes to a
    file: llama.cpp logs a lot while loading, and a full pipe would stall it."""
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(BUNDLED_MODEL),
        "--model_alias", "bundled", "--host", "127.0.0.1", "--port", str(port),
        "--n_threads", "2", "--n_ctx", "4096",
    ]  # fmt: skip
    log = tmp_path / "server.log"
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log.open("wb"))
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert server.poll() is None, log.read_text(errors="replace")[-2000:]
            try:
                if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail(f"llama.cpp server did not start within 120 s: {log.read_text()[-2000:]}")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_openai_backend_on_a_real_llama_cpp_server(llama_server, seed_index, retriever):
    settings = seed_index.model_copy(
        update={
            "llm_backend": "openai",
            "openai_base_url": llama_server,
            "openai_model": "bundled",
            "openai_api_key": SecretStr("none"),  # the server checks none
        }
    )
    *pieces, answer = Answerer(settings, retriever=retriever).ask(PRICING_QUESTION)
    assert pieces and answer.backend == "openai" and not answer.notices
    assert PRICING in [c.title for c in answer.citations]
