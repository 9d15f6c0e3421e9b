"""Crash safety: a real `rag ingest` process killed with SIGKILL at random moments (no chance
to clean up) must leave an index that the next run turns into exactly the corpus, with the
BM25 index and catalog agreeing with Chroma."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest

from rag.config import Settings
from rag.corpus import load_corpus
from rag.errors import RagError
from rag.index import bm25, open_store
from rag.index.chunking import Chunker
from rag.index.embedder import FakeEmbedder
from rag.index.store import content_hash
from tests.conftest import REPO, write_jsonl

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")

N_PAPERS = 2000
KILLS = 3
SEED = 20261203
RUN_TIMEOUT_S = 120
SYLLABLES = [consonant + vowel for consonant in "bdfgklmnprstvz" for vowel in "aeiou"]


def synthetic_records(n: int, rng: random.Random) -> list[dict]:
    """Distinct abstracts of made-up words (so chunks differ), each with one unique word."""
    vocabulary = [
        "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(3000)
    ]
    records = []
    for number in range(n):
        words = rng.choices(vocabulary, k=rng.randint(60, 140))
        sentences = [
            " ".join(words[i : i + 15]).capitalize() + "." for i in range(0, len(words), 15)
        ]
        text = f"We study {unique_word(number)} in depth. " + " ".join(sentences)
        records.append({"title": f"Paper {number} on {words[0]}", "abstract": text})
    return records


def unique_word(number: int) -> str:
    return f"uniqtok{number:05d}"


def start_ingest(corpus: Path, settings: Settings, *flags: str) -> subprocess.Popen:
    """`python -m rag ingest` as a separate process, with its own environment."""
    env = {
        **os.environ,
        "RAG_EMBEDDING_MODEL": "fake",
        "RAG_DATA_DIR": str(settings.data_dir),
        "RAG_TITLES_PATH": str(settings.data_dir.parent / "no-titles.jsonl"),
        "PYTHONPATH": str(REPO),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "rag", "ingest", str(corpus), *flags],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_until(condition, process: subprocess.Popen, poll_s: float = 0.005) -> bool:
    """True once `condition()` holds, False if the process ended first."""
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        if condition():
            return True
        if process.poll() is not None:
            return condition()
        time.sleep(poll_s)
    process.kill()
    pytest.fail("ingest neither wrote to the store nor finished in time")


def store_written_since(chroma_dir: Path, since: float) -> bool:
    """Whether any file of the embedded Chroma store changed after `since` (a write landed)."""
    for folder, _, files in os.walk(chroma_dir):
        for name in files:
            try:
                if os.stat(os.path.join(folder, name)).st_mtime > since:
                    return True
            except FileNotFoundError:
                continue
    return False


def stored_chunks(settings: Settings) -> dict[str, tuple[str, dict]]:
    """chunk_id -> (document, metadata), read by a fresh client (another process wrote it)."""
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()
    store = open_store(settings)
    return {chunk_id: (document, metadata) for chunk_id, document, metadata in store.rows()}


def assert_whole_papers(chunks: dict[str, tuple[str, dict]]) -> set[str]:
    """Every stored paper has all of its chunks, from one version; returns the paper ids."""
    per_paper: dict[str, list[dict]] = {}
    for _, metadata in chunks.values():
        per_paper.setdefault(metadata["paper_id"], []).append(metadata)
    for paper_id, metadatas in per_paper.items():
        assert sorted(m["chunk"] for m in metadatas) == list(range(metadatas[0]["n_chunks"]))
        assert len({m["content_hash"] for m in metadatas}) == 1, paper_id
    return set(per_paper)


def test_ingest_killed_at_random_points_converges(tmp_path):
    rng = random.Random(SEED)
    corpus = write_jsonl(tmp_path / "corpus.jsonl", synthetic_records(N_PAPERS, rng))
    settings = Settings(embedding_model="fake", data_dir=tmp_path / "data", titles_path=None)

    papers_after_kill = []
    for _ in range(KILLS):
        started = time.time()
        process = start_ingest(corpus, settings)
        written = partial(store_written_since, settings.chroma_dir, started)
        if not wait_until(written, process):
            break  # an earlier kill left so little work that this run finished first
        time.sleep(rng.uniform(0.2, 2.5))
        process.send_signal(signal.SIGKILL)  # a no-op if it already finished
        process.wait(RUN_TIMEOUT_S)
        papers_after_kill.append(len(assert_whole_papers(stored_chunks(settings))))
    assert any(0 < n < N_PAPERS for n in papers_after_kill), (
        f"no kill landed while ingest was writing papers: {papers_after_kill}"
    )

    # One more run killed while it builds the BM25 index (when it gets that far).
    process = start_ingest(corpus, settings)
    staging = settings.bm25_dir.with_name(settings.bm25_dir.name + ".new")
    if wait_until(staging.exists, process, poll_s=0.001):
        time.sleep(rng.uniform(0.0, 0.3))  # somewhere inside the build, which takes ~1 s
        process.send_signal(signal.SIGKILL)  # a no-op if it already finished
    process.wait(RUN_TIMEOUT_S)

    final = start_ingest(corpus, settings, "--json")
    stdout, stderr = final.communicate(timeout=RUN_TIMEOUT_S)
    assert final.returncode == 0, stderr
    report = json.loads(stdout.strip().splitlines()[-1])
    assert report["papers"] == N_PAPERS and report["errors"] == 0
    assert_converged(settings, corpus)


def assert_converged(settings: Settings, corpus: Path) -> None:
    """Chroma holds exactly the corpus's chunks; BM25 and the catalog describe the same."""
    expected_papers = load_corpus([corpus], None, settings.max_abstract_chars).papers
    chunker = Chunker(FakeEmbedder(), settings.chunk_size, settings.chunk_overlap)
    expected = {
        chunk.chunk_id: (chunk.text, content_hash(paper, chunker.signature))
        for paper in expected_papers
        for chunk in chunker.chunks(paper)
    }
    chunks = stored_chunks(settings)
    assert len(assert_whole_papers(chunks)) == N_PAPERS
    assert chunks.keys() == expected.keys()  # dict keys: each id once, none stray, none missing
    assert all(
        (document, metadata["content_hash"]) == expected[chunk_id]
        for chunk_id, (document, metadata) in chunks.items()
    )

    lexical = bm25.BM25Index(settings.bm25_dir)
    assert sorted(lexical.chunk_ids) == sorted(chunks)
    hashes = {metadata["paper_id"]: metadata["content_hash"] for _, metadata in chunks.values()}
    assert bm25.read_manifest(settings.bm25_dir)["fingerprint"] == bm25.fingerprint(hashes)
    assert sorted(p.paper_id for p in lexical.papers) == sorted(hashes)

    from rag.retrieve import Retriever

    retriever = Retriever(settings)
    for paper in expected_papers[:: N_PAPERS // 4]:
        number = int(paper.title.split()[1])
        by_word = retriever.search(unique_word(number), k=3, mode="bm25")
        by_text = retriever.search(chunker.chunks(paper)[0].text, k=3, mode="dense")
        assert by_word[0].paper.paper_id == by_text[0].paper.paper_id == paper.paper_id


def test_search_between_an_interrupted_ingest_and_the_next_one(tmp_path, monkeypatch):
    """Chroma may hold papers the BM25 catalog does not list yet (an ingest is running or
    was cut short): searches skip them instead of failing."""
    from rag.index import run_ingest
    from rag.index.store import ChromaStore
    from rag.retrieve import Retriever

    records = synthetic_records(600, random.Random(SEED))
    settings = Settings(embedding_model="fake", data_dir=tmp_path / "data", titles_path=None)
    run_ingest(settings, [write_jsonl(tmp_path / "old.jsonl", records[:100])], show_progress=False)
    real_write = ChromaStore.write

    def write_once_then_die(self, *args):
        monkeypatch.setattr(ChromaStore, "write", _killed)
        real_write(self, *args)

    monkeypatch.setattr(ChromaStore, "write", write_once_then_die)
    with pytest.raises(KeyboardInterrupt):
        run_ingest(settings, [write_jsonl(tmp_path / "new.jsonl", records)], show_progress=False)
    monkeypatch.setattr(ChromaStore, "write", real_write)

    retriever = Retriever(settings)
    new_paper = next(
        document
        for chunk_id, document, _ in retriever.store.rows()
        if chunk_id.split("#")[0] not in retriever.catalog
    )
    try:
        assert retriever.search(new_paper, k=3, mode="dense")
    except RagError as error:  # refusing with a message is fine too
        assert "ingest" in str(error)


def _killed(*args):
    raise KeyboardInterrupt("simulated SIGKILL")
