"""The local model runs in a process of its own (as Ollama runs its runner): an OpenAI-compatible
llama.cpp server on a free loopback port with a random API key. If it dies (segfault, OOM,
`kill -9`) the app lives on: the process is started again, and stopped when the app exits."""

import atexit
import json
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from rag.config import MODEL_PARENT_VARIABLE as PARENT_ENV
from rag.llm.base import BackendError

log = logging.getLogger(__name__)
READY_TIMEOUT_S = 180.0
MAX_DEATHS = 3  # in a row: then the model is not restarted again
ALIAS = "local"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


class ModelProcess:
    """One model server process; `url()` starts it (again) when it is not running."""

    def __init__(self, model: Path, threads: int, context: int, command: list[str] | None = None):
        self.model, self.threads, self.context = model, threads, context
        self.command = command or [sys.executable, "-m", "rag.llm.serve"]
        self.key = secrets.token_urlsafe(24)
        self.folder: Path | None = None  # config (with the key) and log; removed by stop()
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.starts = 0
        self.deaths = 0  # in a row, without an answer in between
        self._lock = threading.Lock()

    @property
    def log_path(self) -> Path:
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="rag-model-"))
        return self.folder / "server.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def url(self) -> str:
        """The server's base URL, starting the process (and waiting until it answers) if needed."""
        with self._lock:
            if self.deaths >= MAX_DEATHS:
                raise BackendError(
                    f"The local model process died {self.deaths} times in a row and is not "
                    f"started again until the app restarts ({self.log_tail()})"
                )
            if not self.running():
                self._start()
            return self.base_url

    def died(self, process: subprocess.Popen | None, wait: float = 2.0) -> str | None:
        """How this process ended, if it has (waiting a moment: a killed process's connections
        close just before its exit status is known)."""
        if process is None:
            return None
        try:
            return describe_exit(process.wait(wait))
        except subprocess.TimeoutExpired:
            return None

    def restart_soon(self) -> bool:
        """Start a new process in the background, so the next question finds it ready; False
        (and no restart) after MAX_DEATHS deaths in a row: something is wrong with the model."""
        self.deaths += 1
        if self.deaths >= MAX_DEATHS:
            return False
        threading.Thread(target=self._warm_quietly, daemon=True).start()
        return True

    def _warm_quietly(self) -> None:
        try:
            self.url()
        except BackendError as error:
            log.warning("%s", error)

    def _start(self) -> None:
        if self.process is not None:
            how = describe_exit(self.process.wait())
            log.warning("The local model process %s; starting it again.", how)
        self.port = free_port()
        config = self.log_path.with_name("server.json")
        config.touch(mode=0o600)
        config.write_text(
            json.dumps(
                {
                    "host": "127.0.0.1",
                    "port": self.port,
                    "api_key": self.key,
                    "interrupt_requests": False,  # RAG_UI_CONCURRENCY > 1 queues, never cuts
                    "models": [
                        {
                            "model": str(self.model),
                            "model_alias": ALIAS,
                            "n_ctx": self.context,
                            "n_threads": self.threads,
                            "n_threads_batch": self.threads,
                            "verbose": False,
                        }
                    ],
                }
            )
        )
        with self.log_path.open("ab") as log_file:
            self.process = subprocess.Popen(
                [*self.command, str(config)],
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C in the terminal stops an answer, not the model
                env=os.environ | {PARENT_ENV: str(os.getpid())},
            )
        self.starts += 1
        self._wait_ready()

    def _wait_ready(self) -> None:
        import httpx

        deadline = time.monotonic() + READY_TIMEOUT_S
        headers = {"Authorization": f"Bearer {self.key}"}
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BackendError(
                    f"The local model process {describe_exit(self.process.returncode)} while "
                    f"loading {self.model}: {self.log_tail()}"
                )
            try:
                if httpx.get(f"{self.base_url}/models", headers=headers, timeout=2).is_success:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise BackendError(
            f"The local model process did not answer within {READY_TIMEOUT_S:g} s: "
            f"{self.log_tail()}"
        )

    def log_tail(self, lines: int = 2) -> str:
        """The last lines of the process's log (where llama.cpp says what went wrong)."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        last = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
        if "Traceback (most recent call last):" in text:  # the exception, not its source line
            last = last[-1:]
        return " / ".join(last)[-400:] or "(empty log)"

    def stop(self) -> None:
        """Stop the process (terminate, then kill after 5 s) and remove its config and log."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


_processes: dict[tuple, ModelProcess] = {}
_processes_lock = threading.Lock()


def shared_process(model: Path, threads: int, context: int, role: str = "answer") -> ModelProcess:
    """The one model process of this app for this model, configuration and role."""
    key = (str(Path(model).resolve()), threads, context, role)
    with _processes_lock:
        if key not in _processes:
            _processes[key] = ModelProcess(Path(model), threads, context)
        return _processes[key]


@atexit.register
def stop_all() -> None:
    for process in list(_processes.values()):
        process.stop()


def stop_on_signals() -> None:
    """Turn SIGTERM into a normal exit, so atexit stops the model process (no orphans)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
