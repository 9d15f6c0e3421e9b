"""The types that cross module boundaries."""

import hashlib
import re
import unicodedata
from typing import Literal

from pydantic import BaseModel, Field, PrivateAttr

from rag.links import SafeUrl


def normalize_text(text: str) -> str:
    """Case-folded, whitespace-collapsed, NFKC text: the basis for ids and matching."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().casefold()


def title_key(title: str) -> str:
    """Titles compared ignoring case, whitespace and punctuation."""
    return re.sub(r"[\W_]+", " ", normalize_text(title)).strip()


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
    year: int | None = None
    url: SafeUrl = None
    keywords: list[str] = Field(default_factory=list)
    abstract: str
    source_file: str
    _line: int | None = PrivateAttr(None)  # where the record was read, for messages


def chunk_id_for(paper_id: str, n: int) -> str:
    """The id of a paper's nth chunk: `<paper_id>#<n>` (chunk 0 carries the whole abstract)."""
    return f"{paper_id}#{n}"


def paper_of(chunk_id: str) -> str:
    """The id of the paper a chunk id belongs to."""
    return chunk_id.rsplit("#", 1)[0]


class Chunk(BaseModel):
    """A piece of one paper's abstract, sized to the embedder window; `text` is what is embedded."""

    chunk_id: str
    paper_id: str
    index: int
    text: str
    body_start: int = 0  # where the abstract text begins, after the title/area prefix

    @property
    def body(self) -> str:
        """The chunk's piece of the abstract, without the title/area prefix."""
        return self.text[self.body_start :]


class Source(BaseModel):
    """A retrieved paper: its best-matching passage, its rank score and its relevance."""

    paper: Paper
    passage: str
    score: float = Field(description="The ranking score of the mode used (RRF for hybrid).")
    relevance: float = Field(
        description="Cosine similarity of the question and the paper's best chunk (0–1); "
        "compared with min_relevance to decide that the corpus does not answer; 1 when named."
    )
    named: bool = Field(
        False, description="The question names this paper (an author, its method, its label)."
    )

    def summary(self) -> dict:
        """A flat JSON-ready view."""
        paper = self.paper.model_dump(exclude={"abstract", "source_file", "title_source"})
        return {
            **paper,
            "score": round(self.score, 6),
            "relevance": round(self.relevance, 4),
            "passage": self.passage,
        }


class Message(BaseModel):
    """One chat turn."""

    role: Literal["system", "user", "assistant"]
    content: str


class Citation(BaseModel):
    """A numbered reference in an answer, resolved to a retrieved paper."""

    number: int
    paper_id: str
    title: str
    authors: list[str] = Field(default_factory=list)
    venue: str | None = None
    url: SafeUrl = None
    evidence: str | None = Field(
        None, description="The abstract sentence that best supports the answer's claim."
    )


class AnswerSentence(BaseModel):
    """One sentence of the answer with its citation numbers and support verdict."""

    text: str
    citations: list[int] = Field(default_factory=list)
    support: float | None = Field(None, description="Best similarity to a cited abstract sentence.")
    supported: bool | None = Field(None, description="None when the sentence cites nothing.")
    parts: list[tuple[str, list[int]]] = Field(
        default_factory=list,
        exclude=True,
        description="Its clauses with the citations that close each, when it cites papers in "
        "different places ('A uses X [1], while B uses Y [2]'); empty: all of it cites all.",
    )


class Answer(BaseModel):
    """A checked answer: only retrieved papers are cited, each claim's support is scored."""

    question: str
    standalone_question: str | None = None
    text: str
    citations: list[Citation] = Field(default_factory=list)
    sentences: list[AnswerSentence] = Field(default_factory=list)
    abstained: bool = False
    suggestions: list[Source] = Field(default_factory=list, description="Closest papers.")
    sources: list[Source] = Field(default_factory=list, description="What the model was shown.")
    backend: str
    layout: Literal["prose", "list"] = Field("prose", description="list: one line per paper.")
    notices: list[str] = Field(default_factory=list, description="Fallbacks and failures.")
    reason: str | None = Field(
        None,
        description="Why it declined: a code of rag.answer.verdict.Reason (not_relevant, ...).",
    )
    reasons: list[str] = Field(
        default_factory=list,
        description="The codes of every check that declined, dropped a paper, repaired or noted.",
    )
    fallback_from: str | None = Field(
        None, description="The backend that failed, or whose draft was withheld, if any."
    )
    dropped_citations: int = 0
    latency_s: float = 0.0
    ttft_s: float | None = None

    @property
    def unsupported_sentences(self) -> list[str]:
        return [s.text for s in self.sentences if s.supported is False]

    def transcript(self) -> str:
        """The answer as a chat turn: its text, then its references (by title, so a follow-up's
        "those" can be resolved against them)."""
        return self.text + (f"\n{self.references()}" if self.citations else "")

    def references(self) -> str:
        """The references block: one line per citation, by real title."""
        lines = []
        for c in self.citations:
            authors = ", ".join(c.authors[:3]) + (" et al." if len(c.authors) > 3 else "")
            details = " — ".join(part for part in (authors, c.venue, c.url) if part)
            lines.append(f"[{c.number}] {c.title}" + (f". {details}" if details else ""))
        return "\n".join(lines)

    def summary(self) -> dict:
        """The JSON view used by `rag ask --json` and the API."""
        return {
            "answer": self.text,
            "abstained": self.abstained,
            "backend": self.backend,
            "citations": [c.model_dump() for c in self.citations],
            "unsupported_sentences": self.unsupported_sentences,
            "suggestions": [s.paper.title for s in self.suggestions],
            "notices": self.notices,
            "reason": self.reason,
            "reasons": self.reasons,
            "dropped_citations": self.dropped_citations,
            "latency_s": round(self.latency_s, 3),
            "ttft_s": None if self.ttft_s is None else round(self.ttft_s, 3),
            "standalone_question": self.standalone_question,
        }


class Problem(BaseModel):
    """A record (or file) that could not be used, and why."""

    file: str
    line: int | None = None
    message: str
    warning: bool = False  # something was ignored, nothing was rejected

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"
