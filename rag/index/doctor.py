"""Health of the index on disk: is the store readable, does the vector index find what it holds,
do the BM25 index and the catalog agree with the store; and the repair of what is damaged.

Reading a damaged HNSW file can kill the process (SIGSEGV inside Chroma's hnswlib), so every
command first checks the files' structure without Chroma (integrity.py: SQLite's quick check
and the HNSW headers, sizes and links, in milliseconds). `rag doctor` also opens the vector
index in a child process and asks it to find sampled chunks by their own vectors.

    python -m rag.index.doctor DATA_DIR COLLECTION   # that probe: prints a JSON verdict
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

from rag.config import Settings
from rag.errors import StorageError, StoreError
from rag.index.access import refusal, refused, unwritable
from rag.index.integrity import Finding, database_finding, segments_finding

PROBE_TIMEOUT_S = 300
SAMPLE = 5  # chunks whose own vector must find them
PAGE = 5000  # vectors compared with their checks at a time


def vector_finding(settings: Settings) -> Finding:
    """The vector index opened in a child process: it must count the chunks and find each
    sampled chunk by its own vector."""
    command = [sys.executable, "-m", "rag.index.doctor", str(settings.data_dir)]
    command.append(settings.collection_name)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return Finding(part="vector index", ok=False, detail="opening it hangs")
    except OSError as error:  # the check itself cannot start: that says nothing of the index
        detail = f"its check could not start ({error})"
        return Finding(part="vector index", ok=False, detail=detail, kind="storage")
    if done.returncode < 0:
        detail = f"opening it kills the process (signal {-done.returncode})"
        return Finding(part="vector index", ok=False, detail=detail)
    try:
        verdict = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return Finding(part="vector index", ok=False, detail=f"cannot be read ({tail[0][:200]})")
    return Finding(part="vector index", **verdict)


def probe(data_dir: Path, collection: str) -> dict:
    """Run in the child: open the collection, count it, find sampled chunks by their vectors,
    and compare every stored vector (the chunks' and the sentences') with its ingest checks."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    try:
        client = chromadb.PersistentClient(
            path=str(data_dir / "chroma"), settings=ChromaSettings(anonymized_telemetry=False)
        )
        store = client.get_collection(collection, embedding_function=None)
        count = store.count()
        if not count:
            return {"ok": True, "detail": "empty"}
        sample = store.get(limit=SAMPLE, include=["embeddings"])
        found = store.query(
            query_embeddings=sample["embeddings"], n_results=10, include=["distances"]
        )
        lost = [  # a chunk must find itself (or an identical vector: duplicate text)
            cid
            for cid, hits, distances in zip(sample["ids"], found["ids"], found["distances"])
            if cid not in hits and not (distances and distances[0] < 1e-6)
        ]
        wanted = (collection, f"{collection}-sentences")
        names = sorted(c.name for c in client.list_collections() if c.name in wanted)
        checked = {
            name: compare_vectors(client.get_collection(name, embedding_function=None))
            for name in names
        }
    except Exception as error:  # noqa: BLE001 - any failure is the verdict
        detail = f"cannot be read ({type(error).__name__}: {error})"[:300]
        return {"ok": False, "detail": detail, "kind": "storage" if refusal(error) else "damage"}
    if len(lost) > len(sample["ids"]) // 2:  # the search is approximate: one miss is normal
        return {"ok": False, "detail": f"its vectors do not find their own chunks ({lost[0]})"}
    differ = {name: ids for name, (ids, _, _) in checked.items() if ids}
    if differ:
        total = sum(len(ids) for ids in differ.values())
        name, ids = next(iter(differ.items()))
        return {
            "ok": False,
            "detail": f"{total} stored vectors differ from those written at ingest (the HNSW "
            f"files are damaged; the first is {ids[0]} in '{name}')",
        }
    verified = sum(n for _, n, _ in checked.values())
    unchecked = sum(n for _, _, n in checked.values())
    detail = f"{count} chunks; sampled chunks are found by their vectors; "
    if not verified:
        detail += "their vectors are not verified (stored before ingest kept checks of them)"
    else:
        detail += f"{verified} vectors match their ingest checks"
        if unchecked:
            detail += f" ({unchecked} stored before checks were kept are not verified)"
    return {"ok": True, "detail": detail}


def compare_vectors(collection) -> tuple[list[str], int, int]:
    """The ids of the collection's vectors that differ from their ingest checks, how many were
    verified, and how many have no checks."""
    from rag.index.vector_checks import differing

    differ, verified, unchecked, offset = [], 0, 0, 0
    while True:
        page = collection.get(limit=PAGE, offset=offset, include=["embeddings", "metadatas"])
        positions, without = differing(page["embeddings"], page["metadatas"])
        differ += [page["ids"][i] for i in positions]
        verified, unchecked = verified + len(page["ids"]) - without, unchecked + without
        if len(page["ids"]) < PAGE:
            return differ, verified, unchecked
        offset += PAGE


def lexical_finding(settings: Settings) -> Finding:
    """The BM25 index and catalog load, and hold exactly the store's chunks and papers."""
    from rag.index import open_store
    from rag.index.bm25 import BM25Index, fingerprint

    try:
        lexical = BM25Index(settings.bm25_dir)
        store = open_store(settings)
        indexed = store.indexed_papers()
    except StoreError as error:
        kind = "storage" if isinstance(error, StorageError) else "damage"
        return Finding(part="BM25 index and catalog", ok=False, detail=str(error), kind=kind)
    hashes = {pid: entry.content_hash for pid, entry in indexed.items()}
    chunk_ids = {cid for entry in indexed.values() for cid in entry.chunk_ids}
    problems = []
    if lexical.fingerprint != fingerprint(hashes):
        problems.append("built from another version of the store")
    if set(lexical.chunk_ids) != chunk_ids:
        problems.append(f"{len(lexical.chunk_ids)} chunks, the store has {len(chunk_ids)}")
    if {p.paper_id for p in lexical.papers} != set(indexed):
        problems.append(f"{len(lexical.papers)} papers, the store has {len(indexed)}")
    detail = "; ".join(problems) or f"{len(indexed)} papers, {len(chunk_ids)} chunks, as stored"
    return Finding(part="BM25 index and catalog", ok=not problems, detail=detail)


def diagnose(settings: Settings) -> list[Finding]:
    """Every part, in order, after a rebuild that was cut short; a part whose foundation is
    damaged is not opened."""
    from rag.index.rebuild import interrupted_finding

    findings = parts(settings)
    interrupted = None if settings.chroma_host else interrupted_finding(settings)
    return [interrupted, *findings] if interrupted else findings


def parts(settings: Settings) -> list[Finding]:
    """Every part of the index, in order; a part whose foundation is damaged is not opened."""
    if settings.chroma_host:
        from rag.index import open_store

        count = open_store(settings).count()  # a server checks its own files
        findings = [Finding(part="Chroma server", ok=True, detail=f"{count} chunks")]
        return [*findings, lexical_finding(settings)]
    if not (settings.chroma_dir / "chroma.sqlite3").is_file():
        return [Finding(part="store", ok=False, detail=f"no index in {settings.data_dir}")]
    if refused_at := unwritable(settings):  # Chroma cannot open it: check what can be read
        detail = f"{refused(*refused_at)} The vector and BM25 indexes are checked after that."
        access = Finding(part="permissions", ok=False, detail=detail, kind="storage")
        return [access, database_finding(settings), segments_finding(settings)]
    findings = [database_finding(settings)]
    for check in (segments_finding, vector_finding, lexical_finding):
        if not findings[-1].ok:
            break
        findings.append(check(settings))
    return findings


def repair(settings: Settings, findings: list[Finding], say=print) -> None:
    """Rebuild what is damaged: the BM25 index from the store; a damaged store from the corpus
    files its papers came from (see rebuild.py: the damaged store is kept aside, and a rebuild
    cut short is resumed)."""
    from rag.index import refresh_lexical_index
    from rag.index.rebuild import rebuild_store

    if refusals := [finding for finding in findings if finding.kind == "storage"]:
        raise StorageError(  # a store is moved aside only when it is shown to be damaged
            f"Nothing was repaired or moved: the {refusals[0].part} check found no damage but "
            f"this: {refusals[0].detail}"
        )
    damaged = {finding.part for finding in findings if not finding.ok}
    if damaged & {"rebuild", "store", "store database", "vector index files", "vector index"}:
        rebuild_store(settings, say)
    elif damaged:
        from rag.index import open_store

        shutil.rmtree(settings.bm25_dir, ignore_errors=True)
        refresh_lexical_index(settings, open_store(settings))
        say("Rebuilt the BM25 index and catalog from the store.")


if __name__ == "__main__":
    print(json.dumps(probe(Path(sys.argv[1]), sys.argv[2])))
