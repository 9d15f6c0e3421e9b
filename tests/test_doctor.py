"""A damaged index: every command says so in one message naming the repair (never a segfault or
a traceback), `rag doctor` finds what is wrong, and `rag doctor --repair` rebuilds it."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading

import numpy as np
import pytest

from rag.config import Settings
from rag.index import run_ingest
from rag.index.integrity import HEADER
from tests.conftest import abstract, write_jsonl

pytestmark = pytest.mark.slow  # `rag` processes over an index of 1,100 papers

CHUNKS_ON_DISK = 1_100  # Chroma writes its HNSW files once a collection passes 1,000 vectors


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """An index of a big enough corpus that its vector index lives in HNSW files."""
    folder = tmp_path_factory.mktemp("pristine")
    corpus = write_jsonl(
        folder / "mine.jsonl",
        [{"title": f"Paper {n}", "abstract": abstract(f"topic {n}", 20)} for n in range(1_100)],
    )
    settings = Settings(
        embedding_model="fake", data_dir=folder / "data", corpus_paths=[corpus], titles_path=None
    )
    run_ingest(settings, show_progress=False)
    return settings


@pytest.fixture
def index(pristine, tmp_path):
    """A copy of the pristine index, free to damage."""
    shutil.copytree(pristine.data_dir, tmp_path / "data")
    return pristine.model_copy(update={"data_dir": tmp_path / "data"})


def rag(settings: Settings, *args: str) -> subprocess.CompletedProcess:
    env = os.environ | {
        "RAG_DATA_DIR": str(settings.data_dir),
        "RAG_EMBEDDING_MODEL": "fake",
        "RAG_CORPUS_PATHS": str(settings.corpus_paths[0]),
        "RAG_TITLES_PATH": "",
    }
    return subprocess.run(
        [sys.executable, "-m", "rag", *args], capture_output=True, text=True, env=env, timeout=600
    )


def segment_folders(settings: Settings):
    return [p for p in settings.chroma_dir.iterdir() if p.is_dir() and (p / "header.bin").is_file()]


def overwrite_level0(settings: Settings) -> None:
    for folder in segment_folders(settings):
        level0 = folder / "data_level0.bin"
        level0.write_bytes(os.urandom(level0.stat().st_size))  # same size, garbage links


def delete_segments(settings: Settings) -> None:
    for folder in segment_folders(settings):
        shutil.rmtree(folder)


def truncate_database(settings: Settings) -> None:
    path = settings.chroma_dir / "chroma.sqlite3"
    with open(path, "r+b") as db:
        db.truncate(path.stat().st_size // 2)


def elements(settings: Settings) -> list[int]:
    """How many elements each HNSW file holds, by its header."""
    return [HEADER.unpack((f / "header.bin").read_bytes())[3] for f in segment_folders(settings)]


def random_block_mid_level0(settings: Settings) -> None:
    """8 KB of random bytes in the middle of each data_level0.bin (over the links, vectors and
    labels of the five elements or so there, when the file holds that many)."""
    for folder in segment_folders(settings):
        with open(folder / "data_level0.bin", "r+b") as level0:
            level0.seek(level0.seek(0, os.SEEK_END) // 2)
            level0.write(os.urandom(8192))


def overwrite_vectors(settings: Settings, rows: int = 5) -> None:
    """Random floats over the vectors of a few elements of each HNSW file, leaving their links
    and labels sound."""
    for folder in segment_folders(settings):
        header = HEADER.unpack((folder / "header.bin").read_bytes())
        count, element, data_at, label_at = header[3], header[4], header[6], header[5]
        with open(folder / "data_level0.bin", "r+b") as level0:
            for row in range(count // 2, min(count // 2 + rows, count)):
                level0.seek(row * element + data_at)
                level0.write(os.urandom(label_at - data_at))


def stored_vectors(settings: Settings) -> dict[str, dict[str, list[float]]]:
    """Every stored vector by collection and id, as a fresh client reads them."""
    import chromadb
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()  # not the vectors this process read before
    client = chromadb.PersistentClient(path=str(settings.chroma_dir))
    vectors = {}
    for collection in client.list_collections():
        stored = collection.get(include=["embeddings"])
        vectors[collection.name] = dict(zip(stored["ids"], stored["embeddings"].tolist()))
    return vectors


def same_vectors(one: dict, other: dict) -> bool:
    return one.keys() == other.keys() and all(
        one[name].keys() == other[name].keys()
        and np.allclose(
            [one[name][key] for key in one[name]], [other[name][key] for key in one[name]]
        )
        for name in one
    )


DAMAGE = {  # (a truncated data_level0.bin is what a killed ingest leaves: Chroma recovers)
    "data_level0.bin overwritten": overwrite_level0,
    "8 KB of random bytes mid data_level0.bin": random_block_mid_level0,
    "HNSW folder deleted": delete_segments,
    "chroma.sqlite3 half truncated": truncate_database,
}


def test_the_pristine_index_is_healthy_and_on_disk(pristine):
    assert segment_folders(pristine), "the HNSW files should exist for this test to mean much"
    result = rag(pristine, "doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BAD" not in result.stdout


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_store_is_one_clear_message_and_doctor_repairs_it(index, damage):
    DAMAGE[damage](index)
    for command in (["papers"], ["search", "topic 7"]):
        result = rag(index, *command)
        assert result.returncode == 2, (damage, command, result.returncode, result.stderr[-500:])
        assert "damaged" in result.stderr and "rag doctor --repair" in result.stderr
        assert "Traceback" not in result.stderr
    found = rag(index, "doctor")
    assert found.returncode == 1 and "BAD" in found.stdout
    repaired = rag(index, "doctor", "--repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr[-800:]
    listed = rag(index, "papers", "--json")
    assert listed.returncode == 0 and '"Paper 1099"' in listed.stdout
    search = rag(index, "search", "topic 7", "--json")
    assert search.returncode == 0 and "Paper" in search.stdout


def test_a_corrupted_bm25_index_is_reported_and_ingest_rebuilds_it(index):
    (index.bm25_dir / "chunk_ids.json").write_text("{not json")
    result = rag(index, "search", "topic 7")
    assert result.returncode == 2 and "BM25 index" in result.stderr
    assert "rag doctor --repair" in result.stderr and "Traceback" not in result.stderr
    assert rag(index, "ingest").returncode == 0  # sees the damage behind the intact manifest
    assert rag(index, "search", "topic 7").returncode == 0


def test_a_missing_vector_folder_is_found_even_before_chroma_opens(index):
    from rag.errors import StoreError
    from rag.index import open_store

    delete_segments(index)
    with pytest.raises(StoreError, match="vector index folder .* is missing"):
        open_store(index)
    with sqlite3.connect(index.chroma_dir / "chroma.sqlite3") as db:
        assert db.execute("PRAGMA quick_check").fetchone()[0] == "ok"  # only the folder is gone


# `rag doctor --repair`, stopping at a named moment of its rebuild until the test kills it:
# before its n-th store write, or once the damaged store is moved aside, or once the new store
# is moved in (each a rename whose target is named so).
PAUSING_REPAIR = """
import sys
import time
from pathlib import Path

from rag.cli import main
from rag.index.store import ChromaStore

moment, count = sys.argv.pop(1), int(sys.argv.pop(1))
seen = 0

def stop_here(marker):
    global seen
    seen += 1
    if seen == count:
        print(marker, flush=True)
        time.sleep(600)

def write(self, *args, _write=ChromaStore.write):
    if moment == "write":
        stop_here("write")
    return _write(self, *args)

def rename(self, target, _rename=Path.rename):
    moved = _rename(self, target)
    if moment == Path(target).name.split("-")[0]:
        stop_here(moment)
    return moved

ChromaStore.write, Path.rename = write, rename
main()
"""
KILL_AT = {  # (moment, count): the damaged store is still in place, gone, replaced
    "mid-ingest": ("write", 3),
    "damaged store moved aside": ("chroma.damaged", 1),
    "new store moved in": ("chroma", 1),
}


@pytest.mark.parametrize("moment", list(KILL_AT))
def test_a_repair_killed_during_its_rebuild_is_finished_by_the_next_and_loses_nothing(
    index, moment
):
    truncate_database(index)  # unreadable: the rebuild reads the configured corpus
    env = os.environ | {
        "RAG_DATA_DIR": str(index.data_dir),
        "RAG_EMBEDDING_MODEL": "fake",
        "RAG_CORPUS_PATHS": str(index.corpus_paths[0]),
        "RAG_TITLES_PATH": "",
    }
    repair = subprocess.Popen(
        [sys.executable, "-c", PAUSING_REPAIR, *map(str, KILL_AT[moment]), "doctor", "--repair"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(300, repair.kill)
    watchdog.start()
    try:
        reached = repair.stdout.readline().strip()  # the moment, printed as it is reached
        repair.send_signal(signal.SIGKILL)
        repair.wait(60)
    finally:
        watchdog.cancel()
    assert reached == KILL_AT[moment][0], repair.stderr.read()[-800:]
    found = rag(index, "doctor")
    assert found.returncode == 1 and "BAD rebuild: a rebuild of the store was interrupted" in (
        found.stdout
    ), found.stdout
    if moment == "damaged store moved aside":  # no store: `rag ingest` would start another
        refused = rag(index, "ingest")
        assert refused.returncode == 2 and "rag doctor --repair" in refused.stderr
    repaired = rag(index, "doctor", "--repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr[-800:]
    listed = rag(index, "papers", "--json")
    assert listed.returncode == 0 and len(json.loads(listed.stdout)) == CHUNKS_ON_DISK
    healthy = rag(index, "doctor")
    assert healthy.returncode == 0 and "BAD" not in healthy.stdout, healthy.stdout
    assert not (index.data_dir / "rebuilding").exists()
    found = rag(index, "search", "--mode", "bm25", "--json", "topic 77")
    assert found.returncode == 0 and json.loads(found.stdout)[0]["title"] == "Paper 77"
    asked = rag(index, "ask", "--backend", "extractive", "--json", "What is new for topic 77?")
    assert asked.returncode == 0, asked.stderr[-800:]
    answer = json.loads(asked.stdout)
    assert not answer["abstained"] and answer["citations"] and not answer["notices"], answer


def test_changed_vector_bytes_behind_sound_links_are_found_and_repaired(index):
    pristine_vectors = stored_vectors(index)
    overwrite_vectors(index)
    assert not same_vectors(stored_vectors(index), pristine_vectors)  # what searches read
    assert rag(index, "papers").returncode == 0  # the files' structure is sound
    found = rag(index, "doctor")
    assert found.returncode == 1, found.stdout
    assert "BAD vector index: 10 stored vectors differ from those written at ingest" in (
        found.stdout
    )
    repaired = rag(index, "doctor", "--repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr[-800:]
    assert "vectors match their ingest checks" in repaired.stdout
    assert same_vectors(stored_vectors(index), pristine_vectors)


def test_random_bytes_where_an_hnsw_file_holds_no_elements_yet_change_no_vector(tmp_path):
    """A small collection lives in Chroma's log: its HNSW files are allocated but hold no
    element, Chroma never reads their bytes (every vector stays as it was), and writes them
    anew when the collection grows. (Search results are not compared: a process that has just
    opened a small store sometimes gets fewer chunks than it asked for, damage or not.)"""
    corpus = write_jsonl(
        tmp_path / "small.jsonl",
        [{"title": f"Paper {n}", "abstract": abstract(f"topic {n}", 20)} for n in range(60)],
    )
    small = Settings(
        embedding_model="fake", data_dir=tmp_path / "data", corpus_paths=[corpus], titles_path=None
    )
    run_ingest(small, show_progress=False)
    vectors = stored_vectors(small)
    assert elements(small) == [0, 0]  # the damage below lies past every element
    random_block_mid_level0(small)
    assert same_vectors(stored_vectors(small), vectors)
    healthy = rag(small, "doctor")
    assert healthy.returncode == 0 and "181 vectors match their ingest checks" in healthy.stdout
    more = write_jsonl(
        tmp_path / "more.jsonl",
        [{"title": f"More {n}", "abstract": abstract(f"subject {n}", 20)} for n in range(1_200)],
    )
    assert rag(small, "ingest", str(more)).returncode == 0  # past 1,000: the files are written
    assert all(elements(small))
    grown = rag(small, "doctor")
    assert grown.returncode == 0 and "3781 vectors match their ingest checks" in grown.stdout
