"""Every test gets its own data directory and reads the seeds from the repository; the
caller's RAG_* variables never reach a test. Constants and helpers shared by test modules."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rag.config import Settings
from rag.llm.bundled import QWEN_CODER_1_5B
from rag.llm.runner import free_port  # noqa: F401 - tests import it from here
from rag.tuning import AnswerTuning

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"
TITLES = SEEDS / "titles.jsonl"
# Where scripts/setup.sh puts the model, whatever RAG_MODELS_DIR the caller exported.
BUNDLED_MODEL = QWEN_CODER_1_5B.path(Settings(_env_file=None, models_dir=None).model_store)

PRICING = (
    "A Bayesian Approach to Contextual Dynamic Pricing using the Proportional Hazards "
    "Model with Discrete Price Data"
)
PRICING_QUESTION = "How does BayesCoxCP price products?"  # answered by PRICING
FORGETTING_QUESTION = "What is catastrophic forgetting in continual learning?"


def clear_rag_variables(monkeypatch) -> None:
    for name in [name for name in os.environ if name.startswith("RAG_")]:
        monkeypatch.delenv(name)


@pytest.fixture(scope="session", autouse=True)
def no_caller_settings():
    """Session fixtures (the seed index) are built without the caller's RAG_* variables."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        clear_rag_variables(monkeypatch)
        yield


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Data under tmp_path, no stray .env, corpus paths pointing at the repository seeds, and
    no RAG_* variable the test did not set itself (subprocesses inherit this environment)."""
    clear_rag_variables(monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RAG_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RAG_CORPUS_PATHS", json.dumps([str(SEEDS)]))
    monkeypatch.setenv("RAG_TITLES_PATH", str(TITLES))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture
def settings(tmp_path) -> Settings:
    """Settings with the fake embedder: fast, deterministic."""
    return Settings(embedding_model="fake", data_dir=tmp_path / "data")


# Loading the bundled embedding model and indexing the seeds with it takes ~40 s of CPU, most
# of what the whole fast tier may take: a test that uses one of these is slow, wherever it is.
BUNDLED_EMBEDDER_FIXTURES = {"real_embedder", "seed_index", "retriever"}


def pytest_collection_modifyitems(items):
    for item in items:
        if BUNDLED_EMBEDDER_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def real_embedder():
    from rag.index.embedder import load_embedder

    return load_embedder("all-MiniLM-L6-v2")


@pytest.fixture(scope="session")
def seed_titles() -> dict[str, str]:
    rows = [json.loads(line) for line in TITLES.read_text().splitlines() if line.strip()]
    return {row["abstract_start"]: row["title"] for row in rows}


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def abstract(topic: str, words: int = 60) -> str:
    """A plausible abstract about `topic`, long enough to count as one."""
    filler = "We study this problem carefully and report results on standard benchmarks"
    text = f"We propose a new method for {topic}. " + " ".join([filler] * (words // 12 + 1))
    return text + "."


@pytest.fixture(scope="session")
def seed_index(tmp_path_factory, real_embedder) -> Settings:
    """The seeds indexed once with the bundled embedder; tests must not modify it."""
    from rag.index import run_ingest

    settings = Settings(
        data_dir=tmp_path_factory.mktemp("seed-index"), corpus_paths=[SEEDS], titles_path=TITLES
    )
    run_ingest(settings, show_progress=False, embedder=real_embedder)
    return settings


@pytest.fixture(scope="session")
def retriever(seed_index, real_embedder):
    from rag.retrieve import Retriever

    return Retriever(seed_index, embedder=real_embedder)


@pytest.fixture(scope="session")
def fake_index(tmp_path_factory) -> Settings:
    """The seeds indexed with the fake embedder and no relevance gate, for tests where ranking
    is not the point (faults, the UI, the backends): every answer then takes milliseconds.
    Tests must not modify it."""
    from rag.index import run_ingest

    settings = Settings(
        embedding_model="fake",
        data_dir=tmp_path_factory.mktemp("fake-index"),
        corpus_paths=[SEEDS],
        titles_path=TITLES,
        answer=AnswerTuning(min_relevance=0.0),
    )
    run_ingest(settings, show_progress=False)
    return settings


@pytest.fixture(scope="session")
def fake_retriever(fake_index):
    from rag.retrieve import Retriever

    return Retriever(fake_index)


def start_chroma(path: Path, port: int) -> subprocess.Popen:
    """A `chroma run` server on the port, once it accepts connections."""
    chroma = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    process = subprocess.Popen(
        [chroma, "run", "--path", str(path), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.3)
    process.kill()
    pytest.fail("chroma server did not start within 60 s")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(timeout=30)


# Debian's chromium, driven by Playwright. Without the background-networking flags Chromium
# tries to reach Google's hosts at start.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# JS: the chat shows at least n checked answers (each labelled "Answer 2 · local model · 3.1 s"),
# no draft, and the sources panel shows the n-th.
ANSWERED = (
    "n => { const text = document.querySelector('#chat')?.innerText || '';"
    " const panel = document.querySelector('#sources')?.innerText || '';"
    " return document.querySelectorAll('#chat h6').length >= n && !text.includes('generating ·')"
    " && panel.includes('Sources of answer ' + n + ':'); }"
)


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    """A page in a fresh browser profile that may read and write the clipboard."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    return context.new_page()
