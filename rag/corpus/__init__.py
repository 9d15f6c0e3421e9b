"""Turn corpus files into Paper objects: seed layouts, JSONL, CSV, BibTeX and RIS exports,
plus a titles sidecar."""

from pathlib import Path

from pydantic import BaseModel

from rag.corpus.bibliography import bibtex_records, ris_records
from rag.corpus.records import RecordError, build_paper
from rag.corpus.seeds import seed_records
from rag.corpus.tabular import csv_records, jsonl_records
from rag.corpus.titles import apply_titles, load_titles
from rag.errors import CorpusError
from rag.links import dropped_link
from rag.models import Paper, Problem

SUFFIXES = (".txt", ".jsonl", ".csv", ".bib", ".ris")
LAYOUTS = {
    ".txt": "the seed layout",
    ".jsonl": "JSONL",
    ".csv": "CSV",
    ".bib": "BibTeX",
    ".ris": "RIS",
}
MAX_PROBLEMS_PER_FILE = 20  # then one summary line: a binary file must not print 400,000 lines


class Corpus(BaseModel):
    """The papers read from the corpus files, and every record that was rejected."""

    papers: list[Paper]
    problems: list[Problem]


def corpus_files(paths: list[Path], skip: Path | None = None) -> tuple[list[Path], list[Problem]]:
    """Expand folders into their corpus files (sorted); a missing path is an error, and an
    entry of a folder that cannot be read as a file (a subfolder named like one, a broken or
    looping link) is skipped with a problem."""
    files, problems = [], []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() in SUFFIXES)
            for entry in found:
                if skip and entry.resolve() == skip.resolve():
                    continue
                if entry.is_file():
                    files.append(entry)
                else:
                    kind = "a folder" if entry.is_dir() else "a broken or looping link"
                    problems.append(Problem(file=str(entry), message=f"skipped: {kind}"))
        elif path.is_file():
            files.append(path)
        else:
            raise CorpusError(
                f"Corpus path {path} does not exist; check the path or RAG_CORPUS_PATHS."
            )
    return files, problems


def read_file(path: Path, max_abstract_chars: int) -> tuple[list[Paper], list[Problem]]:
    """Papers and problems from one file; the layout is chosen by the file's suffix."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        return [], [
            Problem(
                file=str(path),
                message=(
                    f"unsupported file type '{suffix}'; use .txt (seed layout), .jsonl, .csv, "
                    ".bib (BibTeX) or .ris (RIS)"
                ),
            )
        ]
    # utf-8-sig: Excel and Notepad start UTF-8 files with a BOM, which would hide the header
    try:
        text = path.read_bytes().decode("utf-8-sig", errors="surrogateescape")
    except OSError as error:
        return [], [Problem(file=str(path), message=f"cannot be read: {error.strerror}")]
    if not text.strip():
        return [], [Problem(file=str(path), message="file is empty")]
    rejected: list[tuple[int | None, str]] = []
    notes: list[str] = []
    try:
        if suffix == ".txt":
            records = seed_records(text)
        elif suffix == ".jsonl":
            records, rejected = jsonl_records(text)
        elif suffix == ".bib":
            records, rejected = bibtex_records(text)
        elif suffix == ".ris":
            records, rejected = ris_records(text)
        else:
            records, notes = csv_records(text)
    except RecordError as error:
        return [], [Problem(file=str(path), message=str(error))]
    papers, dropped = [], []
    for line, record in records:
        try:
            papers.append(build_paper(record, str(path), max_abstract_chars))
            papers[-1]._line = line
        except RecordError as error:
            rejected.append((line, str(error)))
            continue
        if note := dropped_link(record.get("url")):
            dropped.append(Problem(file=str(path), line=line, message=note, warning=True))
    if not records and not rejected:
        rejected.append((None, "no abstracts found"))
    rejected.sort(key=lambda item: item[0] or 0)
    problems = [Problem(file=str(path), line=line, message=msg) for line, msg in rejected]
    if len(problems) > MAX_PROBLEMS_PER_FILE:
        more = len(problems) - MAX_PROBLEMS_PER_FILE
        verdict = f"; the file does not look like {LAYOUTS[suffix]}" if not papers else ""
        problems = problems[:MAX_PROBLEMS_PER_FILE] + [
            Problem(file=str(path), message=f"… and {more:,} more rejected records{verdict}")
        ]
    problems += [Problem(file=str(path), message=note, warning=True) for note in notes]
    return papers, problems + dropped[:MAX_PROBLEMS_PER_FILE]


def load_corpus(paths: list[Path], titles_path: Path | None, max_abstract_chars: int) -> Corpus:
    """Read every corpus file, merge the titles sidecar, and drop duplicate abstracts."""
    files, problems = corpus_files(paths, skip=titles_path)
    papers = []
    for path in files:
        found, rejected = read_file(path, max_abstract_chars)
        papers += found
        problems += rejected
    if titles_path is not None:
        entries, title_problems = load_titles(titles_path)
        papers, ambiguous = apply_titles(papers, entries, titles_path)
        problems += title_problems + ambiguous
    unique: dict[str, Paper] = {}
    for paper in papers:
        if paper.paper_id in unique:
            first = unique[paper.paper_id]
            where = f"{first.source_file}:{first._line}" if first._line else first.source_file
            problems.append(
                Problem(
                    file=paper.source_file,
                    line=paper._line,
                    message=f"duplicate abstract of '{first.title}' ({where}) skipped",
                )
            )
        else:
            unique[paper.paper_id] = paper
    return Corpus(papers=list(unique.values()), problems=problems)
