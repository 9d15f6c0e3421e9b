"""No secret is ever logged or shown: not in errors, answers, logs, CLI output or settings,
even when the server quotes the key back in its error body."""

import logging
import subprocess

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from rag.answer.pipeline import Answerer
from rag.cli import app
from rag.config import get_settings
from rag.errors import ConfigError
from rag.llm import BackendError, Prompt, availability, load_backend
from rag.models import Message
from tests.conftest import FORGETTING_QUESTION, REPO
from tests.fake_servers import echo_auth_handler, openai_handler, serve

KEY = "sk-test-DO-NOT-LEAK-1234"
LOGGERS = ("", "openai", "httpx", "httpcore", "llama_index", "rag")
REJECTING_SERVERS = {
    "401 quoting the key": lambda: echo_auth_handler(401),
    "500 quoting the key": lambda: echo_auth_handler(500),
    "plain 401": lambda: openai_handler("x", status=401),
}


@pytest.fixture(params=list(REJECTING_SERVERS))
def rejecting_server(request):
    """The base URL of a server that rejects the request, sometimes quoting the key."""
    with serve(REJECTING_SERVERS[request.param]()) as url:
        yield url + "/v1"


@pytest.fixture
def debug_logs(caplog):
    """Everything logged at DEBUG, by us and by the libraries that see the key."""
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def with_key(settings, url: str):
    return settings.model_copy(
        update={
            "llm_backend": "openai",
            "openai_base_url": url,
            "openai_model": "m",
            "openai_api_key": SecretStr(KEY),
            "llm_timeout_s": 5,
        }
    )


def test_rejected_key_appears_in_no_error_answer_or_log(rejecting_server, debug_logs, fake_index):
    settings = with_key(fake_index, rejecting_server)
    with pytest.raises(BackendError) as raised:
        load_backend("openai", settings).complete(
            Prompt(messages=[Message(role="user", content="hi")])
        )
    assert rejecting_server in str(raised.value) and KEY not in str(raised.value)
    events = list(Answerer(settings).ask(FORGETTING_QUESTION))
    answer = events[-1]
    assert answer.backend == "extractive" and answer.notices  # the failure is still shown
    shown = [*events[:-1], answer.text, *answer.notices, answer.model_dump_json()]
    assert not [text for text in shown if KEY in text]
    assert "Error code: " in debug_logs.text  # the failure was logged, the key was not
    assert KEY not in debug_logs.text


def test_credentials_in_the_server_url_are_never_shown(debug_logs, fake_index):
    with serve(echo_auth_handler(401)) as url:
        secret_url = url.replace("://", "://alice:hunter2-pw@") + "/v1"
        settings = with_key(fake_index, secret_url)
        with pytest.raises(BackendError) as raised:
            load_backend("openai", settings).complete(
                Prompt(messages=[Message(role="user", content="hi")])
            )
        answer = list(Answerer(settings).ask(FORGETTING_QUESTION))[-1]
    shown = [str(raised.value), answer.model_dump_json(), debug_logs.text]
    assert "://[redacted]@" in str(raised.value)
    assert not [text for text in shown if "hunter2-pw" in text]


def test_a_quoted_key_is_redacted_but_the_reason_kept(fake_index):
    with serve(echo_auth_handler(401)) as url:
        settings = with_key(fake_index, url + "/v1")
        with pytest.raises(BackendError, match=r"401 .*bad credentials: Bearer \[redacted\]"):
            load_backend("openai", settings).complete(
                Prompt(messages=[Message(role="user", content="hi")])
            )


def test_rag_ask_output_never_shows_the_key(rejecting_server, fake_index, monkeypatch):
    monkeypatch.setenv("RAG_DATA_DIR", str(fake_index.data_dir))
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", "fake")
    monkeypatch.setenv("RAG_ANSWER__MIN_RELEVANCE", "0")
    monkeypatch.setenv("RAG_OPENAI_BASE_URL", rejecting_server)
    monkeypatch.setenv("RAG_OPENAI_MODEL", "m")
    monkeypatch.setenv("RAG_OPENAI_API_KEY", KEY)
    result = CliRunner().invoke(app, ["ask", FORGETTING_QUESTION, "--backend", "openai"])
    assert result.exit_code == 0, result.output
    assert "openai backend failed" in result.output  # the failure is visible ...
    assert KEY not in result.output and KEY not in result.stderr  # ... the key is not


def test_settings_never_show_the_key(monkeypatch):
    monkeypatch.setenv("RAG_OPENAI_API_KEY", KEY)
    monkeypatch.setenv("RAG_UI_PASSWORD", KEY + "-password")
    settings = get_settings()
    assert settings.openai_api_key.get_secret_value() == KEY  # it is there, only hidden
    for text in (
        repr(settings),
        str(settings),
        settings.model_dump_json(),
        str(settings.model_dump()),
    ):
        assert KEY not in text
    monkeypatch.setenv("RAG_TOP_K", "many")  # an invalid setting next to the key
    with pytest.raises(ConfigError) as raised:
        get_settings()
    assert "top_k" in str(raised.value) and KEY not in str(raised.value)


def test_availability_reasons_never_show_the_key(fake_index):
    settings = fake_index.model_copy(
        update={"openai_api_key": SecretStr(KEY), "ollama_host": "http://127.0.0.1:9"}
    )
    reasons = availability(settings)
    assert reasons["openai"] and reasons["ollama"]  # both unavailable, and both say why
    assert not [reason for reason in reasons.values() if reason and KEY in reason]


def test_dot_env_is_ignored_by_git_and_the_example_is_not():
    def ignored(path: str) -> bool:
        return (
            subprocess.run(["git", "check-ignore", "-q", path], cwd=REPO, check=False).returncode
            == 0
        )

    assert ignored(".env") and not ignored(".env.example")
