"""User corpora as JSONL (one object per line) or CSV (a header row with an `abstract` column)."""

import csv
import io
import json
import re
import sys

from rag.corpus.records import RecordError

csv.field_size_limit(sys.maxsize)  # over-long fields are rejected by our own limit, with a reason


def json_lines(text: str) -> list[str]:
    """Lines as editors count them: not `splitlines`, which also breaks at U+2028 and U+0085,
    characters JSON allows unescaped inside a string."""
    return re.split(r"\r\n|\r|\n", text)


def parse_json(line: str):
    """The line's JSON value; raises RecordError with the reason when it cannot be read."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise RecordError(f"malformed JSON ({error.msg} at column {error.colno})") from None
    except ValueError as error:  # valid JSON, but an integer too long for Python
        raise RecordError(f"unreadable JSON ({str(error).partition(':')[0]})") from None
    except RecursionError:
        raise RecordError("unreadable JSON (nested too deeply)") from None


def jsonl_records(text: str) -> tuple[list[tuple[int, dict]], list[tuple[int, str]]]:
    """Records and (line, reason) rejections from JSONL text."""
    records, rejected = [], []
    for number, line in enumerate(json_lines(text), start=1):
        if not line.strip():
            continue
        try:
            record = parse_json(line)
        except RecordError as error:
            rejected.append((number, str(error)))
            continue
        if not isinstance(record, dict):
            rejected.append((number, "expected a JSON object with an 'abstract' field"))
        else:
            records.append((number, record))
    return records, rejected


CSV_COLUMNS = (
    "title",
    "abstract",
    "authors",
    "area",
    "subarea",
    "venue",
    "year",
    "url",
    "keywords",
)


def csv_records(text: str) -> tuple[list[tuple[int, dict]], list[str]]:
    """Records from CSV text, and notes about what was ignored (each said once); raises
    RecordError when there is no `abstract` column."""
    reader = csv.reader(io.StringIO(text, newline=""))
    columns = [name.strip().lower() for name in next(reader, [])]
    if "abstract" not in columns:
        raise RecordError(
            f"no 'abstract' column (found: {', '.join(columns) or 'nothing'}); "
            "CSV corpora need a header row with at least 'abstract' (and ideally 'title')"
        )
    notes = []
    if unused := [name for name in columns if name not in CSV_COLUMNS]:
        notes.append(
            f"column{'s' * (len(unused) > 1)} {', '.join(map(repr, unused))} not used "
            f"(used: {', '.join(CSV_COLUMNS)})"
        )
    records, line, long_rows = [], reader.line_num, []
    for row in reader:  # csv.reader, not DictReader: it hides blank lines from line_num
        if row:
            records.append((line + 1, dict(zip(columns, row))))
            if len(row) > len(columns):
                long_rows.append(line + 1)
        line = reader.line_num
    if long_rows:
        notes.append(
            f"{len(long_rows)} rows have more cells than the header (first at line "
            f"{long_rows[0]}); the extra cells were ignored"
        )
    return records, notes
