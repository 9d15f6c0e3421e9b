"""Faults in the model backends and the Chroma server. Each one gives a specific, visible
message (and, for answers, the extractive answer instead), never a hang, and never a silent
call to a hosted service."""

import struct
import time
from pathlib import Path

import pytest
from pydantic import SecretStr

from rag.answer.pipeline import Answerer
from rag.config import Settings
from rag.errors import ConfigError, StoreError
from rag.llm import BackendError, Prompt, availability, load_backend
from rag.llm.bundled import QWEN_CODER_1_5B
from rag.llm.gguf import truncation
from rag.llm.runner import shared_process
from rag.models import Message
from rag.tuning import AnswerTuning
from tests.conftest import BUNDLED_MODEL, FORGETTING_QUESTION, free_port, start_chroma, stop
from tests.fake_servers import (
    cut_off_handler,
    endless_handler,
    hanging_handler,
    ollama_handler,
    openai_handler,
    raw_handler,
    serve,
)

TIMEOUT_S = 2
# Only a hang fails: two attempts of TIMEOUT_S plus backoff take ~6 s, a missing deadline
# minutes (the SDK's own timeout, or a stream that never ends).
WORST_CASE_S = 60


def ask(settings: Settings, retriever) -> tuple[str, object, float]:
    """(streamed text, the final Answer, seconds taken) for FORGETTING_QUESTION."""
    started = time.monotonic()
    events = list(Answerer(settings, retriever=retriever).ask(FORGETTING_QUESTION))
    streamed = "".join(e for e in events if isinstance(e, str))
    return streamed, events[-1], time.monotonic() - started


def assert_extractive_fallback(answer, streamed: str, *expected: str) -> None:
    """One notice, shown while streaming, naming each expected part; valid citations still."""
    assert answer.backend == "extractive" and len(answer.notices) == 1
    notice = answer.notices[0]
    assert all(part in notice for part in expected), notice
    assert "extractive answer" in notice and notice in streamed
    retrieved = {s.paper.paper_id: s.paper.title for s in answer.sources}
    assert answer.citations and not answer.abstained
    assert all(retrieved.get(c.paper_id) == c.title for c in answer.citations)


# --- the local model ---


def bundled_path(models_dir: Path) -> Path:
    path = QWEN_CODER_1_5B.path(models_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def truncated(models_dir: Path) -> None:
    bundled_path(models_dir).write_bytes(b"GGUF" + b"\0" * 1000)


def garbage_of_the_right_size(models_dir: Path) -> None:
    with bundled_path(models_dir).open("wb") as handle:  # sparse: no gigabyte written
        handle.write(b"<html>not a model</html>")
        handle.truncate(QWEN_CODER_1_5B.size)


@pytest.mark.parametrize(
    "break_model, expected",
    [(truncated, "incomplete or corrupt"), (garbage_of_the_right_size, "not a GGUF file")],
)
def test_broken_bundled_model_names_setup_and_falls_back(
    break_model, expected, fake_index, fake_retriever, tmp_path
):
    break_model(tmp_path)
    settings = fake_index.model_copy(update={"models_dir": tmp_path, "llm_backend": "local"})
    reason = availability(settings, ("local",))["local"]
    assert expected in reason and "scripts/setup.sh" in reason
    streamed, answer, _ = ask(settings, fake_retriever)
    assert_extractive_fallback(answer, streamed, "local backend", "scripts/setup.sh")


def test_garbage_file_as_local_model_path_is_refused_with_what_to_do(fake_index, tmp_path):
    garbage = tmp_path / "model.gguf"
    garbage.write_bytes(b"\x89PNG\r\n" + bytes(range(256)) * 16)
    backend = load_backend("local", fake_index.model_copy(update={"local_model_path": garbage}))
    with pytest.raises(BackendError, match="not a GGUF file.*scripts/setup.sh"):
        backend.check()
    with pytest.raises(BackendError, match="while loading.*RAG_LOCAL_MODEL_PATH"):
        backend.url()  # what llama.cpp itself says, if the file got past the check
    missing = fake_index.model_copy(update={"local_model_path": tmp_path / "nope.gguf"})
    with pytest.raises(ConfigError, match="does not exist.*scripts/setup.sh"):
        load_backend("local", missing)


def gguf_file(path: Path) -> int:
    """A small GGUF v3 file at `path` (metadata of several kinds, three tensors of different
    types at 64-byte alignment); returns where its tensor data starts."""

    def string(text: str) -> bytes:
        return struct.pack("<Q", len(text)) + text.encode()

    metadata = [
        string("general.architecture") + struct.pack("<I", 8) + string("llama"),
        string("general.alignment") + struct.pack("<II", 4, 64),
        string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 3) + string("a") * 3,
        string("tokenizer.ggml.scores") + struct.pack("<IIQ3f", 9, 6, 3, 0.0, 1.0, 2.0),
    ]
    tensors = [  # name, shape, ggml type, offset: f32 8x4 (128 B), q4_K 256x2 (288 B), q6_K 512
        ("token_embd.weight", (8, 4), 0, 0),
        ("blk.0.attn_q.weight", (256, 2), 12, 128),
        ("output.weight", (512,), 14, 448),  # 2 blocks of 210 B: the data ends at 868
    ]
    infos = [
        string(name) + struct.pack(f"<I{len(shape)}QIQ", len(shape), *shape, kind, offset)
        for name, shape, kind, offset in tensors
    ]
    header = struct.pack("<4sIQQ", b"GGUF", 3, len(tensors), len(metadata))
    header += b"".join(metadata + infos)
    header += bytes(-len(header) % 64)
    path.write_bytes(header + bytes(range(256)) * 3 + bytes(100))  # 868 bytes of data
    return len(header)


def test_a_truncated_gguf_is_named_with_its_cause_and_the_answer_falls_back(
    fake_index, fake_retriever, tmp_path
):
    model = tmp_path / "model.gguf"
    data_start = gguf_file(model)
    assert truncation(model) is None
    whole = model.read_bytes()
    settings = fake_index.model_copy(update={"llm_backend": "local", "local_model_path": model})
    cut_inside = {"metadata": 60, "tensor list": data_start - 80, "tensors": data_start + 500}
    cut_inside["the last byte"] = len(whole) - 1
    for where, length in cut_inside.items():
        model.write_bytes(whole[:length])
        reason = availability(settings, ("local",))["local"]
        assert f"{model} is truncated" in reason and "RAG_LOCAL_MODEL_PATH" in reason, where
        assert ("GGUF header" in reason) == (length < data_start), (where, reason)
    streamed, answer, _ = ask(settings, fake_retriever)
    cause = f"{model} is truncated: its tensors need {data_start + 868:,} bytes"
    assert_extractive_fallback(answer, streamed, "local backend failed", cause)
    # refused before any model process started: nothing could hang
    assert shared_process(model, settings.llm_threads, settings.llm_context).starts == 0


@pytest.mark.slow  # starts llama.cpp
def test_a_cut_short_copy_of_the_bundled_model_is_refused_and_llama_cpp_would_refuse_it(
    fake_index, tmp_path
):
    assert truncation(BUNDLED_MODEL) is None  # its 339 tensors (f32, q4_K, q6_K) are sized right
    copy = tmp_path / "model.gguf"
    with BUNDLED_MODEL.open("rb") as source, copy.open("wb") as target:
        target.write(source.read(8 << 20))  # the header and the first tensors
        target.truncate(QWEN_CODER_1_5B.size - 4096)  # sparse: 4 KB short of the whole model
    backend = load_backend("local", fake_index.model_copy(update={"local_model_path": copy}))
    expected = f"need {QWEN_CODER_1_5B.size:,} bytes but the file has {copy.stat().st_size:,}"
    with pytest.raises(BackendError, match=rf"{copy} is truncated: its tensors {expected}"):
        backend.check()
    with copy.open("r+b") as handle:
        handle.truncate(8 << 20)
    with pytest.raises(BackendError, match=rf"exited with status 1 while loading {copy}: "):
        backend.url()  # past the check, llama.cpp refuses it too: its process ends, no hang


# --- an OpenAI-compatible server misbehaving ---

WORDS = ["Sources", "agree", "that"]
SERVER_FAULTS = {
    "HTTP 500": (lambda: openai_handler("x", status=500), "InternalServerError"),
    "SSE lines that are not JSON": (
        lambda: raw_handler(b"data: {not json\n\n", "text/event-stream"),
        "JSONDecodeError",
    ),
    "an HTML page": (
        lambda: raw_handler(b"<html><body>502 Bad Gateway</body></html>", "text/html"),
        "stopped before the answer was finished (0 characters received)",
    ),
    "dropped mid-chunk": (
        lambda: cut_off_handler(WORDS, chunked=True),
        "peer closed connection",
    ),
    "closed mid-stream": (
        lambda: cut_off_handler(WORDS, chunked=False),
        f"stopped before the answer was finished ({len(' '.join(WORDS)) + 1} characters received)",
    ),
    "never answers": (hanging_handler, f"no answer within {TIMEOUT_S} s (RAG_LLM_TIMEOUT_S"),
    "trickles a word a second, never finishing": (
        lambda: endless_handler(0.5),
        f"no answer within {TIMEOUT_S} s (RAG_LLM_TIMEOUT_S sets the limit; ",
    ),
}


def openai_settings(settings: Settings, url: str) -> Settings:
    return settings.model_copy(
        update={
            "llm_backend": "openai",
            "openai_base_url": url + "/v1",
            "openai_model": "m",
            "openai_api_key": SecretStr("sk-test"),
            "llm_timeout_s": TIMEOUT_S,
        }
    )


@pytest.mark.parametrize("fault", list(SERVER_FAULTS))
def test_openai_server_fault_shows_the_extractive_answer_with_the_reason(
    fault, fake_index, fake_retriever
):
    make_handler, expected = SERVER_FAULTS[fault]
    handler = make_handler()
    with serve(handler) as url:
        streamed, answer, seconds = ask(openai_settings(fake_index, url), fake_retriever)
    assert seconds < WORST_CASE_S
    assert_extractive_fallback(answer, streamed, f"(server: {url}/v1)", expected)
    if fault == "never answers":  # the deadline covers retries: one timeout, not two or more
        assert handler.requests == 1


def test_a_server_that_ignores_max_tokens_is_cut_off_at_the_limit(fake_index):
    settings = openai_settings(fake_index, "").model_copy(update={"llm_timeout_s": 30})
    with serve(endless_handler(0.0)) as url:
        settings = settings.model_copy(update={"openai_base_url": url + "/v1"})
        pieces = list(
            load_backend("openai", settings).stream(
                Prompt(messages=[Message(role="user", content="hi")], max_tokens=20)
            )
        )
    assert len(pieces) <= 20 + 8


def test_openai_without_base_url_never_calls_a_default_host(fake_index, monkeypatch):
    """The OpenAI SDK would fall back to OPENAI_BASE_URL or api.openai.com; we refuse instead."""
    handler = openai_handler("Hosted answer [1].")
    with serve(handler) as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url + "/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
        settings = fake_index.model_copy(
            update={
                "openai_base_url": None,
                "openai_model": "m",
                "openai_api_key": SecretStr("sk-test"),
            }
        )
        with pytest.raises(ConfigError, match="RAG_OPENAI_BASE_URL"):
            load_backend("openai", settings)
        assert "RAG_OPENAI_BASE_URL" in availability(settings, ("openai",))["openai"]
    assert handler.requests == []


# --- Ollama ---


def test_ollama_not_running_or_without_the_model_is_unavailable_with_what_to_do(fake_index):
    closed = fake_index.model_copy(update={"ollama_host": f"http://127.0.0.1:{free_port()}"})
    assert (
        "Ollama is not running at http://127.0.0.1:" in availability(closed, ("ollama",))["ollama"]
    )
    with serve(ollama_handler("x", models=("llama3.2:3b",))) as url:
        other_model = fake_index.model_copy(update={"ollama_host": url})
        reason = availability(other_model, ("ollama",))["ollama"]
    assert f"Ollama at {url} has no model 'qwen2.5:1.5b'" in reason
    assert "`ollama pull qwen2.5:1.5b`" in reason


def test_ollama_going_away_falls_back_to_extractive(fake_index, fake_retriever):
    url = f"http://127.0.0.1:{free_port()}"
    settings = fake_index.model_copy(update={"llm_backend": "ollama", "ollama_host": url})
    streamed, answer, seconds = ask(settings, fake_retriever)
    assert seconds < WORST_CASE_S
    assert_extractive_fallback(answer, streamed, f"(server: {url})")


# --- the Chroma server going away mid-session ---


@pytest.mark.slow
def test_chroma_server_lost_mid_session_is_a_clear_error_and_a_restart_recovers(tmp_path):
    port = free_port()
    server = start_chroma(tmp_path / "server", port)
    try:
        settings = Settings(
            embedding_model="fake",
            data_dir=tmp_path / "data",
            chroma_host="127.0.0.1",
            chroma_port=port,
            llm_backend="extractive",
            answer=AnswerTuning(min_relevance=0.0),
        )
        from rag.index import run_ingest
        from rag.retrieve import Retriever

        run_ingest(settings, show_progress=False)
        retriever = Retriever(settings)
        assert retriever.search("dynamic pricing", k=3)
        stop(server)
        with pytest.raises(StoreError, match=f"Chroma server at 127.0.0.1:{port}.*chroma run"):
            retriever.search("dynamic pricing", k=3)
        with pytest.raises(StoreError, match=f"127.0.0.1:{port}"):
            list(Answerer(settings, retriever=retriever).ask(FORGETTING_QUESTION))
        server = start_chroma(tmp_path / "server", port)
        assert retriever.search("dynamic pricing", k=3)  # the same session carries on
    finally:
        stop(server)
