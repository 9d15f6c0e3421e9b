"""When the file system refuses (a read-only data dir, no permission, a full disk), every
command says so in one message naming the path and the cause; `rag doctor` tells that from
damage, and `--repair` moves nothing it has not shown to be damaged."""

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rag.errors import StorageError
from rag.index import run_ingest
from rag.index.access import refusal
from rag.index.doctor import diagnose, repair
from tests.conftest import abstract, free_port, write_jsonl

DISK_FULL = "no space left on the disk"


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (OSError(errno.EROFS, "Read-only file system"), "read-only file system"),
        (OSError(errno.ENOSPC, "No space left on device"), DISK_FULL),
        (OSError(errno.EACCES, "Permission denied"), "permission denied"),
        (RuntimeError("(code: 8) attempt to write a readonly database"), "read-only"),
        (RuntimeError("database or disk is full"), DISK_FULL),
        (RuntimeError("Error executing plan: Internal error: Error finding id"), None),
        (OSError(errno.ENOENT, "No such file or directory"), None),
    ],
)
def test_refusals_are_told_from_other_errors(error, cause):
    assert refusal(error) == cause


@pytest.fixture
def indexed(settings, tmp_path):
    papers = [{"title": f"Paper {n}", "abstract": abstract(f"topic {n}")} for n in range(3)]
    run_ingest(settings, [write_jsonl(tmp_path / "c.jsonl", papers)], show_progress=False)
    return settings


def test_doctor_tells_a_store_it_cannot_write_from_damage_and_repair_moves_nothing(
    indexed, monkeypatch
):
    data = indexed.data_dir.resolve()
    monkeypatch.setattr(  # as for a user without write permission (tests may run as root)
        "rag.index.access.os.access", lambda path, mode: not Path(path).is_relative_to(data)
    )
    findings = diagnose(indexed)
    assert [(f.part, f.ok, f.kind) for f in findings] == [
        ("permissions", False, "storage"),
        ("store database", True, "damage"),
        ("vector index files", True, "damage"),
    ]
    assert f"Cannot write to {indexed.data_dir} (no write permission)" in findings[0].detail
    with pytest.raises(StorageError, match="Nothing was repaired or moved"):
        repair(indexed, findings, say=lambda text: None)
    assert sorted(p.name for p in indexed.data_dir.iterdir()) == ["bm25", "chroma"]


# --- the real thing, in child processes: a read-only mount (or, for a user who is not root,
# a folder without write permission) and a full disk (a small tmpfs)


def environment(data_dir: Path) -> dict:
    return {**os.environ, "RAG_DATA_DIR": str(data_dir), "RAG_EMBEDDING_MODEL": "fake"}


def run(command: list[str], data_dir: Path, wrap: list[str]):
    """`rag COMMAND` in a child process on data_dir (inside `wrap`), fake embedder."""
    return subprocess.run(
        [*wrap, sys.executable, "-m", "rag", *command],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=environment(data_dir),
    )


def private_mounts() -> list[str]:
    """The prefix that runs a command in a mount namespace of its own (else the test skips)."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare for a private mount")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False)
    if probe.returncode:
        pytest.skip(f"mount namespaces are not allowed here: {probe.stderr.decode()[:200]}")
    return ["unshare", "-m"]


@pytest.fixture
def read_only(indexed):
    """The indexed data dir as this user cannot write it; yields the command prefix."""
    data = indexed.data_dir
    if os.geteuid() == 0:
        remount = f"mount --bind {data} {data} && mount -o remount,ro,bind {data} {data}"
        yield [*private_mounts(), "sh", "-c", f'{remount} && exec "$@"', "sh"]
        return
    for path in [data, *data.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)
    yield []
    for path in [data, *data.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)


@pytest.mark.slow
def test_a_read_only_data_dir_is_one_clear_message_for_every_command(indexed, read_only, tmp_path):
    corpus = str(tmp_path / "c.jsonl")
    for command in (["papers"], ["ask", "topic 1", "--backend", "extractive"], ["ingest", corpus]):
        done = run(command, indexed.data_dir, read_only)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        [message] = done.stderr.strip().splitlines()
        assert message.startswith(f"Error: Cannot write to {indexed.data_dir} (") and (
            "read-only file system" in message or "no write permission" in message
        )
    ui = run(["ui", "--port", str(free_port())], indexed.data_dir, read_only)  # not 7860
    assert ui.returncode == 2 and "Error: Cannot write to" in ui.stderr, ui.stderr

    doctor = run(["doctor", "--json"], indexed.data_dir, read_only)
    findings = {f["part"]: f for f in json.loads(doctor.stdout)}
    assert doctor.returncode == 1 and findings["permissions"]["kind"] == "storage"
    assert all(f["ok"] for part, f in findings.items() if part != "permissions")
    repaired = run(["doctor", "--repair"], indexed.data_dir, read_only)
    assert repaired.returncode == 2 and "Nothing was repaired or moved" in repaired.stderr
    assert "Traceback" not in repaired.stderr and "Moved" not in repaired.stderr
    assert sorted(p.name for p in indexed.data_dir.iterdir()) == ["bm25", "chroma"]


@pytest.mark.slow
def test_a_disk_that_fills_during_an_ingest_is_one_message_and_the_index_recovers(tmp_path):
    data, out = tmp_path / "data", tmp_path / "out"
    data.mkdir(), out.mkdir()
    papers = [
        {"title": f"Paper {n}", "abstract": f"Study {n}. " + abstract(f"subject {n % 97}", 90)}
        for n in range(3000)
    ]
    corpus = write_jsonl(tmp_path / "many.jsonl", papers)
    rag = f"{sys.executable} -m rag"
    story = (  # in one namespace: the small disk lives as long as it does
        f"mount -t tmpfs -o size=4m tmpfs {data};"
        f" {rag} ingest {corpus} --json 2> {out}/full.err; echo $? > {out}/full.code;"
        f" mount -o remount,size=400m {data};"  # space returns
        f" {rag} ingest {corpus} --json > {out}/again.json && {rag} doctor --json"
    )
    done = subprocess.run(
        [*private_mounts(), "sh", "-c", story],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=environment(data),
    )
    full = (out / "full.err").read_text()
    assert (out / "full.code").read_text().strip() == "2" and "Traceback" not in full, full
    assert f"Error: Cannot write to {data}: {DISK_FULL}" in full
    assert json.loads((out / "again.json").read_text())["papers"] == 3000
    assert done.returncode == 0 and all(f["ok"] for f in json.loads(done.stdout)), done.stderr
