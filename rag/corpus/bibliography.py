"""Reference-manager exports (Zotero, Mendeley, JabRef) as BibTeX or RIS."""

import logging
import re

import bibtexparser
import rispy
from bibtexparser import middlewares
from bibtexparser.middlewares.names import parse_single_name_into_parts
from bibtexparser.model import (
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    MiddlewareErrorBlock,
)

from rag.corpus.tabular import json_lines

Records = list[tuple[int, dict]]
Rejected = list[tuple[int | None, str]]

VERBATIM_FIELDS = ("url", "doi", "file")  # links and paths: `~`, `%` and `_` mean themselves
LATEX_ESCAPE = re.compile(r"\\([_%&#~$])|[{}]")
DOI_PREFIX = re.compile(r"^\s*(https?://(dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
BIBTEX_KEY = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s]+)\s*,")
RIS_TAG = re.compile(r"^([A-Z][A-Z0-9])  -")
# Blocks bibtexparser cannot use are reported as rejected records, not as log warnings.
logging.getLogger("bibtexparser").setLevel(logging.ERROR)


class DecodeLatex(middlewares.LatexDecodingMiddleware):
    """LaTeX to Unicode ({\\"u} → ü, {BERT} → BERT, -- → –), keeping $math$ as written, in
    text fields and in the merged author names (the base class skips lists); a bare `%` is a
    percent sign (as in BibTeX, not a LaTeX comment), and links stay verbatim."""

    def transform_entry(self, entry, library):
        verbatim = [entry.pop(key) for key in VERBATIM_FIELDS if key in entry]
        for field in entry.fields:
            if isinstance(field.value, list):
                field.value = [self._transform_python_value_string(n)[0] for n in field.value]
        decoded = super().transform_entry(entry, library)
        for field in verbatim:
            entry.set_field(field)
        return decoded

    def _transform_python_value_string(self, python_string: str) -> tuple[str, str]:
        return super()._transform_python_value_string(re.sub(r"(?<!\\)%", r"\\%", python_string))


class DisplayNames(middlewares.SplitNameParts):
    """Each author as 'First von Last, Jr'; a name that does not split cleanly ('XUCHEN,')
    is kept as best it can be, not a reason to lose the entry."""

    def _transform_field_value(self, names: list[str]) -> list[str]:
        return [display_name(name) for name in names]


def bibtex_stack() -> list:
    """After @string expansion and brace removal: lowercase field names, authors split at
    'and' and merged as 'First Last' while braces still protect '{Barnes and Noble}', then
    LaTeX decoded."""
    return [
        middlewares.NormalizeFieldKeys(),
        middlewares.SeparateCoAuthors(),
        DisplayNames(),
        DecodeLatex(),
    ]


def doi_url(doi: str | None) -> str | None:
    """A DOI as a link, whether written bare, as doi:… or as a doi.org link."""
    doi = DOI_PREFIX.sub("", doi or "").strip()
    return f"https://doi.org/{doi}" if doi else None


def bibtex_records(text: str) -> tuple[Records, Rejected]:
    """Records and (line, reason) rejections from a BibTeX export."""
    library = bibtexparser.parse_string(text, append_middleware=bibtex_stack())
    records, rejected = [], [failure(block) for block in library.failed_blocks]
    for entry in library.entries:
        line, fields = entry.start_line + 1, {f.key: f.value for f in entry.fields}
        if not str(fields.get("abstract") or "").strip():
            rejected.append((line, f"entry '{entry.key}' has no abstract; skipped"))
        else:
            records.append((line, bibtex_record(fields)))
    if not library.entries and not rejected:
        rejected.append((None, "no BibTeX entries (@article{…}) found; is this a BibTeX export?"))
    return records, rejected


def bibtex_record(fields: dict) -> dict:
    """Our record fields from one decoded BibTeX entry."""
    authors = list(fields.get("author") or [])
    if authors and authors[-1].casefold() == "others":  # `and others`: the list is truncated
        authors[-1] = "et al."
    url = LATEX_ESCAPE.sub(r"\1", fields.get("url") or "").strip()
    doi = LATEX_ESCAPE.sub(r"\1", fields.get("doi") or "")
    return {
        "title": fields.get("title"),
        "authors": authors,
        "venue": fields.get("journal") or fields.get("booktitle") or fields.get("journaltitle"),
        "year": fields.get("year") or fields.get("date"),
        "url": url or doi_url(doi),
        "keywords": fields.get("keywords"),
        "abstract": fields.get("abstract"),
    }


def failure(block) -> tuple[int, str]:
    """Where a block bibtexparser could not use starts, and why, in a user's words."""
    line = block.start_line + 1
    if isinstance(block, DuplicateBlockKeyBlock):
        first = block.previous_block.start_line + 1
        return line, f"duplicate key '{block.key}' (first at line {first}); skipped"
    entry = block.ignore_error_block
    key = entry.key if isinstance(entry, Entry) else next(iter(BIBTEX_KEY.findall(block.raw)), "")
    name = f"entry '{key}'" if key else "entry"
    if isinstance(block, DuplicateFieldKeyBlock):
        twice = ", ".join(map(repr, sorted(block.duplicate_keys)))
        return line, f"{name} has the field {twice} more than once; skipped"
    if isinstance(block, MiddlewareErrorBlock):
        reason = str(block.error).splitlines()[0]
        return line, f"{name} cannot be read ({reason}); skipped"
    reason = getattr(block.error, "abort_reason", str(block.error)).strip()
    return line, f"{name} cannot be parsed ({reason}); skipped"


def ris_records(text: str) -> tuple[Records, Rejected]:
    """Records and (line, reason) rejections from an RIS export."""
    records, rejected = [], []
    blocks, unfinished = ris_blocks(text)
    rejected += [(line, "record has no end tag 'ER  -'; skipped") for line in unfinished]
    for line, block in blocks:
        entry = rispy.loads(block)[0]
        if not str(first_of(entry, "abstract", "notes_abstract") or "").strip():
            label = first_of(entry, "id", "title", "primary_title")
            name = f"record '{label}'" if label else "record"
            rejected.append((line, f"{name} has no abstract (AB); skipped"))
        else:
            records.append((line, ris_record(entry)))
    if not blocks and not rejected:
        rejected.append((None, "no RIS records (TY  - … ER  -) found; is this an RIS export?"))
    return records, rejected


def ris_blocks(text: str) -> tuple[list[tuple[int, str]], list[int]]:
    """Each record's first line and its text from TY to ER; and where unfinished ones start."""
    blocks, unfinished, start, lines = [], [], None, []
    for number, line in enumerate(json_lines(text), start=1):
        tag = line[:2] if RIS_TAG.match(line) else None
        if tag == "TY":
            if start is not None:
                unfinished.append(start)
            start, lines = number, []
        if start is not None:
            lines.append(line)
            if tag == "ER":
                blocks.append((start, "\n".join(lines)))
                start = None
    return blocks, unfinished + ([start] if start is not None else [])


def ris_record(entry: dict) -> dict:
    """Our record fields from one rispy entry."""
    authors = entry.get("authors") or entry.get("first_authors") or []
    urls = [url for url in entry.get("urls") or [] if url]
    return {
        "title": first_of(entry, "title", "primary_title"),
        "authors": [display_name(name) for name in authors],
        "venue": first_of(entry, "secondary_title", "alternate_title3", "journal_name"),
        "year": first_of(entry, "year", "publication_year", "date"),
        "url": urls[0] if urls else doi_url(entry.get("doi")),
        "keywords": entry.get("keywords") or [],
        "abstract": first_of(entry, "abstract", "notes_abstract"),
    }


def first_of(entry: dict, *names: str) -> str | None:
    return next((entry[name] for name in names if entry.get(name)), None)


def display_name(name: str) -> str:
    """'Devlin, Jacob' → 'Jacob Devlin' (names without a comma stay as they are)."""
    return parse_single_name_into_parts(name, strict=False).merge_first_name_first
