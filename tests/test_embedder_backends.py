"""The ONNX embedding backends: PyTorch's vectors, one local export reused, clear errors."""

import numpy as np
import pytest

from rag.config import BUNDLED_EMBEDDER, Settings
from rag.corpus import load_corpus
from rag.errors import ConfigError, StoreError
from rag.index import onnx_embedder, open_store, run_ingest
from rag.index.embedder import embedder_from_settings, load_embedder
from tests.conftest import SEEDS, TITLES, abstract, write_jsonl

pytestmark = pytest.mark.slow

# int8 weights move vectors a little; full precision must not move them at all.
MIN_COSINE = {"onnx": 0.99999, "onnx-int8": 0.99}


@pytest.fixture(scope="session")
def onnx_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("onnx")


@pytest.fixture(scope="session")
def seed_abstracts() -> list[str]:
    return [paper.abstract for paper in load_corpus([SEEDS], TITLES, 20_000).papers[:8]]


@pytest.mark.parametrize("backend", ["onnx", "onnx-int8"])
def test_onnx_vectors_and_word_pieces_match_torch(backend, onnx_dir, real_embedder, seed_abstracts):
    embedder = load_embedder(BUNDLED_EMBEDDER, backend=backend, onnx_dir=onnx_dir)
    texts = [*seed_abstracts, "What does BayesCoxCP price?"]
    cosines = np.sum(np.array(embedder.embed(texts)) * np.array(real_embedder.embed(texts)), axis=1)
    assert cosines.min() > MIN_COSINE[backend], cosines
    assert embedder.window == real_embedder.window
    assert embedder.tokenize(texts[0]) == real_embedder.tokenize(texts[0])  # the same chunks


def test_export_happens_once_and_is_reused(onnx_dir, seed_abstracts, monkeypatch):
    first = load_embedder(BUNDLED_EMBEDDER, backend="onnx-int8", onnx_dir=onnx_dir)
    first.embed(["warm"])
    files = sorted(first.cache_dir.iterdir())
    assert [f.name for f in files] == ["model.onnx", "model_int8.onnx"]  # no leftovers
    written = [f.stat().st_mtime_ns for f in files]

    def no_export(*args):
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_embedder, "export_onnx", no_export)
    monkeypatch.setattr(onnx_embedder, "quantize_int8", no_export)
    for backend in ("onnx", "onnx-int8"):
        load_embedder(BUNDLED_EMBEDDER, backend=backend, onnx_dir=onnx_dir).embed(
            seed_abstracts[:2]
        )
    assert [f.stat().st_mtime_ns for f in files] == written


def test_a_broken_export_file_says_how_to_fix_it(tmp_path):
    embedder = load_embedder(BUNDLED_EMBEDDER, backend="onnx", onnx_dir=tmp_path)
    broken = embedder.cache_dir / "model.onnx"
    broken.parent.mkdir()
    broken.write_bytes(b"half a model")
    with pytest.raises(ConfigError, match=f"{broken}.*Delete it.*RAG_EMBEDDING_BACKEND=torch"):
        embedder.embed(["a question"])


def test_a_failed_export_is_a_clear_error_and_leaves_no_file(tmp_path, monkeypatch):
    def out_of_disk(model_path, target):
        target.write_bytes(b"partial")
        raise OSError("No space left on device")

    monkeypatch.setattr(onnx_embedder, "export_onnx", out_of_disk)
    embedder = load_embedder(BUNDLED_EMBEDDER, backend="onnx", onnx_dir=tmp_path)
    with pytest.raises(ConfigError, match="Exporting.*No space left.*RAG_EMBEDDING_BACKEND=torch"):
        embedder.embed(["a question"])
    assert list(embedder.cache_dir.iterdir()) == []


def test_onnx_shares_the_torch_index_and_int8_needs_its_own(tmp_path, onnx_dir):
    corpus = write_jsonl(
        tmp_path / "corpus.jsonl",
        [{"title": "Protein folding", "abstract": abstract("protein structure prediction")}],
    )
    onnx = load_embedder(BUNDLED_EMBEDDER, backend="onnx", onnx_dir=onnx_dir)
    settings = Settings(data_dir=tmp_path / "data", corpus_paths=[corpus], titles_path=None)
    run_ingest(settings.model_copy(update={"embedding_backend": "onnx"}), embedder=onnx)

    assert open_store(settings).count() == 1  # torch reads what onnx wrote
    int8 = settings.model_copy(update={"embedding_backend": "onnx-int8"})
    assert settings.onnx_dir in embedder_from_settings(int8).cache_dir.parents  # under data_dir
    with pytest.raises(StoreError, match=r"'all-MiniLM-L6-v2'.*\(int8\).*RAG_EMBEDDING_BACKEND"):
        open_store(int8)


def test_a_query_embeds_on_one_thread_to_the_same_vector_and_leaves_the_thread_count(
    real_embedder, seed_abstracts
):
    import numpy as np
    import torch

    from rag.index.embedder import SMALL_BATCH

    texts = (seed_abstracts * 5)[: SMALL_BATCH + 1]  # one over: embedded with every thread
    threads = torch.get_num_threads()
    alone = np.array([real_embedder.embed([text])[0] for text in texts[:3]])
    batched = np.array(real_embedder.embed(texts)[:3])
    assert np.allclose(alone, batched, atol=1e-5)
    assert torch.get_num_threads() == threads
