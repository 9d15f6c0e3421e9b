"""Ingest: upsert papers into the store keyed by chunk ids; unchanged papers cost nothing.
With an embeddings server, embedding runs a few writes ahead of the Chroma writes."""

import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

from pydantic import BaseModel, Field

from rag.index.chunking import Chunker
from rag.index.progress import progress_class
from rag.index.store import ChromaStore, IndexedPaper, chunk_metadata, content_hash
from rag.models import Paper, normalize_text
from rag.sentences import evidence_sentences

CHUNKS_PER_WRITE = 128  # ~60 papers of ~2 chunks: progress shows every few seconds
PAPERS_PER_WRITE = 64  # papers whose sentences are embedded and written at once (catch-up pass)
EMBED_AHEAD = 2  # groups embedded ahead of the one being written (bounds memory)


class IngestReport(BaseModel):
    """Counts of what ingest did, plus the records it rejected."""

    papers: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    errors: int = 0
    problems: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)  # ignored parts of accepted records
    seconds: float = 0.0  # the whole run: reading, planning, embedding, writing, BM25
    papers_per_s: float = 0.0  # papers added or updated per second of embedding and writing


class Plan(BaseModel):
    """Which papers to write, and which old chunk ids become obsolete."""

    write: list[Paper] = Field(default_factory=list)
    obsolete: dict[str, set[str]] = Field(default_factory=dict)  # new paper_id -> old chunk ids
    removed: list[str] = Field(default_factory=list)  # chunk ids of pruned papers
    report: IngestReport


def plan_ingest(
    papers: list[Paper], indexed: dict[str, IndexedPaper], signature: str, prune: bool
) -> Plan:
    """Compare the corpus with the store. A paper whose abstract changed but whose title and
    file did not is an update of the old paper, not a new one."""
    incoming = {paper.paper_id for paper in papers}
    stale = {pid: entry for pid, entry in indexed.items() if pid not in incoming}
    stale_by_title = {(e.title_key, e.source_file): pid for pid, e in stale.items()}
    plan = Plan(report=IngestReport(papers=len(papers)))
    for paper in papers:
        entry = indexed.get(paper.paper_id)
        if entry is None:
            old_id = stale_by_title.pop((normalize_text(paper.title), paper.source_file), None)
            entry = stale.pop(old_id) if old_id else None
        if entry is None:
            plan.report.added += 1
        elif (
            entry.content_hash == content_hash(paper, signature)
            and len(entry.chunk_ids) == entry.expected_chunks
        ):
            plan.report.unchanged += 1
            continue
        else:
            plan.report.updated += 1
            plan.obsolete[paper.paper_id] = entry.chunk_ids
        plan.write.append(paper)
    # An older version of an incoming paper (same title, same file) that is still stored: a run
    # was cut between writing the new version and deleting the old one. It goes, prune or not.
    current = {(normalize_text(paper.title), paper.source_file) for paper in papers}
    gone = (
        stale
        if prune
        else {
            pid: entry
            for pid, entry in stale.items()
            if (entry.title_key, entry.source_file) in current
        }
    )
    plan.removed = sorted(chunk_id for entry in gone.values() for chunk_id in entry.chunk_ids)
    plan.report.removed = len(gone)
    return plan


def batches(papers: list[Paper], chunker: Chunker) -> Iterator[list[tuple[Paper, list]]]:
    """Groups of (paper, chunks), never splitting one paper's chunks across writes."""
    batch, size = [], 0
    for paper in papers:
        chunks = chunker.chunks(paper)
        batch.append((paper, chunks))
        size += len(chunks)
        if size >= CHUNKS_PER_WRITE:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def ingest(
    papers: list[Paper],
    store: ChromaStore,
    chunker: Chunker,
    prune: bool = False,
    show_progress: bool = True,
    progress_style: str = "auto",
) -> IngestReport:
    """Write new and changed papers, drop obsolete chunks, and (with prune) vanished papers.
    New chunks are written before old ones are deleted, so an interrupted ingest never loses a
    paper and the next run converges. `progress_style`: see rag.index.progress."""
    from rag.index.embedder_check import check_embedder

    plan = plan_ingest(papers, store.indexed_papers(), chunker.signature, prune)
    complete = store.sentences_complete()
    if plan.write or not complete:  # the embedder is used: it must be the index's
        check_embedder(store, chunker.embedder, record=True)
    if complete and plan.write:  # until this run ends, a kill may leave papers without them
        store.mark_sentences_complete(False)
    started = time.monotonic()
    reporter = progress_class(progress_style if show_progress and plan.write else "none")
    with reporter("Indexing papers", len(plan.write), "paper") as progress:
        for batch, vectors, sentences, sentence_vectors in embed_ahead(
            batches(plan.write, chunker), store, chunker
        ):
            written = _write(batch, store, chunker, vectors)
            if sentences:
                store.write_sentences(sentences, sentence_vectors)
            old = set().union(*(plan.obsolete.get(paper.paper_id, set()) for paper, _ in batch))
            store.delete(sorted(old - written))
            progress.advance(len(batch))
    if plan.write:
        plan.report.papers_per_s = round(len(plan.write) / (time.monotonic() - started), 2)
    store.delete(plan.removed)
    if not complete:  # papers indexed before sentence vectors, or by a run that was cut short
        writing = {paper.paper_id for paper in plan.write}
        _write_sentences([p for p in papers if p.paper_id not in writing], store, chunker)
    if not complete or plan.write:
        store.mark_sentences_complete(True)
    return plan.report


def embed_ahead(groups, store: ChromaStore, chunker: Chunker, depth: int | None = None):
    """Each group of (paper, chunks) with the vectors of its chunks and of those of its
    evidence sentences that are new: (group, chunk vectors, sentences, sentence vectors).

    One worker thread embeds up to `depth` groups ahead while the caller writes, in order (by
    default EMBED_AHEAD for an embeddings server, 0 — one at a time — for a model running here,
    see Embedder.computes_here); the chunks and sentences of a group go to the embedder in one
    call (it sorts them by length)."""
    if depth is None:
        depth = 0 if getattr(chunker.embedder, "computes_here", True) else EMBED_AHEAD
    scheduled: set[str] = set()  # sentences already given to the embedder in this run
    pending: deque = deque()
    # depth 0 embeds in this thread, so Ctrl-C stops a long local embedding at once
    pool = ThreadPoolExecutor(1, thread_name_prefix="embed") if depth else None
    try:
        for group in groups:
            texts = [chunk.text for _, chunks in group for chunk in chunks]
            wanted = {s for paper, _ in group for s in evidence_sentences(paper)} - scheduled
            sentences = sorted(wanted - store.known_sentences(sorted(wanted)))
            scheduled |= wanted
            job = _start(pool, chunker.embedder.embed, texts + sentences)
            pending.append((group, len(texts), sentences, job))
            if len(pending) > depth:
                yield _embedded(*pending.popleft())
        while pending:
            yield _embedded(*pending.popleft())
    finally:  # an error or an interrupt: what was not started never starts
        if pool:
            pool.shutdown(wait=True, cancel_futures=True)


def _start(pool: ThreadPoolExecutor | None, embed, texts: list[str]) -> Future:
    """The embedding of `texts`, running in the pool, or done here and now without one."""
    if pool:
        return pool.submit(embed, texts)
    done: Future = Future()
    done.set_result(embed(texts))
    return done


def _embedded(group, n_chunks: int, sentences: list[str], job):
    vectors = job.result()
    return group, vectors[:n_chunks], sentences, vectors[n_chunks:]


def _write(
    batch: list[tuple[Paper, list]], store: ChromaStore, chunker: Chunker, vectors: list
) -> set[str]:
    ids, texts, metadatas = [], [], []
    for paper, chunks in batch:
        paper_hash = content_hash(paper, chunker.signature)
        for chunk in chunks:
            ids.append(chunk.chunk_id)
            texts.append(chunk.text)
            metadatas.append(chunk_metadata(paper, chunk, len(chunks), paper_hash))
    store.write(ids, texts, vectors, metadatas)
    return set(ids)


def _write_sentences(papers: list[Paper], store: ChromaStore, chunker: Chunker) -> None:
    """Embed the papers' evidence sentences that the store does not have yet (the store's
    "complete" mark, set only when a run ends, says that every indexed paper has them)."""
    for start in range(0, len(papers), PAPERS_PER_WRITE):
        wanted = {
            s for p in papers[start : start + PAPERS_PER_WRITE] for s in evidence_sentences(p)
        }
        texts = sorted(wanted - store.known_sentences(sorted(wanted)))
        if texts:
            store.write_sentences(texts, chunker.embedder.embed(texts))
