"""The embedded store's files checked without Chroma, in milliseconds: SQLite's quick check of
its database and the HNSW segments' headers, sizes and links. Reading a damaged HNSW file can
kill the process (SIGSEGV inside Chroma's hnswlib), so `open_store` runs `check_before_opening`
before every command touches the store; `rag doctor` (doctor.py) reports the same findings.
"""

import sqlite3
import struct
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel

from rag.config import Settings
from rag.errors import StoreError
from rag.index.access import refusal

REPAIR = "run `rag doctor --repair`"
STAGING = "rebuilding"  # the folder in the data dir a repair builds the new store in
# hnswlib's header.bin as Chroma writes it: version, offsetLevel0, max_elements,
# cur_element_count, size_data_per_element, label_offset, offsetData, maxlevel,
# enterpoint_node, maxM, maxM0, M, mult, ef_construction.
HEADER = struct.Struct("<iQQQQQQiIQQQdQ")


class Finding(BaseModel):
    """One checked part of the index. A part that is not ok is damaged, or (kind "storage")
    the file system refuses to let it be used: read-only, no permission, full, locked."""

    part: str
    ok: bool
    detail: str
    kind: Literal["damage", "storage"] = "damage"


def check_before_opening(settings: Settings) -> None:
    """Raise a StoreError naming the repair when the embedded store's files are damaged, before
    Chroma reads them (and perhaps crashes)."""
    if settings.chroma_host or not (settings.chroma_dir / "chroma.sqlite3").is_file():
        return
    for finding in (database_finding(settings), segments_finding(settings)):
        if not finding.ok:
            raise StoreError(
                f"The index in {settings.data_dir} is damaged: {finding.detail}. To rebuild it, "
                f"{REPAIR}."
            )


def check_not_mid_rebuild(settings: Settings) -> None:
    """Raise when a rebuild was cut short between moving the damaged store aside and moving
    the new one in: the store is missing, and `rag ingest` would start another."""
    if settings.chroma_host or (settings.chroma_dir / "chroma.sqlite3").is_file():
        return
    if (settings.data_dir / STAGING).is_dir():
        raise StoreError(
            f"A rebuild of the index in {settings.data_dir} was interrupted before it was "
            "moved in; run `rag doctor --repair` to finish it."
        )


def database_finding(settings: Settings) -> Finding:
    """SQLite's own integrity check of chroma.sqlite3 (read-only)."""
    path = settings.chroma_dir / "chroma.sqlite3"
    with open(path, "rb") as file:
        head = file.read(100)
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    try:
        if len(head) < 100 or path.stat().st_size < pages * page_size:
            raise sqlite3.DatabaseError("the file is shorter than its header says (truncated)")
        with sqlite3.connect(f"file:{path}?mode=rw", uri=True) as db:
            result = db.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.Error as error:
        result = str(error)
    ok = result == "ok"
    kind = "storage" if refusal(result) and not ok else "damage"
    detail = "readable" if ok else f"{path}: {result}"
    return Finding(part="store database", ok=ok, detail=detail, kind=kind)


def segments_finding(settings: Settings) -> Finding:
    """Every HNSW segment folder the database lists is there (when its collection holds
    anything) and structurally sound."""
    path = settings.chroma_dir / "chroma.sqlite3"
    try:
        with sqlite3.connect(f"file:{path}?mode=rw", uri=True) as db:
            segments = db.execute(
                "SELECT s.id, (SELECT COUNT(*) FROM embeddings e JOIN segments m "
                "ON e.segment_id = m.id WHERE m.collection = s.collection) "
                "FROM segments s WHERE s.scope = 'VECTOR'"
            ).fetchall()
    except sqlite3.Error as error:
        kind = "storage" if refusal(error) else "damage"
        return Finding(part="vector index files", ok=False, detail=f"{path}: {error}", kind=kind)
    for segment, rows in segments:
        folder = settings.chroma_dir / segment
        if not folder.is_dir():
            if rows:
                detail = f"the vector index folder {folder} is missing"
                return Finding(part="vector index files", ok=False, detail=detail)
            continue
        if problem := hnsw_problem(folder):
            return Finding(part="vector index files", ok=False, detail=f"{folder}: {problem}")
    return Finding(part="vector index files", ok=True, detail=f"{len(segments)} segments sound")


def hnsw_problem(folder: Path) -> str | None:
    """What is wrong with an HNSW segment's files, if anything (None: sound, or not written
    yet)."""
    names = ("header.bin", "data_level0.bin", "length.bin", "link_lists.bin")
    present = [name for name in names if (folder / name).is_file()]
    if not present:
        return None  # Chroma keeps small collections in its log until they grow
    if len(present) < len(names):
        return f"missing {', '.join(sorted(set(names) - set(present)))}"
    raw = (folder / "header.bin").read_bytes()
    if len(raw) != HEADER.size:
        return f"header.bin is {len(raw)} bytes, not {HEADER.size}"
    (_, _, capacity, count, size, label_at, data_at, _, entry, _, max_m0, _, _, _) = HEADER.unpack(
        raw
    )
    if not (
        count <= capacity < 2**40
        and data_at == 4 + 4 * max_m0
        and label_at + 8 == size
        and (count == 0 or entry < count)
    ):
        return "header.bin is not a valid index header"
    # A file shorter than the header says is what a run killed while Chroma persisted leaves;
    # Chroma recovers from its log, so only the rows present are checked: links that point
    # past the index are what crashes its reader.
    level0 = folder / "data_level0.bin"
    complete = min(count, level0.stat().st_size // size)
    if complete:
        rows = np.fromfile(level0, dtype=np.uint8, count=complete * size).reshape(complete, size)
        links = rows[:, :data_at].copy().view(np.uint32)
        sizes = links[:, 0] & 0xFFFF
        ids = np.where(np.arange(max_m0) < sizes[:, None], links[:, 1:], 0)
        if (sizes > max_m0).any() or (ids >= count).any():
            return "data_level0.bin holds links to elements that do not exist"
    return None
