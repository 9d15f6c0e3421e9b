"""Rebuilding a damaged store from its corpus files, so that a rebuild cut short (a `kill -9`, a
power cut) loses nothing and the next `rag doctor --repair` finishes it.

The new store is built in DATA_DIR/rebuilding, a data dir of its own, while the damaged store
stays where it is. The rebuild's plan (which corpus files) is written there first, and marked
finished when the ingest has ended; only then is the damaged store moved aside and the new one
moved in. A run that finds the folder resumes: an unfinished ingest goes on where it stopped
(ingest is an upsert that converges after a kill), a finished one is moved in."""

import json
import shutil
import sqlite3
import time
from pathlib import Path

from rag.config import Settings
from rag.index.access import explained
from rag.index.integrity import STAGING, Finding

PLAN = "rebuild.json"
DONE = "rebuilding.done"  # the staging folder once moved in, until it is removed


def staging_settings(settings: Settings) -> Settings:
    """The same settings, with the rebuild's folder as the data dir."""
    return settings.model_copy(update={"data_dir": settings.data_dir / STAGING})


def read_plan(staging: Path) -> dict:
    """The plan of a rebuild begun in `staging` ({} when none was written)."""
    try:
        return json.loads((staging / PLAN).read_text())
    except (OSError, ValueError):
        return {}


def write_plan(staging: Path, plan: dict) -> None:
    """Write the plan atomically (a kill leaves the old one or the new one)."""
    partial = staging / f"{PLAN}.partial"
    partial.write_text(json.dumps(plan))
    partial.rename(staging / PLAN)


def interrupted_finding(settings: Settings) -> Finding | None:
    """A rebuild that was cut short, which `rag doctor --repair` resumes (None: there is none)."""
    staging = settings.data_dir / STAGING
    if not staging.is_dir():
        return None
    state = "finished but not moved in" if read_plan(staging).get("finished") else "unfinished"
    detail = f"a rebuild of the store was interrupted ({state}) in {staging}"
    return Finding(part="rebuild", ok=False, detail=detail)


def source_files(settings: Settings) -> list[Path]:
    """The corpus files the stored papers came from (read from the database directly, which
    needs no vector index)."""
    path = settings.chroma_dir / "chroma.sqlite3"
    try:
        with sqlite3.connect(f"file:{path}?mode=rw", uri=True) as db:
            rows = db.execute(
                "SELECT DISTINCT string_value FROM embedding_metadata WHERE key = 'source_file'"
            ).fetchall()
        return sorted(Path(value) for (value,) in rows if value)
    except sqlite3.Error:
        return []


def rebuild_store(settings: Settings, say=print) -> None:
    """Build the store anew from the corpus files its papers came from (or the configured
    corpus when those cannot be read), then move it in place of the damaged one; resumes a
    rebuild that was interrupted."""
    from rag.index import run_ingest

    staging = settings.data_dir / STAGING
    shutil.rmtree(settings.data_dir / DONE, ignore_errors=True)
    plan = read_plan(staging)
    with explained(settings.data_dir):
        if not plan:
            shutil.rmtree(staging, ignore_errors=True)  # begun, but nothing built without a plan
            staging.mkdir(parents=True)
            files = [str(path) for path in source_files(settings) if path.is_file()] or None
            plan = {"files": files, "finished": False}
            write_plan(staging, plan)
            say(f"Rebuilding the index from {', '.join(files or ['the configured corpus'])} …")
        elif not plan["finished"]:
            say(f"Resuming the rebuild interrupted in {staging} …")
        if not plan["finished"]:
            files = [Path(name) for name in plan["files"]] if plan["files"] else None
            report = run_ingest(staging_settings(settings), files, show_progress=True)
            write_plan(staging, plan | {"finished": True})
            say(f"Rebuilt: {report.papers} papers, {report.errors} records rejected.")
        move_in(settings, say)


def move_in(settings: Settings, say=print) -> None:
    """Put the finished rebuild in place of the damaged store (kept aside, not deleted). Each
    step can be cut short and done again."""
    staging = settings.data_dir / STAGING
    built = staging_settings(settings)
    if built.chroma_dir.is_dir():
        if settings.chroma_dir.is_dir():
            aside = settings.data_dir / f"chroma.damaged-{time.strftime('%Y%m%d-%H%M%S')}"
            settings.chroma_dir.rename(aside)
            say(f"Moved the damaged store to {aside}.")
        built.chroma_dir.rename(settings.chroma_dir)
    if built.bm25_dir.is_dir():
        shutil.rmtree(settings.bm25_dir, ignore_errors=True)
        settings.bm25_dir.parent.mkdir(parents=True, exist_ok=True)
        built.bm25_dir.rename(settings.bm25_dir)
    staging.rename(settings.data_dir / DONE)  # one step: no half-removed plan is ever read
    shutil.rmtree(settings.data_dir / DONE, ignore_errors=True)
