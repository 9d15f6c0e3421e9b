"""Which embedder built an index, beyond its name: the vector it gave a fixed probe sentence,
recorded by the first ingest and compared whenever an embedder meets the index (an ingest, the
first search). The store already refuses an embedder of another name; this also refuses a server
that serves another model under the configured name, or the right model at another precision.
"""

import json

from rag.errors import StoreError

PROBE = "Sparse attention lets transformers read long scientific documents."
PROBE_KEY = "embedder_probe"  # in the collection's metadata, as a JSON list
MIN_COSINE = 0.999  # the same model on another runtime agrees to ~1e-6; int8 weights do not


def check_embedder(store, embedder, record: bool = False) -> None:
    """Raise a StoreError when `embedder` does not give the vectors the index was built with;
    with `record`, an index that has no probe vector yet gets this embedder's."""
    import numpy as np

    metadata = store.collection.metadata or {}
    vector = np.asarray(embedder.embed([PROBE])[0], dtype=np.float64)
    if PROBE_KEY not in metadata:
        if record:
            rounded = json.dumps([round(value, 6) for value in vector.tolist()])
            store.collection.modify(metadata={**metadata, PROBE_KEY: rounded})
        return
    recorded = np.asarray(json.loads(metadata[PROBE_KEY]), dtype=np.float64)
    cosine = (
        float(vector @ recorded / (np.linalg.norm(vector) * np.linalg.norm(recorded)))
        if vector.shape == recorded.shape
        else 0.0
    )
    if cosine < MIN_COSINE:
        raise StoreError(
            f"Collection '{store.name}' was built by an embedder whose vectors differ from those "
            f"of '{embedder.name}' ({describe(vector, recorded, cosine)}): an embeddings server "
            "serves another model under that name, or the model changed. Point "
            "RAG_EMBEDDING_SERVER__* at a server running the index's model, restore "
            "RAG_EMBEDDING_MODEL and RAG_EMBEDDING_BACKEND, or set RAG_COLLECTION_NAME to a "
            "new name and run `rag ingest`."
        )


def describe(vector, recorded, cosine: float) -> str:
    if vector.shape != recorded.shape:
        return f"{vector.shape[0]} dimensions, the index has {recorded.shape[0]}"
    return f"cosine {cosine:.4f} on a probe sentence, {MIN_COSINE} needed"
