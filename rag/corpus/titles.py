"""Merge a titles sidecar (real titles, authors, url, venue) into papers by matching abstracts."""

from pathlib import Path

from rag.corpus.records import SURROGATE, RecordError, split_authors
from rag.corpus.tabular import json_lines, parse_json
from rag.errors import CorpusError
from rag.models import Paper, Problem, normalize_text


def load_titles(path: Path) -> tuple[dict[str, dict], list[Problem]]:
    """Sidecar entries keyed by the normalized start of their abstract."""
    if not path.is_file():
        raise CorpusError(
            f"Titles file {path} not found; pass --titles FILE or unset RAG_TITLES_PATH."
        )
    entries, problems = {}, []
    text = path.read_bytes().decode("utf-8-sig", errors="surrogateescape")
    for number, line in enumerate(json_lines(text), start=1):
        if not line.strip():
            continue
        try:
            entry = parse_json(line)
            key = normalize_text(entry["abstract_start"])
            ok = bool(key) and usable(entry)  # an empty start would match every paper
        except (RecordError, KeyError, TypeError, AttributeError):
            ok = False
        if not ok:
            problems.append(
                Problem(
                    file=str(path),
                    line=number,
                    message="expected JSON with 'abstract_start' and 'title'",
                )
            )
            continue
        entries[key] = entry
    return entries, problems


def usable(entry: dict) -> bool:
    """A title, and text (or an author list) wherever there is a field we merge."""
    texts = [entry["title"], *(entry.get(field) or "" for field in ("url", "venue"))]
    authors = entry.get("authors") or []
    texts += authors if isinstance(authors, list) else [authors]
    return entry["title"].strip() != "" and all(
        isinstance(text, str) and not SURROGATE.search(text) for text in texts
    )


def apply_titles(papers: list[Paper], entries: dict[str, dict]) -> list[Paper]:
    """Papers with sidecar metadata merged in where an entry's abstract start matches."""
    prefix_lengths = sorted({len(key) for key in entries})
    merged = []
    for paper in papers:
        abstract = normalize_text(paper.abstract)
        entry = next(
            (entries[abstract[:n]] for n in prefix_lengths if abstract[:n] in entries), None
        )
        merged.append(_merge(paper, entry) if entry else paper)
    return merged


def _merge(paper: Paper, entry: dict) -> Paper:
    authors, truncated = split_authors(entry.get("authors"))
    update = {"title": entry["title"].strip(), "title_source": "metadata"}
    if authors and (
        not paper.authors or (paper.authors_truncated and len(authors) > len(paper.authors))
    ):
        update |= {"authors": authors, "authors_truncated": truncated}
    for field in ("url", "venue"):
        if entry.get(field) and not getattr(paper, field):
            update[field] = entry[field]
    return paper.model_copy(update=update)
