"""Concurrent chats against the `/ask` API: completed and failed requests, latency p50/p95,
wall time, throughput, and the most answers that were generated at once.

    python -m benchmarks.load --backend extractive -n 20   # launches the app on a free loopback port
    python -m benchmarks.load --backend local -n 20        # ~13 s an answer, one at a time
    python -m benchmarks.load --url http://127.0.0.1:7860/ -n 20 --turns 2

Each chat asks a different dev-set question (with the history the dev set gives it); `--turns 2`
adds a follow-up that sends the conversation so far as `history`. All chats start together.
Answers share one queue (`settings.ui_concurrency`, default 1) so the local model is never
oversubscribed. To show that, rather than infer it from latencies, the app this script launches
counts the answers in flight inside its Answerer; a `--url` app is not ours to instrument, so
there the count is not reported.
"""

import argparse
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

from rag.answer.pipeline import Answerer
from rag.config import Settings
from rag.evaluate import Question, load_questions, percentile
from rag.llm import LLMBackend, load_backend
from rag.models import Answer

QUESTIONS = Path(__file__).resolve().parent.parent / "eval" / "questions.jsonl"
FOLLOW_UPS = [
    "What data or experiments does it report?",
    "What are its main limitations?",
    "Who are the authors?",
]


class InFlight:
    """How many answers are being generated now, and the most that ever were at once."""

    def __init__(self):
        self._lock = threading.Lock()
        self.now = self.most = self.started = 0

    @contextmanager
    def running(self) -> Iterator[None]:
        with self._lock:
            self.now += 1
            self.started += 1
            self.most = max(self.most, self.now)
        try:
            yield
        finally:
            with self._lock:
                self.now -= 1

    def reset(self) -> None:
        """Forget the warm-up: count from here."""
        with self._lock:
            self.most, self.started = self.now, 0


class CountedAnswerer(Answerer):
    """The product's Answerer, unchanged, except that its answers are counted while they run.

    A whole answer (retrieval, follow-up rewriting, generation, checks) is what the queue
    admits, so counting it bounds the model's concurrency from above, and overlapping answers
    stay visible even when the model part is short (the fake backend)."""

    def __init__(self, *args, in_flight: InFlight, **kwargs):
        super().__init__(*args, **kwargs)
        self.in_flight = in_flight

    def ask(self, *args, **kwargs) -> Iterator[str | Answer]:
        with self.in_flight.running():
            yield from super().ask(*args, **kwargs)

    def summarize(self, *args, **kwargs) -> Iterator[str | Answer]:
        with self.in_flight.running():
            yield from super().summarize(*args, **kwargs)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(settings: Settings, backend: str, retriever=None, model: LLMBackend | None = None):
    """Launch the app on a free loopback port answering with `backend` (or `model`, offered
    under that name), its answers counted; returns the app and its counter."""
    from rag.retrieve import Retriever
    from ui.app import Chat, launch

    settings = settings.model_copy(
        update={
            "ui_host": "127.0.0.1",
            "ui_port": free_port(),
            "ui_username": None,
            "ui_password": None,
            "llm_backend": backend,
        }
    )
    retriever = retriever or Retriever(settings)
    model = model or load_backend(backend, settings, retriever.embedder)
    model.check()  # an unavailable backend stops here with its reason
    in_flight = InFlight()
    answerer = CountedAnswerer(settings, retriever=retriever, backend=model, in_flight=in_flight)
    chat = Chat(
        settings, retriever=retriever, backends={backend: None}, answerers={backend: answerer}
    )
    return launch(settings, chat, block=False), in_flight


@dataclass
class Request:
    """One `/ask` call as a client saw it."""

    chat: int
    turn: int
    question: str
    started: float
    finished: float = 0.0
    result: dict | None = None
    error: str | None = None

    @property
    def latency_s(self) -> float:
        return self.finished - self.started

    @property
    def waited_s(self) -> float:
        """Time not spent answering (queue and transport): client latency minus the server's."""
        return self.latency_s - self.result["latency_s"]


@dataclass
class Report:
    """What a load run measured; `summary()` gives the numbers."""

    requests: list[Request]
    wall_s: float
    most_in_flight: int | None = None  # None when the app is not ours to instrument
    answers: int | None = None  # answers the server started (warm-up excluded)
    labels: dict = field(default_factory=dict)  # what was run: backend, chats, turns

    @property
    def completed(self) -> list[Request]:
        return [r for r in self.requests if r.error is None]

    @property
    def failed(self) -> list[Request]:
        return [r for r in self.requests if r.error is not None]

    def most_open(self) -> int:
        """The most requests open at once, seen from the clients."""
        edges = sorted(
            [(r.started, 1) for r in self.requests] + [(r.finished, -1) for r in self.requests]
        )
        open_now = most = 0
        for _, step in edges:
            open_now += step
            most = max(most, open_now)
        return most

    def summary(self) -> dict:
        latencies = [r.latency_s for r in self.completed]
        service = [r.result["latency_s"] for r in self.completed]
        waits = [r.waited_s for r in self.completed]

        def rounded(value):
            return None if value is None else round(value, 3)

        return {
            **self.labels,
            "completed": len(self.completed),
            "failed": len(self.failed),
            "abstained": sum(r.result["abstained"] for r in self.completed),
            "latency_p50_s": rounded(percentile(latencies, 50)),
            "latency_p95_s": rounded(percentile(latencies, 95)),
            "service_p50_s": rounded(percentile(service, 50)),
            "wait_max_s": rounded(max(waits, default=None)),
            "wall_s": round(self.wall_s, 3),
            "answers_per_s": round(len(self.completed) / self.wall_s, 3),
            "most_open_requests": self.most_open(),
            "most_in_flight": self.most_in_flight,
            "answers": self.answers,
            "errors": sorted({r.error for r in self.failed}),
        }


def converse(client, chat: int, question: Question, turns: int, backend: str) -> list[Request]:
    """One chat: the question (with its dev-set history), then follow-ups on the answers."""
    history = [turn.model_dump() for turn in question.history]
    asked, done = question.question, []
    for turn in range(1, turns + 1):
        request = Request(chat, turn, asked, time.perf_counter())
        try:
            request.result = client.predict(asked, history, backend, 0, "", "", "", api_name="/ask")
        except Exception as error:  # noqa: BLE001 - a failed request is a result here
            request.error = f"{type(error).__name__}: {error}"
        request.finished = time.perf_counter()
        done.append(request)
        if request.error:
            break
        history += [
            {"role": "user", "content": asked},
            {"role": "assistant", "content": request.result["answer"]},
        ]
        asked = FOLLOW_UPS[(turn - 1) % len(FOLLOW_UPS)]
    return done


def run_load(
    url: str,
    questions: list[Question],
    chats: int = 20,
    turns: int = 1,
    backend: str = "",
    in_flight: InFlight | None = None,
) -> Report:
    """`chats` concurrent chats against the app at `url`, each a different question."""
    from gradio_client import Client

    clients = [Client(url, verbose=False) for _ in range(chats)]  # connected before the clock
    picked = [questions[number % len(questions)] for number in range(chats)]
    start_together = threading.Barrier(chats)

    def one_chat(number: int) -> list[Request]:
        start_together.wait()
        return converse(clients[number], number, picked[number], turns, backend)

    if in_flight:
        in_flight.reset()
    started = time.perf_counter()
    with ThreadPoolExecutor(chats) as pool:
        requests = [request for chat in pool.map(one_chat, range(chats)) for request in chat]
    wall_s = time.perf_counter() - started
    return Report(
        requests,
        wall_s,
        most_in_flight=in_flight.most if in_flight else None,
        answers=in_flight.started if in_flight else None,
        labels={"backend": backend or "(app default)", "chats": chats, "turns": turns},
    )


def print_table(summary: dict, concurrency: int | None) -> None:
    def seconds(value) -> str:
        return "-" if value is None else f"{value:.2f} s"

    in_flight = (
        f"{summary['most_in_flight']} ({summary['answers']} answers; ui_concurrency {concurrency})"
        if summary["most_in_flight"] is not None
        else "not measured (--url)"
    )
    rows = [
        ("backend", f"{summary['backend']}: {summary['chats']} chats, {summary['turns']} turn(s)"),
        ("completed", f"{summary['completed']} ({summary['abstained']} abstained)"),
        ("failed", summary["failed"]),
        (
            "latency p50 / p95",
            f"{seconds(summary['latency_p50_s'])} / {seconds(summary['latency_p95_s'])}",
        ),
        ("answering p50", f"{seconds(summary['service_p50_s'])} (server side; the rest waits)"),
        ("longest wait", seconds(summary["wait_max_s"])),
        ("wall time", seconds(summary["wall_s"])),
        ("throughput", f"{summary['answers_per_s']:.2f} answers/s"),
        ("requests open at once", summary["most_open_requests"]),
        ("answers at once", in_flight),
    ]
    for name, value in rows:
        print(f"{name:<22} {value}")
    for error in summary["errors"]:
        print(f"error: {error}")


def measure(args) -> tuple[Report, int | None]:
    """Launch the app unless --url names one, warm it up, then run the chats."""
    from gradio_client import Client

    questions = load_questions(args.questions)
    demo, in_flight, concurrency, url = None, None, None, args.url
    if not url:
        settings = Settings(**({"data_dir": args.data_dir} if args.data_dir else {}))
        demo, in_flight = serve(settings, args.backend)
        concurrency, url = settings.ui_concurrency, demo.local_url
    try:
        # Load the model and warm the caches outside the measurement.
        warm_up = Client(url, verbose=False)
        warm_up.predict(questions[0].question, [], args.backend, api_name="/ask")
        report = run_load(url, questions, args.chats, args.turns, args.backend, in_flight)
        return report, concurrency
    finally:
        if demo:
            demo.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running app; default: launch one on a free port")
    parser.add_argument("--backend", choices=["extractive", "local", "fake"], default="extractive")
    parser.add_argument("-n", "--chats", type=int, default=20, help="concurrent chats")
    parser.add_argument("--turns", type=int, default=1, help="questions per chat")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--data-dir", type=Path, help="the index to serve (default: settings)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    with redirect_stdout(sys.stderr):  # the app's own messages; stdout is for the numbers
        report, concurrency = measure(args)
    summary = report.summary()
    if args.json:
        print(json.dumps(summary | {"ui_concurrency": concurrency}, indent=2))
    else:
        print_table(summary, concurrency)


if __name__ == "__main__":
    main()
