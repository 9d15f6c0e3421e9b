"""Concurrent chats through the API queue behind the model: never more answers generated at
once than `ui_concurrency` allows. `python -m benchmarks.load` measures the latencies."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rag.answer.pipeline import Answerer
from rag.llm.fake import FakeBackend
from tests.conftest import FORGETTING_QUESTION, PRICING_QUESTION, free_port
from ui.app import Chat, launch

CHATS = 6
GENERATION_S = 0.3  # long enough that unqueued generations would visibly overlap


class CountingFake(FakeBackend):
    """The fake backend taking a model's time, counting the generations that run at once."""

    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()
        self.now = self.most = 0

    def stream(self, prompt):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            time.sleep(GENERATION_S)
            yield from super().stream(prompt)
        finally:
            with self.lock:
                self.now -= 1


@pytest.mark.slow
@pytest.mark.parametrize("concurrency", [1, 2])  # the default, and a control that overlaps
def test_concurrent_chats_queue_behind_the_model_and_cite_what_they_retrieved(
    seed_index, retriever, concurrency
):
    from gradio_client import Client

    model = CountingFake()
    settings = seed_index.model_copy(
        update={"ui_port": free_port(), "ui_concurrency": concurrency, "llm_backend": "fake"}
    )
    answerer = Answerer(settings, retriever=retriever, backend=model)
    chat = Chat(settings, retriever, {"fake": None}, answerers={"fake": answerer})
    demo = launch(settings, chat, block=False)
    try:
        clients = [Client(demo.local_url, verbose=False) for _ in range(CHATS)]
        start_together = threading.Barrier(CHATS)

        def ask(number: int) -> dict:
            start_together.wait()
            question = (PRICING_QUESTION, FORGETTING_QUESTION)[number % 2]
            return clients[number].predict(question, api_name="/ask")

        with ThreadPoolExecutor(CHATS) as pool:
            results = list(pool.map(ask, range(CHATS)))
    finally:
        demo.close()

    for result in results:
        retrieved = {source["title"] for source in result["sources"]}
        assert result["citations"] and {c["title"] for c in result["citations"]} <= retrieved
    assert model.most == concurrency  # queued up to the limit, and never past it
