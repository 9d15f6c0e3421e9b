"""The same contract for every backend: stream text for a prompt; fail with a clear error."""

import pytest
from pydantic import SecretStr

from rag.errors import ConfigError
from rag.llm import BackendError, Prompt, load_backend
from rag.models import Message
from tests.conftest import BUNDLED_MODEL, PRICING_QUESTION
from tests.fake_servers import ollama_handler, openai_handler, serve

REPLY = "Sources agree on this [1]."


def prompt_for(retriever) -> Prompt:
    from rag.answer.prompts import answer_messages

    sources = retriever.search(PRICING_QUESTION, k=2)
    return Prompt(
        messages=answer_messages(PRICING_QUESTION, sources, 160),
        sources=sources,
        question=PRICING_QUESTION,
        max_tokens=60,
    )


@pytest.fixture(
    params=["fake", "extractive", "openai", "ollama", pytest.param("local", marks=pytest.mark.slow)]
)
def backend(request, fake_index, fake_retriever):
    name = request.param
    if name == "openai":
        with serve(openai_handler(REPLY)) as url:
            settings = fake_index.model_copy(
                update={
                    "openai_base_url": url + "/v1",
                    "openai_model": "m",
                    "openai_api_key": SecretStr("sk-test"),
                }
            )
            yield load_backend(name, settings, fake_retriever.embedder)
    elif name == "ollama":
        with serve(ollama_handler(REPLY)) as url:
            yield load_backend(name, fake_index.model_copy(update={"ollama_host": url}))
    elif name == "local":
        yield load_backend(name, fake_index.model_copy(update={"local_model_path": BUNDLED_MODEL}))
    else:
        yield load_backend(name, fake_index, fake_retriever.embedder)


def test_every_backend_streams_an_answer_that_checks_out(backend, fake_retriever, fake_index):
    from rag.answer.intent import classify
    from rag.answer.pipeline import Answerer, Draft

    prompt = prompt_for(fake_retriever)
    pieces = list(backend.stream(prompt))
    assert pieces and all(isinstance(p, str) for p in pieces) and "".join(pieces).strip()
    answerer = Answerer(fake_index, retriever=fake_retriever, backend=backend)
    draft = Draft(intent=classify(prompt.question), backend=backend.name)
    answer = answerer.check("".join(pieces), prompt.sources, draft)
    offered = {s.paper.paper_id for s in prompt.sources}
    assert all(c.paper_id in offered for c in answer.citations)


def test_openai_backend_sends_the_messages_and_key(fake_index, fake_retriever):
    handler = openai_handler(REPLY)
    with serve(handler) as url:
        settings = fake_index.model_copy(
            update={
                "openai_base_url": url + "/v1",
                "openai_model": "tiny",
                "openai_api_key": SecretStr("sk-test"),
            }
        )
        text = load_backend("openai", settings).complete(prompt_for(fake_retriever))
    assert text.strip() == REPLY
    request = handler.requests[-1]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sk-test"
    assert request["body"]["model"] == "tiny" and request["body"]["stream"] is True
    assert request["body"]["messages"][0]["role"] == "system"


def test_openai_server_error_is_a_backend_error(fake_index, fake_retriever):
    with serve(openai_handler(REPLY, status=500)) as url:
        settings = fake_index.model_copy(
            update={
                "openai_base_url": url + "/v1",
                "openai_model": "m",
                "openai_api_key": SecretStr("sk-test"),
            }
        )
        with pytest.raises(BackendError, match=r"\(server: http://127.0.0.1"):
            load_backend("openai", settings).complete(prompt_for(fake_retriever))


def test_openai_without_key_is_a_config_error_not_a_silent_switch(fake_index):
    settings = fake_index.model_copy(
        update={
            "openai_base_url": "http://127.0.0.1:9/v1",
            "openai_model": "m",
            "openai_api_key": None,
        }
    )
    with pytest.raises(ConfigError, match="RAG_OPENAI_API_KEY"):
        load_backend("openai", settings)


def test_ollama_not_running_is_a_backend_error(fake_index):
    from tests.conftest import free_port

    settings = fake_index.model_copy(
        update={"ollama_host": f"http://127.0.0.1:{free_port()}", "llm_timeout_s": 5}
    )
    prompt = Prompt(messages=[Message(role="user", content="hi")])
    with pytest.raises(BackendError, match=r"Connect.*\(server: http://127.0.0.1"):
        load_backend("ollama", settings).complete(prompt)


def test_unknown_backend_lists_the_valid_names(fake_index):
    with pytest.raises(ConfigError, match="local, openai, ollama, extractive, fake"):
        load_backend("gpt5", fake_index)


def test_the_model_belongs_to_the_installation_not_the_index(fake_index, tmp_path):
    another_index = fake_index.model_copy(update={"data_dir": tmp_path / "elsewhere"})
    assert load_backend("local", another_index).path == BUNDLED_MODEL
    no_models = fake_index.model_copy(update={"models_dir": tmp_path / "empty"})
    with pytest.raises(ConfigError, match="scripts/setup.sh"):
        load_backend("local", no_models)
