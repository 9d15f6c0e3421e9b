"""Merge a titles sidecar (real titles, authors, url, venue) into papers by matching abstracts."""

from pathlib import Path

from rag.corpus.records import SURROGATE, RecordError, split_authors
from rag.corpus.tabular import json_lines, parse_json
from rag.errors import CorpusError
from rag.links import dropped_link, safe_url
from rag.models import Paper, Problem, normalize_text


MIN_START = 30  # characters of normalized abstract start; shorter ones match many abstracts


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
        if len(key) < MIN_START:
            problems.append(
                Problem(
                    file=str(path),
                    line=number,
                    message=f"'abstract_start' is {len(key)} characters; at least {MIN_START} "
                    "are needed to identify one abstract",
                )
            )
            continue
        if note := dropped_link(entry.get("url")):
            problems.append(Problem(file=str(path), line=number, message=note, warning=True))
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


def apply_titles(
    papers: list[Paper], entries: dict[str, dict], path: Path
) -> tuple[list[Paper], list[Problem]]:
    """Papers with sidecar metadata merged in where an entry's abstract start matches; an entry
    that matches several papers is applied to none of them (it would give them one title)."""
    prefix_lengths = sorted({len(key) for key in entries}, reverse=True)  # most specific first
    matches: dict[int, str] = {}
    for index, paper in enumerate(papers):
        abstract = normalize_text(paper.abstract)
        key = next((abstract[:n] for n in prefix_lengths if abstract[:n] in entries), None)
        if key is not None:
            matches[index] = key
    uses: dict[str, int] = {}
    for key in matches.values():
        uses[key] = uses.get(key, 0) + 1
    problems = [
        Problem(
            file=str(path),
            message=f"title '{entries[key]['title']}' matches {count} abstracts; not applied "
            "(make its 'abstract_start' longer)",
        )
        for key, count in uses.items()
        if count > 1
    ]
    merged = [
        _merge(paper, entries[matches[i]]) if i in matches and uses[matches[i]] == 1 else paper
        for i, paper in enumerate(papers)
    ]
    return merged, problems


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
    if "url" in update:  # model_copy does not validate
        update["url"] = safe_url(update["url"])
    return paper.model_copy(update=update)
