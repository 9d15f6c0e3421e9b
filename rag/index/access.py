"""When the file system refuses (a read-only data dir, missing permissions, a full disk, a
database another process holds locked) rather than the index being damaged: recognise it, and
say in one message which path and why, and what to do. Chroma writes to its database even to
read, so a data dir it cannot write is unusable, not damaged."""

import errno
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from rag.config import Settings
from rag.errors import RagError, StorageError, StoreError

REFUSED = {errno.EACCES: "permission denied", errno.EPERM: "permission denied"}
REFUSED |= {errno.EROFS: "read-only file system", errno.ENOSPC: "no space left on the disk"}
REFUSED |= {errno.EDQUOT: "disk quota exceeded"}
# How SQLite (in Chroma's Rust core too) and hnswlib word the same refusals.
WORDED = (
    ("readonly database", "read-only"),
    ("read-only file system", "read-only file system"),
    ("permission denied", "permission denied"),
    ("unable to open database file", "cannot be opened for writing"),
    ("database or disk is full", "no space left on the disk"),
    ("no space left", "no space left on the disk"),
    ("disk quota", "disk quota exceeded"),
    ("database is locked", "locked by another process"),
)
FULL = ("no space left on the disk", "disk quota exceeded")
LOW_SPACE = 64 * 2**20  # bytes: less free than this, and a failed write is taken for a full disk


def refusal(error: BaseException) -> str | None:
    """The file system's refusal behind an error, in words ("read-only file system", "no
    space left on the disk", ...), or None when the error is something else."""
    if isinstance(error, OSError) and error.errno in REFUSED:
        return REFUSED[error.errno]
    text = str(error).lower()
    return next((cause for words, cause in WORDED if words in text), None)


def refused(where: Path, cause: str) -> StorageError:
    """The one message for a refusal: the path, the cause, and what to do."""
    if cause.startswith(FULL):
        return StorageError(
            f"Cannot write to {where}: {cause}. Free some space and run the command again (an "
            "ingest resumes where it stopped); `rag doctor` checks the index."
        )
    if cause == "locked by another process":
        return StorageError(
            f"The index in {where} is locked by another process (an ingest or `rag doctor "
            "--repair`?). Wait for it to finish, then try again."
        )
    fix = (
        "mount it read-write"
        if cause == "read-only file system"
        else f"make it writable for this user (`chmod -R u+w {where}`, or run as its owner)"
    )
    return StorageError(
        f"Cannot write to {where} ({cause}), and Chroma writes to its database even to read "
        f"it: {fix}, or copy the data dir somewhere writable and set RAG_DATA_DIR to the copy."
    )


def unwritable(settings: Settings) -> tuple[Path, str] | None:
    """The first part of the embedded store this user cannot write, and why (None: all of it
    can be written, or it does not exist yet)."""
    chroma = settings.chroma_dir
    parts = [settings.data_dir, chroma, chroma / "chroma.sqlite3", settings.bm25_dir.parent]
    if chroma.is_dir():
        parts += sorted(path for path in chroma.iterdir() if path.is_dir())
    for path in parts:
        if path.exists() and not os.access(path, os.W_OK):
            read_only = os.statvfs(path).f_flag & os.ST_RDONLY
            return path, "read-only file system" if read_only else "no write permission"
    return None


def check_writable(settings: Settings) -> None:
    """Raise the refusal's message when the embedded store cannot be written."""
    if settings.chroma_host:
        return
    if found := unwritable(settings):
        raise refused(*found)


@contextmanager
def explained(where: Path):
    """Inside it, an error that is the file system refusing becomes its StoreError."""
    try:
        yield
    except StoreError:
        raise
    except Exception as error:
        if (cause := refusal(error) or short_of_space(where, error)) is None:
            raise
        raise refused(where, cause) from None


def short_of_space(where: Path, error: Exception) -> str | None:
    """A full disk, when Chroma's error does not say so ("Error in compaction: Failed to apply
    logs to the metadata segment") but the disk has less than LOW_SPACE left."""
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        return None
    if free >= LOW_SPACE:
        return None
    return f"{FULL[0]} ({free / 2**20:.1f} MB free; Chroma said: {str(error)[:200]})"


def as_store_error(error: Exception) -> Exception:
    """An error for the user: ours as it is, an OSError that is the file system refusing as
    its message (naming the file); any other error is raised again, with its traceback."""
    if isinstance(error, OSError) and (cause := refusal(error)):
        return refused(Path(error.filename or "."), cause)
    if not isinstance(error, RagError):
        raise error
    return error
