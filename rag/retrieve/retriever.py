"""Hybrid retrieval: dense (Chroma) and BM25 over the same chunks, fused by reciprocal rank,
grouped into papers, filtered before ranking, each result carrying a relevance score."""

import re
import threading
from typing import Literal

import numpy as np

from rag.config import Settings
from rag.models import Source, chunk_id_for, paper_of
from rag.retrieve.catalog import Catalog
from rag.retrieve.metadata import Filters, MetadataIndex
from rag.sentences import stems

Mode = Literal["hybrid", "dense", "bm25"]
MODES: tuple[str, ...] = ("hybrid", "dense", "bm25")


# "the model folding paper": a description (no "the" inside, up to 6 words) before a singular
# "paper". The word limits are set by reading the dev set's descriptions, which run 1-5 words
# before "paper"; after "the paper on", 8 words cut z009's description before its key word
# ("predicting how a network's output distribution shifts as its hyperparameters ..."), 12 do not.
DESCRIBED = re.compile(
    r"\bthe\s+((?:(?!the\b)[\w^+-]+\s+){0,5}?(?!the\b)[\w^+-]+)\s+(?:paper|work|article|study)\b(?!s)"
    # "the single molecule localization one": two words or more ("the rl one" picks from a list)
    r"|\bthe\s+((?:(?!(?:the|and|or|that|this|which|vs|versus|to|of|for|with)\b)[\w^+-]+\s+){1,5}?"
    r"(?!(?:the|that|this)\b)[\w^+-]+)\s+one\b(?!s)"
    # "the paper on the complexity of ...", "the one about stealing what's on a screen": up to 12
    # words, to the next comma, "and" or "vs"
    r"|\bthe (?:paper|work|article|study|one) (?:on|about|that|which|where)\s+"
    r"((?:(?!and\b|vs\b|versus\b|or\b)[\w^+'’-]+\s*){1,12})",
    re.IGNORECASE,
)
# Words that point into the conversation, not at a paper's subject ("the first paper").
CONVERSATION_WORDS = stems(
    "first second third last other same above previous earlier former latter two both each one "
    "whole original"
)


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
        self.embedder = embedder or embedder_from_settings(settings)
        self._refreshing = threading.Lock()
        self.embedder_checked = False
        self._load(BM25Index(settings.bm25_dir))

    def _load(self, lexical) -> None:
        self.catalog = Catalog(lexical.papers, self.settings.retrieval.min_title_ratio)
        self.chunk_papers = np.array([paper_of(c) for c in lexical.chunk_ids])
        metadata = MetadataIndex(lexical.papers, lexical.names)
        metadata.abstract_of = lambda pid: self.store.abstracts([pid]).get(pid, "")
        metadata.is_word = lambda word: self.embedder.tokenize(word) == [word]
        if hasattr(self, "metadata"):  # in place: the answer checks hold on to it
            vars(self.metadata).update(vars(metadata))
        else:
            self.metadata = metadata
        self.lexical = lexical  # last: `refresh` compares with it

    def refresh(self) -> bool:
        """After an ingest (by this or another process): the new BM25 index, catalog and
        names, and the store read anew. Whether anything changed."""
        from rag.index.bm25 import BM25Index

        if not self.lexical.outdated():
            return False
        with self._refreshing:
            if not self.lexical.outdated():
                return False
            lexical = BM25Index(self.settings.bm25_dir)
            self.store.reopen()
            self._load(lexical)
        return True

    def search(
        self, query: str, k: int = 5, mode: Mode = "hybrid", filters: Filters | None = None
    ) -> list[Source]:
        """The k best papers for the query, best first."""
        if mode not in MODES:
            from rag.errors import ConfigError

            raise ConfigError(f"Unknown retrieval mode '{mode}'; choose one of {', '.join(MODES)}.")
        self.refresh()
        allowed = None
        if filters and filters.active():
            allowed = [p.paper_id for p in self.catalog.papers() if filters.allows(p)]
            if not allowed:
                return []
        tuning = self.settings.retrieval
        depth = max(tuning.min_depth, tuning.depth_per_k * k)
        self._check_embedder()
        vector = self.embedder.embed([query])[0]
        dense = self._dense(vector, depth, allowed) if mode != "bm25" else {}
        lexical = self._bm25(query, depth, allowed) if mode != "dense" else {}
        mentioned = self.mentioned(query)
        if allowed is not None:
            mentioned = [pid for pid in mentioned if pid in set(allowed)]
        if mode == "hybrid":
            scores = reciprocal_rank_fusion(
                [mentioned, list(dense), list(lexical)], self.settings.retrieval.rrf_k
            )
        else:
            scores = {pid: score for pid, (_, score) in (dense or lexical).items()}
        top = list(scores)[:k]
        return self._sources(top, scores, dense, lexical, vector, set(mentioned))

    def mentioned(self, query: str) -> list[str]:
        """Papers the query names (`MetadataIndex.mentioned`), then those it describes."""
        named = self.metadata.mentioned(query)
        return named + [pid for pid in self.described(query) if pid not in named]

    def described(self, query: str) -> list[str]:
        """Papers the query calls by a description rather than a name ("the model folding
        paper", "the brain-to-text work"): for each such phrase, the paper whose BM25 score for
        it is clearly above every other's (`described_margin`)."""
        found = []
        query = re.sub(
            r"\bw/o\b", "without", re.sub(r"\bw/(?!o\b)", "with ", query)
        )  # "w/ queries"
        for match in DESCRIBED.finditer(query):
            description = next(group for group in match.groups() if group)
            if not stems(description) - CONVERSATION_WORDS:
                continue  # "the first paper", "the same work": the conversation's
            hits = self._bm25(description, self.settings.retrieval.min_depth, None)
            scores = sorted((score for _, score in hits.values()), reverse=True) + [0.0]
            if hits and scores[0] >= self.settings.retrieval.described_margin * scores[1]:
                found.append(max(hits, key=lambda pid: hits[pid][1]))
        return found

    def answerability(self, query: str, sources: list[Source]) -> float:
        """How well the retrieved sources answer the query: 1.0 when it names one of them
        (author, method, label), else their best relevance adjusted by the words they share
        with it and by its words the corpus never uses. The answer layer declines below
        `min_relevance`."""
        from rag.sentences import metadata_sentence, stems

        best = max((source.relevance for source in sources), default=0.0)
        words = stems(query)
        if any(source.named for source in sources) or not words or not sources:
            return best
        coverage = max(
            len(words & stems(f"{metadata_sentence(s.paper)} {s.paper.abstract}")) / len(words)
            for s in sources
        )
        unknown = len(words - self.lexical.vocabulary) / len(words)
        tuning = self.settings.retrieval
        return best + tuning.coverage_weight * coverage - tuning.unknown_weight * unknown

    def source_for(self, paper_id: str) -> Source:
        """One paper as a source carrying its whole abstract (for summaries)."""
        abstract = self.store.abstracts([paper_id])[paper_id]
        paper = self.catalog.get(paper_id).model_copy(update={"abstract": abstract})
        return Source(paper=paper, passage=paper.abstract, score=1.0, relevance=1.0, named=True)

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
                    named=pid in mentioned,
                )
            )
        return sources
