"""Retrieval: dense + BM25 + metadata mentions, fused by reciprocal rank, at paper level."""

from rag.retrieve.catalog import Catalog
from rag.retrieve.metadata import Filters
from rag.retrieve.retriever import MODES, Mode, Retriever, best_per_paper, reciprocal_rank_fusion

__all__ = [
    "MODES",
    "Catalog",
    "Filters",
    "Mode",
    "Retriever",
    "best_per_paper",
    "reciprocal_rank_fusion",
]
