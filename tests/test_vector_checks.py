"""The checks ingest records with every vector, which `rag doctor` compares with what Chroma
hands back (tests/test_doctor.py damages real HNSW files)."""

import numpy as np

from rag.index import open_store
from rag.index.vector_checks import NORM, differing, vector_checks


def test_changed_vectors_differ_from_their_checks_and_float32_rounding_does_not():
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(6, 384))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    checks = vector_checks(vectors)
    handed_back = vectors.astype(np.float32).astype(np.float64)  # as Chroma stores them
    assert differing(handed_back, checks) == ([], 0)
    damaged = handed_back.copy()
    damaged[1, 100] += 0.01  # one coordinate of ~0.05 moved
    with np.errstate(invalid="ignore"):  # random bytes: some read as NaN
        damaged[2] = np.frombuffer(rng.bytes(384 * 4), dtype=np.float32)
    damaged[3, 7] = np.nan
    damaged[4, 0] = np.inf
    checks[5] = {}  # a vector stored before checks were kept
    assert differing(damaged, checks) == ([1, 2, 3, 4], 1)


def test_ingest_records_the_checks_of_every_chunk_and_sentence_vector(fake_index):
    store = open_store(fake_index)
    chunks = store.collection.get(include=["embeddings", "metadatas"])
    sentences = store._sentences.get(include=["embeddings", "metadatas"])
    for stored in (chunks, sentences):
        assert stored["ids"] and all(NORM in metadata for metadata in stored["metadatas"])
        assert differing(stored["embeddings"], stored["metadatas"]) == ([], 0)
