"""Hybrid retrieval: dense (Chroma) and BM25 over the same chunks, fused by reciprocal rank,
grouped into papers, filtered before ranking, each result carrying a relevance score."""

from typing import Literal

import numpy as np

from rag.config import Settings
from rag.models import Source, chunk_id_for, paper_of
from rag.retrieve.catalog import Catalog
from rag.retrieve.metadata import Filters, MetadataIndex

Mode = Literal["hybrid", "dense", "bm25"]
# The answerability score adds lexical evidence to the best relevance: + COVERAGE_WEIGHT times the
# share of the question's content words found in the best-covering retrieved paper, -
# UNKNOWN_WEIGHT times the share found nowhere in the corpus ("Byzantine", "MRI"). Chosen with
# RAG_MIN_RELEVANCE on the dev set (eval/questions.jsonl): at the same 97.8% of answerable
# questions kept it declines 44% of unanswerable ones instead of 32% (held-out: 38% vs 25%).
COVERAGE_WEIGHT = UNKNOWN_WEIGHT = 0.2
MODES: tuple[str, ...] = ("hybrid", "dense", "bm25")


def reciprocal_rank_fusion(rankings: list[list[str]], k: int) -> dict[str, float]:
    """RRF: each list adds 1 / (k + rank) to the items it ranks; highest total first."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return dict(sorted(scores.items(), key=lambda item: -item[1]))


def best_per_paper(hits: list[tuple[str, float]]) -> dict[str, tuple[str, float]]:
    """Chunk hits (chunk_id, score), best first, grouped into paper -> (best chunk, score)."""
    papers: dict[str, tuple[str, float]] = {}
    for hit, score in hits:
        papers.setdefault(paper_of(hit), (hit, score))
    return papers


class Retriever:
    """Paper-level search over the index built by `rag ingest`."""

    def __init__(self, settings: Settings, embedder=None):
        from rag.index import open_store
        from rag.index.bm25 import BM25Index
        from rag.index.embedder import embedder_from_settings

        self.settings = settings
        self.store = open_store(settings)
        self.lexical = BM25Index(settings.bm25_dir)
        self.catalog = Catalog(self.lexical.papers)
        self.embedder = embedder or embedder_from_settings(settings)
        self.chunk_papers = np.array([paper_of(c) for c in self.lexical.chunk_ids])
        self.metadata = MetadataIndex(self.lexical.papers, self.lexical.names)
        self.embedder_checked = False

    def search(
        self, query: str, k: int = 5, mode: Mode = "hybrid", filters: Filters | None = None
    ) -> list[Source]:
        """The k best papers for the query, best first."""
        if mode not in MODES:
            from rag.errors import ConfigError

            raise ConfigError(f"Unknown retrieval mode '{mode}'; choose one of {', '.join(MODES)}.")
        allowed = None
        if filters and filters.active():
            allowed = [p.paper_id for p in self.catalog.papers() if filters.allows(p)]
            if not allowed:
                return []
        depth = max(50, 10 * k)
        self._check_embedder()
        vector = self.embedder.embed([query])[0]
        dense = self._dense(vector, depth, allowed) if mode != "bm25" else {}
        lexical = self._bm25(query, depth, allowed) if mode != "dense" else {}
        mentioned = self.metadata.mentioned(query)
        if allowed is not None:
            mentioned = [pid for pid in mentioned if pid in set(allowed)]
        if mode == "hybrid":
            scores = reciprocal_rank_fusion(
                [mentioned, list(dense), list(lexical)], self.settings.rrf_k
            )
        else:
            scores = {pid: score for pid, (_, score) in (dense or lexical).items()}
        top = list(scores)[:k]
        return self._sources(top, scores, dense, lexical, vector, set(mentioned))

    def answerability(self, query: str, sources: list[Source]) -> float:
        """How well the retrieved sources answer the query: 1.0 when it names one of them
        (author, method, label), else their best relevance adjusted by the words they share
        with it and by its words the corpus never uses. The answer layer declines below
        `min_relevance`."""
        from rag.sentences import metadata_sentence, stems

        best = max((source.relevance for source in sources), default=0.0)
        words = stems(query)
        if best >= 1.0 or not words or not sources:
            return best
        coverage = max(
            len(words & stems(f"{metadata_sentence(s.paper)} {s.paper.abstract}")) / len(words)
            for s in sources
        )
        unknown = len(words - self.lexical.vocabulary) / len(words)
        return best + COVERAGE_WEIGHT * coverage - UNKNOWN_WEIGHT * unknown

    def source_for(self, paper_id: str) -> Source:
        """One paper as a source carrying its whole abstract (for summaries)."""
        abstract = self.store.abstracts([paper_id])[paper_id]
        paper = self.catalog.get(paper_id).model_copy(update={"abstract": abstract})
        return Source(paper=paper, passage=paper.abstract, score=1.0, relevance=1.0)

    def _check_embedder(self) -> None:
        """Once, before the first query vector: the embedder gives the index's vectors."""
        if not self.embedder_checked:
            from rag.index.embedder_check import check_embedder

            check_embedder(self.store, self.embedder)
            self.embedder_checked = True

    def _dense(self, vector, depth: int, allowed: list[str] | None) -> dict:
        hits = self.store.query(vector, depth, allowed)
        return best_per_paper(  # papers outside the catalog: an ingest is running or was cut
            [(hit, similarity) for hit, similarity in hits if paper_of(hit) in self.catalog]
        )

    def _bm25(self, query: str, depth: int, allowed: list[str] | None) -> dict:
        mask = None if allowed is None else np.isin(self.chunk_papers, allowed).astype(float)
        return best_per_paper(self.lexical.search(query, depth, mask))

    def _sources(
        self, top: list[str], scores: dict, dense: dict, lexical: dict, vector, mentioned: set[str]
    ) -> list[Source]:
        """Sources for the top papers. A paper whose metadata the question names is fully
        relevant; otherwise relevance is the cosine of the question and its best chunk."""
        best_chunk = {
            pid: (dense.get(pid) or lexical.get(pid) or (chunk_id_for(pid, 0),))[0] for pid in top
        }
        chunks, abstracts = self.store.chunks(list(best_chunk.values())), self.store.abstracts(top)
        relevance = {pid: similarity for pid, (_, similarity) in dense.items()}
        relevance |= dict.fromkeys(mentioned, 1.0)
        missing = [pid for pid in top if pid not in relevance]
        for pid, vectors in self.store.embeddings(missing).items() if missing else []:
            relevance[pid] = float(np.max(np.asarray(vectors) @ np.asarray(vector)))
        sources = []
        for pid in top:
            if best_chunk[pid] not in chunks or pid not in abstracts:
                continue  # replaced by an ingest that is running now
            paper = self.catalog.get(pid).model_copy(update={"abstract": abstracts[pid]})
            sources.append(
                Source(
                    paper=paper,
                    passage=chunks[best_chunk[pid]].body,
                    score=scores[pid],
                    relevance=max(0.0, relevance.get(pid, 0.0)),
                )
            )
        return sources
