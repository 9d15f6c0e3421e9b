"""The load benchmark, bounded: concurrent chats through the API queue behind one model slot."""

import time

import pytest

from benchmarks.load import QUESTIONS, run_load, serve
from rag.evaluate import load_questions
from rag.llm.fake import FakeBackend

GENERATION_S = 0.3  # long enough that unqueued generations would visibly overlap


class SlowFake(FakeBackend):
    """The fake backend taking a model's time, so overlapping generations would be seen."""

    def stream(self, prompt):
        time.sleep(GENERATION_S)
        yield from super().stream(prompt)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("concurrency", "chats", "turns"),
    [(1, 8, 1), (2, 4, 2)],  # the default, and a control (with follow-ups) that overlaps
)
def test_concurrent_chats_queue_behind_the_model_and_cite_what_they_retrieved(
    seed_index, retriever, concurrency, chats, turns
):
    settings = seed_index.model_copy(update={"ui_concurrency": concurrency})
    demo, in_flight = serve(settings, "fake", retriever=retriever, model=SlowFake())
    try:
        questions = load_questions(QUESTIONS)
        report = run_load(demo.local_url, questions, chats, turns, "fake", in_flight)
    finally:
        demo.close()

    assert report.failed == [] and len(report.completed) == chats * turns
    for request in report.completed:
        retrieved = {source["title"] for source in request.result["sources"]}
        assert {c["title"] for c in request.result["citations"]} <= retrieved
    assert sum(bool(r.result["citations"]) for r in report.completed) >= chats // 2

    # Never more answers at once than the queue allows, yet the counter sees as many as it does.
    summary = report.summary()
    assert report.most_in_flight == concurrency, summary
    assert report.answers == len(report.completed), summary
    # The chats really were concurrent: some requests waited for another's answer.
    assert report.most_open() > concurrency, summary
    assert max(r.waited_s for r in report.completed) >= GENERATION_S, summary
