"""The Chroma store of chunks (embedded on disk, or a Chroma server); the only Chroma user."""

import functools
import hashlib
import itertools
import threading
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from rag.config import Settings
from rag.errors import StoreError
from rag.index.access import explained
from rag.models import Chunk, Paper, chunk_id_for, normalize_text

PAGE = 5000
FRESH_CLIENTS = itertools.count(1)  # see own_path
LIST_FIELDS = ("authors",)


@dataclass
class IndexedPaper:
    """What ingest needs to know about a paper already in the store."""

    content_hash: str
    title_key: str
    source_file: str
    chunk_ids: set[str] = field(default_factory=set)
    expected_chunks: int = 0


def content_hash(paper: Paper, chunker_signature: str) -> str:
    """Changes whenever anything that ends up in the index would change."""
    # fields added later are hashed only when set, so indexes built before them stay current
    later = {name for name in ("year", "keywords") if not getattr(paper, name)}
    payload = paper.model_dump_json(exclude=later) + chunker_signature
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def chunk_metadata(paper: Paper, chunk: Chunk, n_chunks: int, paper_hash: str) -> dict:
    """Everything needed to cite and filter, flattened for Chroma (no None values)."""
    metadata = {
        "paper_id": paper.paper_id,
        "chunk": chunk.index,
        "n_chunks": n_chunks,
        "body_start": chunk.body_start,
        "content_hash": paper_hash,
        "title": paper.title,
        "title_source": paper.title_source,
        "title_key": normalize_text(paper.title),
        "authors_truncated": paper.authors_truncated,
        "source_file": paper.source_file,
    }
    for name in ("area", "subarea", "venue", "url"):
        metadata[name] = getattr(paper, name) or ""
    if paper.authors:
        metadata["authors"] = paper.authors
    if paper.year:
        metadata["year"] = paper.year
    if paper.keywords:
        metadata["keywords"] = paper.keywords
    if chunk.index == 0:  # the whole abstract once per paper, for listing and support checks
        metadata["abstract"] = paper.abstract
    return metadata


def chunk_from_row(chunk_id: str, document: str, metadata: dict) -> Chunk:
    """A stored chunk (Chroma's id, document and metadata) as our model."""
    return Chunk(
        chunk_id=chunk_id,
        paper_id=metadata["paper_id"],
        index=metadata["chunk"],
        text=document,
        body_start=metadata.get("body_start", 0),
    )


def paper_from_metadata(metadata: dict) -> Paper:
    fields = {name: metadata.get(name) or None for name in ("area", "subarea", "venue", "url")}
    return Paper(
        paper_id=metadata["paper_id"],
        title=metadata["title"],
        title_source=metadata["title_source"],
        authors=list(metadata.get("authors") or []),
        authors_truncated=bool(metadata.get("authors_truncated")),
        year=metadata.get("year"),
        keywords=list(metadata.get("keywords") or []),
        abstract=metadata.get("abstract", ""),
        source_file=metadata["source_file"],
        **fields,
    )


def unreachable(settings: Settings, error: Exception, lost: bool = False) -> StoreError:
    """The Chroma server cannot be reached (or stopped answering): where, and what to do."""
    import httpx

    where = f"{settings.chroma_host}:{settings.chroma_port}"
    what = "Lost the connection to" if lost else "Cannot reach"
    if isinstance(error, httpx.TimeoutException):
        return StoreError(
            f"The Chroma server at {where} gave no answer within {settings.chroma_timeout_s:g} s "
            "(RAG_CHROMA_TIMEOUT_S sets the limit): it is hung or overloaded. Restart it, or "
            "unset RAG_CHROMA_HOST to use the embedded store."
        )
    start = f"`chroma run --path DIR --port {settings.chroma_port}`"
    return StoreError(
        f"{what} the Chroma server at {where} ({type(error).__name__}: {error}). "
        + (
            f"Restart it ({start} with the same DIR), then try again."
            if lost
            else f"Start it with {start}, or unset RAG_CHROMA_HOST to use the embedded store."
        )
    )


def server_call(method):
    """A store method whose lost Chroma server, or whose refusing file system (read-only,
    full), becomes a StoreError, not a traceback."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        import httpx

        try:
            with explained(self.settings.data_dir) if self.embedded else nullcontext():
                return method(self, *args, **kwargs)
        except httpx.TransportError as error:
            raise unreachable(self.settings, error, lost=True) from None

    return wrapper


def own_path(folder: Path) -> str:
    """The folder under a name no other client in this process uses. Chroma shares one client
    per path within a process, and that client keeps the vector index in memory as it was:
    after another process (an ingest) wrote to the store it fails ("Error finding id"), so a
    fresh view needs a client of its own. The name is the folder with "/." and "//" appended,
    spelling a counter in binary (short, and the same folder to the file system)."""
    number = next(FRESH_CLIENTS)
    return str(folder) + "".join("/." if bit == "1" else "//" for bit in f"{number:b}")


def open_client(settings: Settings, create: bool = True, fresh: bool = False):
    """A Chroma client: a server when chroma_host is set, else a store under data_dir (which
    only a writing command creates: a mistyped RAG_DATA_DIR must not leave folders behind);
    `fresh`: one that reads the embedded store anew (see `own_path`)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if settings.chroma_host:
        import httpx

        # Chroma's client waits forever on a server that accepts and never answers: ask first,
        # with our timeout, then give its own HTTP session the same timeout.
        url = f"http://{settings.chroma_host}:{settings.chroma_port}/api/v2/heartbeat"
        try:
            httpx.get(url, timeout=settings.chroma_timeout_s).raise_for_status()
            client = chromadb.HttpClient(
                host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings
            )
        except Exception as error:
            raise unreachable(settings, error) from None
        session = getattr(getattr(client, "_server", None), "_session", None)
        if session is not None:
            session.timeout = httpx.Timeout(settings.chroma_timeout_s)
        return client
    if not create and not (settings.chroma_dir / "chroma.sqlite3").is_file():
        raise StoreError(
            f"No index in {settings.data_dir.resolve()} (RAG_DATA_DIR); run `rag ingest` first, "
            "or check the path."
        )
    settings.chroma_dir.mkdir(parents=True, exist_ok=True)
    path = own_path(settings.chroma_dir) if fresh else str(settings.chroma_dir)
    return chromadb.PersistentClient(path=path, settings=chroma_settings)


class ChromaStore:
    """Chunks with their embeddings and paper metadata, in one cosine-space collection."""

    def __init__(self, settings: Settings, embedder_name: str, create: bool = True):
        self.settings, self.embedder_name, self.create = settings, embedder_name, create
        self.embedded = not settings.chroma_host
        self.name = settings.collection_name
        self._retired = None  # the client before the last reopen, closed at the next one
        self._reopening = threading.Lock()
        with explained(settings.data_dir) if self.embedded else nullcontext():
            self.client = open_client(settings, create)
            self.collection = self._open_collection()

    def _open_collection(self):
        try:
            if self.create:
                collection = self.client.get_or_create_collection(
                    self.name,
                    configuration={"hnsw": {"space": "cosine"}},
                    metadata={"embedder": self.embedder_name},
                    embedding_function=None,
                )
            else:
                collection = self.client.get_collection(self.name, embedding_function=None)
        except Exception as error:
            if not self.create:
                raise StoreError(
                    f"No index '{self.name}' found ({error}); run `rag ingest` first."
                ) from None
            raise StoreError(f"Cannot open collection '{self.name}': {error}") from None
        built_with = (collection.metadata or {}).get("embedder")
        if built_with and built_with != self.embedder_name:
            raise StoreError(
                f"Collection '{self.name}' was built with the embedder '{built_with}', not "
                f"'{self.embedder_name}'. Set RAG_COLLECTION_NAME to a new name, or restore "
                "RAG_EMBEDDING_MODEL and RAG_EMBEDDING_BACKEND."
            )
        return collection

    def reopen(self) -> None:
        """Read the store anew after another process wrote to it (a Chroma server always
        answers from what it has: nothing to do)."""
        if not self.embedded:
            return
        with self._reopening, explained(self.settings.data_dir):
            if self._retired is not None:  # long unused: answers in flight then have finished
                self._retired.close()
            client = open_client(self.settings, self.create, fresh=True)
            self._retired, self.client = self.client, client
            self.collection = self._open_collection()
            self.__dict__.pop("_sentences", None)  # the sentence vectors' collection, anew too

    def close(self) -> None:
        """Let go of the store's files (Chroma keeps one client per folder in a process, shared
        by every store opened on it, and closes the files when the last is closed)."""
        for client in (self._retired, self.client):
            if client is not None:
                client.close()
        self._retired = None

    def _pages(self, where: dict | None = None, documents: bool = False):
        include = ["metadatas", "documents"] if documents else ["metadatas"]
        offset = 0
        while True:
            page = self.collection.get(where=where, limit=PAGE, offset=offset, include=include)
            yield from zip(
                page["ids"], page["documents"] or [None] * len(page["ids"]), page["metadatas"]
            )
            if len(page["ids"]) < PAGE:
                return
            offset += PAGE

    def _metadata_pages(self, where: dict | None = None):
        for chunk_id, _, metadata in self._pages(where):
            yield chunk_id, metadata

    @server_call
    def rows(self) -> list[tuple[str, str, dict]]:
        """Every chunk as (chunk_id, document, metadata), in a stable order."""
        return sorted(self._pages(documents=True), key=lambda row: row[0])

    @server_call
    def indexed_papers(self) -> dict[str, IndexedPaper]:
        """Every paper in the store with its content hash and chunk ids."""
        papers: dict[str, IndexedPaper] = {}
        for chunk_id, metadata in self._metadata_pages():
            entry = papers.setdefault(
                metadata["paper_id"],
                IndexedPaper(
                    metadata["content_hash"], metadata["title_key"], metadata["source_file"]
                ),
            )
            entry.chunk_ids.add(chunk_id)
            if metadata["content_hash"] == entry.content_hash:
                entry.expected_chunks = metadata["n_chunks"]
            else:  # chunks from two versions: force a rewrite
                entry.content_hash = ""
        return papers

    @server_call
    def papers(self) -> list[Paper]:
        """All indexed papers, sorted by title."""
        papers = [paper_from_metadata(m) for _, m in self._metadata_pages({"chunk": 0})]
        return sorted(papers, key=lambda paper: paper.title.casefold())

    @server_call
    def query(
        self, vector: list[float], n: int, paper_ids: list[str] | None = None
    ) -> list[tuple[str, float]]:
        """Nearest chunks as (chunk_id, cosine similarity), best first."""
        from chromadb.errors import InternalError

        n = min(n, self.count())
        if n == 0 or paper_ids == []:
            return []
        where = {"paper_id": {"$in": paper_ids}} if paper_ids is not None else None
        query = {"query_embeddings": [vector], "n_results": n, "where": where}
        try:
            found = self.collection.query(**query, include=["distances"])
        except InternalError as error:
            if "Error finding id" not in str(error):
                raise
            self.reopen()  # another process is writing (an ingest): read the store anew
            found = self.collection.query(**query, include=["distances"])
        return [
            (hit, 1.0 - distance) for hit, distance in zip(found["ids"][0], found["distances"][0])
        ]

    @server_call
    def chunks(self, ids: list[str]) -> dict[str, Chunk]:
        """Those of the given chunks that are stored, by id."""
        found = self.collection.get(ids=ids, include=["documents", "metadatas"])
        rows = zip(found["ids"], found["documents"], found["metadatas"])
        return {row[0]: chunk_from_row(*row) for row in rows}

    @server_call
    def abstracts(self, paper_ids: list[str]) -> dict[str, str]:
        """The whole abstract of those of the given papers that are stored, by paper id."""
        ids = [chunk_id_for(paper_id, 0) for paper_id in paper_ids]  # chunk 0 keeps the abstract
        found = self.collection.get(ids=ids, include=["metadatas"])
        return {
            metadata["paper_id"]: metadata.get("abstract", "") for metadata in found["metadatas"]
        }

    @server_call
    def embeddings(self, paper_ids: list[str]) -> dict[str, list]:
        """Every chunk embedding of the given papers, grouped by paper."""
        found = self.collection.get(
            where={"paper_id": {"$in": paper_ids}}, include=["embeddings", "metadatas"]
        )
        grouped: dict[str, list] = {}
        for vector, metadata in zip(found["embeddings"], found["metadatas"]):
            grouped.setdefault(metadata["paper_id"], []).append(vector)
        return grouped

    @server_call
    def write(self, ids: list[str], texts: list[str], embeddings, metadatas: list[dict]) -> None:
        """Upsert chunks in one call (all chunks of a paper go in the same call), each with its
        vector's checks (see vector_checks.py)."""
        from rag.index.vector_checks import vector_checks

        metadatas = [meta | checks for meta, checks in zip(metadatas, vector_checks(embeddings))]
        self.collection.upsert(ids=ids, documents=texts, embeddings=embeddings, metadatas=metadatas)

    @server_call
    def delete(self, ids: list[str]) -> None:
        for start in range(0, len(ids), PAGE):
            self.collection.delete(ids=ids[start : start + PAGE])

    @server_call
    def count(self) -> int:
        return self.collection.count()

    # --- sentence vectors: every abstract sentence embedded once, at ingest, keyed by its text

    @functools.cached_property
    def _sentences(self):
        """The sentence vectors, a cache derived from the corpus: made anew when the embedder
        changed. Its metadata says "complete" once every indexed paper's sentences are in."""
        name, embedder = f"{self.name}-sentences", self.collection.metadata.get("embedder", "")
        collection = self.client.get_or_create_collection(
            name, metadata={"embedder": embedder}, embedding_function=None
        )
        if (collection.metadata or {}).get("embedder") != embedder:
            self.client.delete_collection(name)
            collection = self.client.create_collection(
                name, metadata={"embedder": embedder}, embedding_function=None
            )
        return collection

    @server_call
    def sentences_complete(self) -> bool:
        return bool((self._sentences.metadata or {}).get("complete"))

    @server_call
    def mark_sentences_complete(self, complete: bool) -> None:
        self._sentences.modify(metadata=(self._sentences.metadata or {}) | {"complete": complete})

    @server_call
    def write_sentences(self, texts: list[str], embeddings) -> None:
        from rag.index.vector_checks import vector_checks

        for start in range(0, len(texts), PAGE):
            vectors = embeddings[start : start + PAGE]
            self._sentences.upsert(
                ids=[sentence_key(t) for t in texts[start : start + PAGE]],
                embeddings=vectors,
                metadatas=vector_checks(vectors),
            )

    @server_call
    def known_sentences(self, texts: list[str]) -> set[str]:
        """Which of these sentences already have a stored vector."""
        keys = {sentence_key(text): text for text in texts}
        if not keys:
            return set()
        found = self._sentences.get(ids=list(keys), include=[])
        return {keys[key] for key in found["ids"]}

    @server_call
    def sentence_vectors(self, texts: list[str]) -> dict[str, list[float]]:
        """Stored vectors of those sentences that have one, by text."""
        keys = {sentence_key(text): text for text in texts}
        if not keys:
            return {}
        found = self._sentences.get(ids=list(keys), include=["embeddings"])
        return {keys[key]: vector for key, vector in zip(found["ids"], found["embeddings"])}


def sentence_key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]
