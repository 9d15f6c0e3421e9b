"""Retrieval: dense + BM25 + metadata mentions, fused by reciprocal rank, at paper level."""

from rag.retrieve.metadata import Filters
from rag.retrieve.retriever import MODES, Mode, Retriever, best_per_paper, reciprocal_rank_fusion

__all__ = ["MODES", "Filters", "Mode", "Retriever", "best_per_paper", "reciprocal_rank_fusion"]
