"""Checks of stored vectors. Chroma keeps the vectors it has indexed only in its HNSW files, and
bytes changed in a vector there change search results and the sentence vectors answers are
built from, while the files' structure (integrity.py) stays sound. So ingest records two numbers
of each vector in its metadata, which lives in the SQLite database: its norm, and its projection
on a fixed pattern of signs. `rag doctor` compares every stored vector with them."""

import numpy as np

NORM, PROJECTION = "vector_norm", "vector_projection"
# Relative to the norm. Chroma hands vectors back within ~1e-6 of what was written (float32);
# a coordinate changed by more than ~3e-3 (a unit vector of 384 has coordinates of ~0.05),
# which random bytes nearly always do, moves the projection past it.
TOLERANCE = 1e-4


def signs(dimension: int) -> np.ndarray:
    """±1/sqrt(dimension) in the Thue-Morse order (the parity of each index's bits): every
    coordinate weighs the same, and the pattern never changes."""
    parity = np.array([index.bit_count() % 2 for index in range(dimension)])
    return (1.0 - 2.0 * parity) / np.sqrt(dimension)


def measure(vectors) -> tuple[np.ndarray, np.ndarray]:
    """The norms and projections of a list of vectors."""
    matrix = np.asarray(vectors, dtype=np.float64)
    if matrix.size == 0:
        return np.zeros(0), np.zeros(0)
    return np.linalg.norm(matrix, axis=1), matrix @ signs(matrix.shape[1])


def vector_checks(vectors) -> list[dict]:
    """The metadata recording each vector's checks, to store with it."""
    norms, projections = measure(vectors)
    return [{NORM: float(n), PROJECTION: float(p)} for n, p in zip(norms, projections)]


def differing(vectors, metadatas: list[dict | None]) -> tuple[list[int], int]:
    """The positions of the vectors that differ from the checks stored with them, and how many
    vectors have no checks (stored before checks were kept)."""
    checked = [i for i, metadata in enumerate(metadatas) if metadata and NORM in metadata]
    if not checked:
        return [], len(metadatas)
    with np.errstate(all="ignore"):  # random bytes read as floats: inf and NaN differ too
        norms, projections = measure([vectors[i] for i in checked])
        expected_norms = np.array([metadatas[i][NORM] for i in checked])
        expected_projections = np.array([metadatas[i][PROJECTION] for i in checked])
        scale = TOLERANCE * np.maximum(expected_norms, 1e-6)
        same = (np.abs(norms - expected_norms) <= scale) & (
            np.abs(projections - expected_projections) <= scale
        )
    return [i for i, ok in zip(checked, same) if not ok], len(metadatas) - len(checked)
