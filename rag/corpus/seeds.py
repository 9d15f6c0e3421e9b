"""The seed text layout: blank-line separated blocks of abstracts, optionally preceded by an
'Area · Subarea' line and an author line; the file's first short block is its heading."""

import re

AREA_LINE = re.compile(r"^[^·\n]{2,100}\s·\s[^·\n]{2,100}$")
MIN_ABSTRACT_WORDS = 30


def blocks(text: str) -> list[tuple[int, str]]:
    """Blank-line separated blocks, each with the 1-based line number where it starts."""
    found, current, start = [], [], 0
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not current:
                start = number
            current.append(line.strip())
        elif current:
            found.append((start, "\n".join(current)))
            current = []
    if current:
        found.append((start, "\n".join(current)))
    return found


def seed_records(text: str) -> list[tuple[int, dict]]:
    """Raw records (line number, fields) from a seed-layout file."""
    records, pending = [], {}
    for position, (line, block) in enumerate(blocks(text)):
        if AREA_LINE.match(block):
            pending = {"area": block}
        elif len(block.split()) >= MIN_ABSTRACT_WORDS:
            records.append((line, {**pending, "abstract": block}))
            pending = {}
        elif position > 0:
            pending["authors"] = block
    return records
