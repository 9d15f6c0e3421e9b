"""Turn one raw record (from any file layout) into a validated Paper."""

import re

from rag.models import Paper, paper_id_for

TRUNCATION_MARKS = ("等", "et al.", "et al", "...", "…")
DERIVED_TITLE_WORDS = 12
SURROGATE = re.compile("[\ud800-\udfff]")
YEAR_IN_TEXT = re.compile(r"(?<![0-9])[0-9]{4}(?![0-9])")


class RecordError(ValueError):
    """This record is unusable; the message says why."""


def split_authors(raw: str | list | None) -> tuple[list[str], bool]:
    """Authors as a list, and whether the source truncated the list ("等", "et al.")."""
    if raw is None:
        return [], False
    if isinstance(raw, list):
        raw = ", ".join(str(name) for name in raw)
    text = str(raw).strip()
    truncated = False
    for mark in TRUNCATION_MARKS:
        if text.endswith(mark):
            text, truncated = text[: -len(mark)].rstrip(" ,;，"), True
    names = [name.strip() for name in re.split(r"[,;，；]|\band\b", text) if name.strip()]
    return names, truncated


def split_area(raw: str | None) -> tuple[str | None, str | None]:
    """'Area · Subarea' into its two parts; a plain area has no subarea."""
    if not raw or not str(raw).strip():
        return None, None
    area, _, subarea = str(raw).partition("·")
    return area.strip() or None, subarea.strip() or None


def parse_year(value) -> int | None:
    """A record's year: a number, or the first four-digit year in text ('2019-06', '2019a').
    Text without one ('n.d.', 'in press') is no year; a number that is not a year is an error."""
    if isinstance(value, str) and not re.fullmatch(r"\s*[0-9]+\s*", value):
        found = YEAR_IN_TEXT.search(value)
        return int(found.group()) if found else None
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int | str) or not 1000 <= int(value) < 3000:
        shown = json_type(value) if isinstance(value, bool | dict | list) else repr(value)
        raise RecordError(f"'year' must be a four-digit year like 2019, not {shown}")
    return int(value)


def split_keywords(raw) -> list[str]:
    """Keywords from a list or from comma/semicolon separated text, each once."""
    if isinstance(raw, dict):
        raise RecordError("'keywords' must be a list or text, not a JSON object")
    items = raw if isinstance(raw, list) else re.split(r"[,;]", str(raw or ""))
    keywords: dict[str, str] = {}
    for item in items:
        if keyword := clean(item, "keywords"):
            keywords.setdefault(keyword.casefold(), keyword)
    return list(keywords.values())


def derive_title(abstract: str) -> str:
    """A short title from the abstract's first sentence, for papers without a known title."""
    first_sentence = re.split(r"(?<=[.!?])\s", abstract.strip(), maxsplit=1)[0]
    words = first_sentence.split()
    title = " ".join(words[:DERIVED_TITLE_WORDS]).rstrip(".,;:")
    return title + ("…" if len(words) > DERIVED_TITLE_WORDS else "")


def json_type(value) -> str:
    names = {dict: "a JSON object", list: "a list", bool: "true/false"}
    return names.get(type(value), "a number")


def clean(value, field: str = "value") -> str | None:
    """Whitespace-collapsed text; a number is text, a JSON object or list is not."""
    if isinstance(value, dict | list):
        raise RecordError(f"'{field}' must be text, not {json_type(value)}")
    text = re.sub(r"\s+", " ", str(value)).strip() if value is not None else ""
    return text or None


def build_paper(record: dict, source_file: str, max_abstract_chars: int) -> Paper:
    """Validate a raw record and build its Paper; raises RecordError with the reason."""
    abstract = record.get("abstract")
    if not isinstance(abstract, str | None):
        raise RecordError(f"'abstract' must be text, not {json_type(abstract)}")
    abstract = clean(abstract)
    if not abstract:
        raise RecordError("empty abstract")
    if len(abstract) > max_abstract_chars:
        raise RecordError(
            f"abstract is {len(abstract):,} characters, over the {max_abstract_chars:,} limit "
            "(RAG_MAX_ABSTRACT_CHARS); is this record malformed?"
        )
    if isinstance(record.get("authors"), dict):
        raise RecordError("'authors' must be a list or text, not a JSON object")
    authors, truncated = split_authors(record.get("authors"))
    area, subarea = split_area(clean(record.get("area"), "area"))
    keywords = split_keywords(record.get("keywords"))
    fields = {
        "title": clean(record.get("title"), "title"),
        "area": area,
        "subarea": clean(record.get("subarea"), "subarea") or subarea,
        "venue": clean(record.get("venue"), "venue"),
        "url": clean(record.get("url"), "url"),
    }
    # Lone surrogates (undecodable bytes kept by surrogateescape, or a JSON "\ud800" escape)
    # cannot be stored or shown: reject the record rather than crash the whole ingest.
    texts = [abstract, *authors, *keywords, *fields.values()]
    if any(SURROGATE.search(text or "") for text in texts):
        raise RecordError("not valid UTF-8; save the file as UTF-8")
    return Paper(
        **fields | {"title": fields["title"] or derive_title(abstract)},
        paper_id=paper_id_for(abstract),
        title_source="metadata" if fields["title"] else "derived",
        authors=authors,
        authors_truncated=truncated,
        year=parse_year(record.get("year")),
        keywords=keywords,
        abstract=abstract,
        source_file=source_file,
    )
