"""Servers the benchmarks start on free loopback ports: a Chroma server, and Infinity serving the
bundled embedding model (from .venv-infinity, which `scripts/setup_infinity.sh` installs)."""

import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx

from rag.config import BUNDLED_EMBEDDER
from rag.llm.runner import free_port

REPO = Path(__file__).resolve().parent.parent
INFINITY = REPO / ".venv-infinity" / "bin" / "infinity_emb"


def wait_for(url: str, process: subprocess.Popen, what: str, timeout_s: float = 180) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{what} exited while starting (code {process.returncode})")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit(f"{what} did not answer {url} within {timeout_s:.0f} s")


@contextmanager
def running(command: list[str], url: str, what: str, env: dict | None = None):
    """Run `command` until the block ends, once `url` answers 200."""
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    try:
        wait_for(url, process, what)
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def chroma_server(path: Path):
    """`chroma run` storing under `path`; yields its port and process."""
    chroma = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    port = free_port()
    command = [chroma, "run", "--path", str(path), "--port", str(port)]
    with running(command, f"http://127.0.0.1:{port}/api/v2/heartbeat", "chroma run") as process:
        yield port, process


@contextmanager
def infinity_server(model_path: Path, name: str = BUNDLED_EMBEDDER):
    """Infinity serving the model folder under `name`; yields its base URL."""
    if not INFINITY.exists():
        raise SystemExit(f"{INFINITY} is missing: run scripts/setup_infinity.sh first")
    port = free_port()
    command = [
        str(INFINITY), "v2", "--model-id", str(model_path), "--served-model-name", name,
        "--host", "127.0.0.1", "--port", str(port), "--device", "cpu", "--no-model-warmup",
    ]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "DO_NOT_TRACK": "1"}
    url = f"http://127.0.0.1:{port}"
    with running(command, f"{url}/models", "Infinity", env):
        yield url


def rss_mb(pid: int) -> float:
    """Resident memory of a process now (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def disk_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20
