"""User corpora as JSONL (one object per line) or CSV (a header row with an `abstract` column)."""

import csv
import io
import json
import sys

from rag.corpus.records import RecordError

csv.field_size_limit(sys.maxsize)  # over-long fields are rejected by our own limit, with a reason


def jsonl_records(text: str) -> tuple[list[tuple[int, dict]], list[tuple[int, str]]]:
    """Records and (line, reason) rejections from JSONL text."""
    records, rejected = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            rejected.append((number, f"malformed JSON ({error.msg} at column {error.colno})"))
            continue
        if not isinstance(record, dict):
            rejected.append((number, "expected a JSON object with an 'abstract' field"))
        else:
            records.append((number, record))
    return records, rejected


def csv_records(text: str) -> list[tuple[int, dict]]:
    """Records from CSV text; raises RecordError when there is no `abstract` column."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns = [name.strip().lower() for name in reader.fieldnames or []]
    if "abstract" not in columns:
        raise RecordError(
            f"no 'abstract' column (found: {', '.join(columns) or 'nothing'}); "
            "CSV corpora need a header row with at least 'abstract' (and ideally 'title')"
        )
    records, line = [], 1
    for row in reader:
        fields = {(key or "").strip().lower(): value for key, value in row.items()}
        records.append((line + 1, fields))
        line = reader.line_num
    return records
