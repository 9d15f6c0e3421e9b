"""The types that cross module boundaries."""

import hashlib
import re
import unicodedata
from typing import Literal

from pydantic import BaseModel, Field


def normalize_text(text: str) -> str:
    """Case-folded, whitespace-collapsed, NFKC text: the basis for ids and matching."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().casefold()


def paper_id_for(abstract: str) -> str:
    """A stable id from the abstract's normalized text, so re-ingesting is idempotent."""
    return hashlib.sha256(normalize_text(abstract).encode()).hexdigest()[:16]


class Paper(BaseModel):
    """One paper of the corpus."""

    paper_id: str
    title: str
    title_source: Literal["metadata", "derived"]
    authors: list[str] = Field(default_factory=list)
    authors_truncated: bool = False
    area: str | None = None
    subarea: str | None = None
    venue: str | None = None
    url: str | None = None
    abstract: str
    source_file: str


class Chunk(BaseModel):
    """A piece of one paper's abstract, sized to the embedder window; `text` is what is embedded."""

    chunk_id: str
    paper_id: str
    index: int
    text: str
    body_start: int = 0  # where the abstract text begins, after the title/area prefix


class Source(BaseModel):
    """A retrieved paper: its best-matching passage, its rank score and its relevance."""

    paper: Paper
    passage: str
    score: float = Field(description="The ranking score of the mode used (RRF for hybrid).")
    relevance: float = Field(
        description="Cosine similarity of the question and the paper's best chunk (0–1); "
        "compared with min_relevance to decide that the corpus does not answer."
    )

    def summary(self) -> dict:
        """A flat JSON-ready view."""
        paper = self.paper.model_dump(exclude={"abstract", "source_file", "title_source"})
        return {**paper, "score": round(self.score, 6), "relevance": round(self.relevance, 4),
                "passage": self.passage}


class Problem(BaseModel):
    """A record (or file) that could not be used, and why."""

    file: str
    line: int | None = None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"
