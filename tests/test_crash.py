"""Crash safety: a real `rag ingest` process killed with SIGKILL (no chance to clean up) while
it writes papers, and while it builds the BM25 index, must leave an index that the next run
turns into exactly the corpus, with the BM25 index and catalog agreeing with Chroma."""

import json
import os
import random
import signal
import subprocess
import sys
import threading
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
KILLED_AT_WRITE = (3, 2, 4)  # the n-th store write of each run
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


# `rag ingest` announcing on stdout each store write, and the saving of the BM25 index into its
# staging folder, as it starts them: the test kills it at a moment it has seen it reach.
ANNOUNCING_INGEST = """
import bm25s
from rag.cli import main
from rag.index.store import ChromaStore

def announced(function, marker):
    def announce_then_run(*args, **kwargs):
        print(marker, flush=True)
        return function(*args, **kwargs)
    return announce_then_run

ChromaStore.write = announced(ChromaStore.write, "write")
bm25s.BM25.save = announced(bm25s.BM25.save, "bm25")
main()
"""


def start_ingest(corpus: Path, settings: Settings, *flags: str) -> subprocess.Popen:
    """`rag ingest` as a separate process, with its own environment."""
    env = {
        **os.environ,
        "RAG_EMBEDDING_MODEL": "fake",
        "RAG_DATA_DIR": str(settings.data_dir),
        "RAG_TITLES_PATH": str(settings.data_dir.parent / "no-titles.jsonl"),
        "PYTHONPATH": str(REPO),
    }
    return subprocess.Popen(
        [sys.executable, "-c", ANNOUNCING_INGEST, "ingest", str(corpus), *flags],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_at(process: subprocess.Popen, marker: str, count: int = 1) -> bool:
    """SIGKILL the process as it announces `marker` for the count-th time; False if it ended
    before that (a watchdog ends a process that hangs)."""
    watchdog = threading.Timer(RUN_TIMEOUT_S, process.kill)
    watchdog.start()
    try:
        seen = 0
        for line in process.stdout:
            seen += line.strip() == marker
            if seen == count:
                process.send_signal(signal.SIGKILL)
                return True
        return False
    finally:
        watchdog.cancel()
        process.wait(RUN_TIMEOUT_S)
        assert process.returncode in (0, -signal.SIGKILL), f"ingest failed: {process.returncode}"


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


@pytest.mark.slow
def test_ingest_killed_mid_write_and_mid_bm25_build_converges(tmp_path):
    rng = random.Random(SEED)
    corpus = write_jsonl(tmp_path / "corpus.jsonl", synthetic_records(N_PAPERS, rng))
    settings = Settings(embedding_model="fake", data_dir=tmp_path / "data", titles_path=None)

    papers_after_kill = []
    for writes in KILLED_AT_WRITE:  # each run goes on from what the one before it left
        assert kill_at(start_ingest(corpus, settings), "write", writes), f"no write {writes}"
        papers_after_kill.append(len(assert_whole_papers(stored_chunks(settings))))
    assert 0 < papers_after_kill[0] and papers_after_kill == sorted(set(papers_after_kill))
    assert papers_after_kill[-1] < N_PAPERS

    # One more run, killed inside the BM25 build: its half-written staging folder is left.
    assert kill_at(start_ingest(corpus, settings), "bm25"), "the BM25 index was not rebuilt"
    assert settings.bm25_dir.with_name(settings.bm25_dir.name + ".new").exists()

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
    from rag.models import paper_of
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
        if paper_of(chunk_id) not in retriever.catalog
    )
    try:
        assert retriever.search(new_paper, k=3, mode="dense")
    except RagError as error:  # refusing with a message is fine too
        assert "ingest" in str(error)


def _killed(*args):
    raise KeyboardInterrupt("simulated SIGKILL")
