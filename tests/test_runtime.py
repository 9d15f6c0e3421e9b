"""The local model's own process (rag.llm.runner), with a stand-in server that speaks the same
protocol: started on demand, a death mid-answer falls back visibly and the next answer comes
from a restarted process, and no process outlives the app (not even after `kill -9`)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rag.answer.pipeline import Answerer
from rag.llm.base import BackendError
from rag.llm.runner import ModelProcess
from tests.conftest import PRICING, PRICING_QUESTION, REPO, free_port

FAKE_SERVER = [sys.executable, str(REPO / "tests" / "fake_model_server.py")]

pytestmark = pytest.mark.slow  # model and app processes


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie is dead, only not yet reaped
        return stat.read().split(") ")[1][0] != "Z"


def wait_until(condition, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def model(tmp_path, monkeypatch, seed_index, retriever):
    """An answerer on the local backend whose model process is the stand-in server."""
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF" + bytes(64))
    process = ModelProcess(gguf, threads=2, context=4096, command=FAKE_SERVER)
    monkeypatch.setattr("rag.llm.local.shared_process", lambda *_: process)
    settings = seed_index.model_copy(update={"llm_backend": "local", "local_model_path": gguf})
    yield process, Answerer(settings, retriever=retriever)
    process.stop()


def ask_and_kill(answerer, process) -> list:
    """Ask, and kill the model process once its first word has arrived: mid-answer, always."""
    pieces, pid = [], process.process.pid
    for piece in answerer.ask(PRICING_QUESTION):
        if not pieces:
            os.kill(pid, signal.SIGKILL)
        pieces.append(piece)
    return pieces


def test_a_killed_model_process_falls_back_visibly_and_is_restarted(model):
    process, answerer = model
    *_, first = answerer.ask(PRICING_QUESTION)
    assert first.backend == "local" and not first.notices
    assert PRICING in [c.title for c in first.citations]
    pid = process.process.pid

    *streamed, killed = ask_and_kill(answerer, process)
    assert killed.backend == "extractive" and killed.citations
    (notice,) = killed.notices
    assert "local model process killed by SIGKILL" in notice and "restarted" in notice
    assert notice in "".join(streamed)  # shown while it happened, not only in the final answer

    *_, after = answerer.ask(PRICING_QUESTION)
    assert after.backend == "local" and not after.notices
    assert process.starts == 2 and process.process.pid != pid


def test_a_stopped_answer_hangs_up_on_the_model_process(model):
    process, answerer = model
    stream = answerer.backend().stream(answerer_prompt(answerer))
    assert next(stream).strip()  # the first word has arrived
    stream.close()  # what Stop and Ctrl-C do
    assert wait_until(lambda: "client hung up" in process.log_path.read_text(), timeout=5)


def test_a_model_that_keeps_dying_is_not_restarted_forever(model):
    process, answerer = model
    for death in range(1, 4):
        process.url()  # the background restart has finished (a loaded machine is slow)
        *_, answer = ask_and_kill(answerer, process)
        assert answer.backend == "extractive" and process.deaths == death
    assert "3 times in a row" in answer.notices[0] and "not restarted" in answer.notices[0]
    *_, after = answerer.ask(PRICING_QUESTION)  # no fourth start: a clear message instead
    assert after.backend == "extractive" and "until the app restarts" in after.notices[0]
    assert process.starts == 3


def answerer_prompt(answerer):
    from rag.answer.prompts import answer_messages
    from rag.llm import Prompt

    sources = answerer.retriever.search(PRICING_QUESTION, 2)
    return Prompt(messages=answer_messages(PRICING_QUESTION, sources, 160), sources=sources)


def test_side_tasks_run_in_a_second_model_process_of_their_own(tmp_path, seed_index):
    """The judge and the rewriter never evict the answer prompt from the answering process."""
    from rag.llm.local import SIDE_CONTEXT, LocalBackend

    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF" + bytes(64))
    backend = LocalBackend(seed_index.model_copy(update={"local_model_path": gguf}))
    side = backend.side_tasks()
    assert side is backend.side_tasks() and side.side_tasks() is side
    assert side.process is not backend.process and side.secret == side.process.key
    assert side.process.context == SIDE_CONTEXT and side.process.model == backend.process.model


def test_a_model_process_that_dies_while_loading_says_why(tmp_path):
    dying = [sys.executable, "-c", "print('error loading model: bad magic'); raise SystemExit(3)"]
    process = ModelProcess(tmp_path / "m.gguf", 2, 4096, command=dying)
    with pytest.raises(BackendError, match="exited with status 3 while loading.*bad magic"):
        process.url()
    folder = process.folder
    process.stop()
    assert not folder.exists()  # its config (with the API key) and log are gone


def test_the_model_process_checks_its_key_and_listens_on_loopback_only(model):
    import httpx

    process, _ = model
    url = process.url()
    assert url.startswith("http://127.0.0.1:")
    assert httpx.get(f"{url}/models").status_code == 401
    assert len(process.key) >= 32


APP = """
import sys, time
from pathlib import Path
from rag.llm import runner
runner.stop_on_signals()
process = runner.shared_process(Path("m.gguf"), 2, 4096)
process.command = sys.argv[2:]
process.url()
print(process.process.pid, flush=True)
if sys.argv[1] != "exit":
    time.sleep(60)
"""


@pytest.mark.parametrize("end", ["exit", "SIGTERM", "SIGKILL"])
def test_no_model_process_outlives_the_app(end, tmp_path):
    """The app exits normally, is terminated, or is killed outright: the model goes too."""
    app = subprocess.Popen(
        [sys.executable, "-c", APP, end, *FAKE_SERVER],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=os.environ | {"PYTHONPATH": str(REPO)},
    )
    model_pid = int(app.stdout.readline())
    if end != "exit":
        assert alive(model_pid)
        app.send_signal(getattr(signal, end))
    app.wait(10)
    assert wait_until(lambda: not alive(model_pid), timeout=5), f"model process left after {end}"


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(") ", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def test_the_real_ui_survives_its_model_being_killed_and_leaves_no_model_behind(seed_index):
    """`rag ui` on the bundled model: answers come from the model; `kill -9` of the model
    process mid-answer gives a visible extractive fallback and the UI lives on; the next answer
    comes from the restarted model; stopping the UI stops the model."""
    from gradio_client import Client

    port = free_port()
    env = os.environ | {
        "RAG_DATA_DIR": str(seed_index.data_dir),
        "RAG_LLM_BACKEND": "local",
        "RAG_UI_PORT": str(port),
    }
    ui = subprocess.Popen([sys.executable, "-m", "rag", "ui"], env=env, cwd=REPO)
    try:
        assert wait_until(lambda: serving(port) and model_pid(ui.pid), timeout=180)
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        first = client.predict(PRICING_QUESTION, api_name="/ask")
        assert first["backend"] == "local" and not first["notices"]
        assert PRICING in [c["title"] for c in first["citations"]]

        model = model_pid(ui.pid)
        # a topic overview reads five clipped abstracts (~1,000 prompt tokens): tens of seconds
        job = client.submit("continual learning", api_name="/summarize")
        time.sleep(2)  # the model is reading the prompt
        os.kill(model, signal.SIGKILL)
        fallback = job.result(timeout=300)
        assert fallback["backend"] == "extractive" and fallback["citations"]
        assert "killed by SIGKILL" in fallback["notices"][0]

        after = client.predict(PRICING_QUESTION, api_name="/ask")
        assert after["backend"] == "local" and not after["notices"]
        restarted = model_pid(ui.pid)
        assert restarted and restarted != model and ui.poll() is None
    finally:
        ui.terminate()
        ui.wait(30)
    assert wait_until(lambda: not alive(restarted), timeout=10), "the model outlived the UI"


def model_pid(parent: int) -> int | None:
    for pid in children(parent):
        if "rag.llm.serve" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace"):
            return pid
    return None


def serving(port: int) -> bool:
    import httpx

    try:
        return httpx.get(f"http://127.0.0.1:{port}/", timeout=2).is_success
    except httpx.HTTPError:
        return False
