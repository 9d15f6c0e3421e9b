"""The chat UI: handlers with the fake backend, the API through gradio_client, safe rendering."""

import gradio as gr
import pytest

from rag.answer.pipeline import Answerer
from rag.config import Settings
from rag.errors import ConfigError
from rag.llm import BackendError
from rag.llm.fake import FakeBackend
from rag.models import Answer
from tests.conftest import free_port
from tests.test_answer import PRICING, PRICING_QUESTION
from ui import render
from ui.app import Chat, auth_for, launch

BACKENDS = {"fake": None, "extractive": None, "local": "the model file is missing"}


def chat_with(seed_index, retriever, reply: str | None = None, backend=None) -> Chat:
    answerer = Answerer(
        seed_index, retriever=retriever, backend=backend or FakeBackend(reply=reply)
    )
    return Chat(seed_index, retriever=retriever, backends=BACKENDS, answerers={"fake": answerer})


def last(events):
    *_, final = events
    return final


def test_a_turn_streams_a_draft_then_the_checked_answer_and_its_sources(seed_index, retriever):
    chat = chat_with(seed_index, retriever)
    events = list(chat.respond(PRICING_QUESTION, [], [], "fake", 5))
    assert [m["role"] for m in events[0][0]] == ["user"]  # the question shows at once
    drafts = [messages[-1]["content"] for messages, *_ in events[1:-1]]
    assert len(drafts) > 3 and all("rag-draft" in d for d in drafts)
    messages, turns, sources, box = events[-1]
    assert [m["role"] for m in messages] == ["user", "assistant"] and box == ""
    assert isinstance(turns[0], Answer) and not turns[0].abstained
    reply = messages[-1]["content"]
    assert render.inert(PRICING) in reply and 'class="rag-cite">[1]' in reply
    assert render.inert(PRICING) in sources and "<mark>" in sources
    assert "fake ·" in reply  # backend and latency, discreetly


def test_follow_up_sees_the_earlier_turn(seed_index, retriever):
    backend = FakeBackend()
    chat = chat_with(seed_index, retriever, backend=backend)
    messages, turns, *_ = last(chat.respond(PRICING_QUESTION, [], [], "fake", 5))
    messages, turns, *_ = last(chat.respond("What data does it use?", messages, turns, "fake", 5))
    assert len(messages) == 4 and len(turns) == 2
    assert turns[1].sources[0].paper.title == PRICING


def test_abstention_shows_the_closest_papers_and_says_so(seed_index, retriever):
    chat = chat_with(seed_index, retriever)
    _, turns, sources, _ = last(chat.respond("Best sourdough bread recipe?", [], [], "fake", 5))
    assert turns[0].abstained
    assert "does not answer" in sources


def test_unsupported_sentences_are_marked_in_the_answer(seed_index, retriever):
    reply = (
        "BayesCoxCP is a Bayesian approach to the proportional hazards model for pricing [1]. "
        "It was trained on the ImageNet image classification benchmark with ResNets [1]."
    )
    chat = chat_with(seed_index, retriever, reply=reply)
    messages, turns, *_ = last(chat.respond(PRICING_QUESTION, [], [], "fake", 5))
    assert turns[0].unsupported_sentences
    assert "rag-unsupported" in messages[-1]["content"]


def test_filters_and_k_reach_retrieval(seed_index, retriever):
    chat = chat_with(seed_index, retriever)
    _, turns, *_ = last(
        chat.respond("Which papers use neural networks?", [], [], "fake", 2, "Deyu Meng", "", "")
    )
    answer = turns[0]
    assert len(answer.sources or answer.suggestions) <= 2
    for source in answer.sources:
        assert any("Deyu Meng" in author for author in source.paper.authors)


def test_unavailable_backend_and_failures_show_a_message_not_a_traceback(
    seed_index, retriever, monkeypatch
):
    chat = chat_with(seed_index, retriever)
    messages, turns, _, box = last(chat.respond(PRICING_QUESTION, [], [], "local", 5))
    assert "model file is missing" in messages[-1]["content"] and turns == [None]
    assert box == PRICING_QUESTION  # the question is kept to retry

    def broken(*args, **kwargs):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(retriever, "search", broken)
    messages, *_ = last(
        chat_with(seed_index, retriever).respond(PRICING_QUESTION, [], [], "fake", 5)
    )
    assert render.inert("Something went wrong (RuntimeError)") in messages[-1]["content"]
    assert "Traceback" not in messages[-1]["content"] and "kaboom" not in messages[-1]["content"]


def test_backend_failing_mid_answer_falls_back_visibly(seed_index, retriever):
    class Dies(FakeBackend):
        def stream(self, prompt):
            yield "BayesCoxCP prices "
            raise BackendError("the server closed the stream")

    chat = chat_with(seed_index, retriever, backend=Dies())
    messages, turns, *_ = last(chat.respond(PRICING_QUESTION, [], [], "fake", 5))
    assert turns[0].backend == "extractive"
    assert render.inert("closed the stream") in messages[-1]["content"]
    assert "rag-notice" in messages[-1]["content"]


def test_stop_keeps_the_partial_draft_marked_as_stopped(seed_index, retriever):
    class Closable(FakeBackend):
        closed = False

        def stream(self, prompt):
            try:
                yield from super().stream(prompt)
            finally:
                Closable.closed = True

    chat = chat_with(seed_index, retriever, backend=Closable())
    events = chat.respond(PRICING_QUESTION, [], [], "fake", 5)
    next(events), next(events)  # the question, then the first words of the draft
    messages, turns, *_ = next(events)
    events.close()  # what Gradio does to the generation when Stop cancels it
    assert Closable.closed  # the backend's stream was ended (a server sees the client leave)
    stopped, turns = chat.stop(messages, turns)
    assert (
        render.GENERATING not in stopped[-1]["content"] and "rag-stopped" in stopped[-1]["content"]
    )
    assert stopped[-1]["content"].startswith(
        messages[-1]["content"].split('<div class="rag-meta')[0]
    )
    assert turns == [None]  # the stopped turn has no checked answer, and no sources
    done, done_turns, *_ = last(chat.respond(PRICING_QUESTION, stopped, turns, "fake", 5))
    assert chat.stop(done, done_turns) == (gr.skip(), gr.skip())  # nothing left to stop


def test_empty_question_makes_no_turn(seed_index, retriever):
    chat = chat_with(seed_index, retriever)
    with pytest.warns(UserWarning, match="type a question"):
        messages, turns, _, _ = last(chat.respond("   ", [], [], "fake", 5))
    assert messages == [] and turns == []


def test_selecting_an_earlier_answer_shows_its_sources(seed_index, retriever):
    chat = chat_with(seed_index, retriever)
    messages, turns, *_ = last(chat.respond(PRICING_QUESTION, [], [], "fake", 5))
    messages, turns, *_ = last(
        chat.respond("Which papers study continual learning?", messages, turns, "fake", 5)
    )
    shown = chat.select(turns, gr.SelectData(None, {"index": 1, "value": ""}))
    assert render.inert(PRICING) in shown


def test_papers_table_filters_and_summary(seed_index, retriever):
    chat = chat_with(seed_index, retriever)
    assert len(chat.papers()) == 58
    rows = chat.papers("pricing hazards")
    assert [row[0] for row in rows] == [PRICING]
    summary, sources = last(chat.summarize(PRICING, "fake"))
    assert 'class="rag-cite">[1]' in summary and render.inert(PRICING) in sources


def test_text_is_rendered_inert():
    hostile = (
        "<script>alert(1)</script> ![x](http://evil.example/a.png) [click](http://evil.example)"
    )
    shown = render.inert(hostile)
    for dangerous in ("<script", "](", "![", "http://"):
        assert dangerous not in shown
    assert render.link("javascript:alert(1)") == ""
    assert ">https://openreview.net/forum?id=1<" in render.link("https://openreview.net/forum?id=1")


def test_binding_beyond_loopback_needs_a_password(settings):
    assert auth_for(settings) is None
    with pytest.raises(ConfigError, match="RAG_UI_PASSWORD"):
        auth_for(settings.model_copy(update={"ui_host": "0.0.0.0"}))
    secured = Settings(ui_host="0.0.0.0", ui_username="me", ui_password="s3cret")
    login = auth_for(secured)
    assert login("me", "s3cret") and not login("me", "wrong")


def test_failed_logins_in_a_row_wait_longer_each_time():
    from ui.app import Login

    waits = []
    login = Login("me", "s3cret", sleep=waits.append)
    assert [login("me", guess) for guess in ("a", "b", "c")] == [False] * 3
    assert waits == [1.0, 2.0, 3.0]
    assert login("me", "s3cret") and waits == [1.0, 2.0, 3.0]  # success: no wait, count reset
    login("me", "d")
    assert waits[-1] == 1.0


@pytest.fixture
def served(seed_index, retriever):
    """The app with the fake backend, launched on a free loopback port."""
    settings = seed_index.model_copy(update={"ui_port": free_port(), "llm_backend": "fake"})
    demo = launch(settings, Chat(settings, retriever=retriever, backends=BACKENDS), block=False)
    yield demo
    demo.close()


@pytest.mark.slow
def test_api_returns_the_answer_and_its_citations_as_data(served):
    from gradio_client import Client

    client = Client(served.local_url, verbose=False)
    result = client.predict(PRICING_QUESTION, api_name="/ask")
    assert result["citations"][0]["title"] == PRICING and "[1]" in result["answer"]
    assert result["sources"][0]["title"] == PRICING
    follow_up = client.predict(
        "What data does it use?",
        [
            {"role": "user", "content": PRICING_QUESTION},
            {"role": "assistant", "content": result["answer"]},
        ],
        api_name="/ask",
    )
    assert follow_up["citations"][0]["title"] == PRICING
    summary = client.predict(PRICING, api_name="/summarize")
    assert summary["citations"][0]["title"] == PRICING
    with pytest.raises(Exception, match="unavailable"):
        client.predict(PRICING_QUESTION, [], "local", api_name="/ask")
    with pytest.raises(Exception, match="history must be a list"):  # not {"error": null}
        client.predict(PRICING_QUESTION, ["not a turn"], api_name="/ask")


def test_api_input_out_of_range_is_clamped_or_explained(seed_index, retriever):
    chat = chat_with(seed_index, retriever)
    for k, used in ((-1, 1), (1_000_000, 20)):
        result = chat.api_ask(PRICING_QUESTION, k=k, backend="fake")
        assert f"using {used}" in " ".join(result["notices"])
        assert len(result["sources"]) <= used
    with pytest.raises(gr.Error, match="k must be a whole number"):
        chat.api_ask(PRICING_QUESTION, k="ten", backend="fake")
    with pytest.raises(gr.Error, match="history must be a list"):
        chat.api_ask(PRICING_QUESTION, history=[{"speaker": "me"}], backend="fake")


def test_an_ingest_while_the_app_serves_is_picked_up_before_the_next_question(settings, tmp_path):
    from rag.index import run_ingest
    from tests.conftest import abstract, write_jsonl

    settings = settings.model_copy(update={"min_relevance": 0.0})
    corpus = tmp_path / "c.jsonl"
    papers = [{"title": f"Paper {n}", "abstract": abstract(f"topic {n}")} for n in range(3)]
    write_jsonl(corpus, papers)
    run_ingest(settings, [corpus], show_progress=False)
    chat = Chat(settings, backends={"fake": None})
    first = chat.api_ask("topic 1", backend="fake")
    assert first["citations"]

    papers[1]["abstract"] = abstract("a changed topic 1")  # new paper id, old chunks deleted
    papers.append({"title": "Paper New", "abstract": abstract("brand new subject")})
    write_jsonl(corpus, papers)
    run_ingest(settings, [corpus], show_progress=False)

    changed = chat.api_ask("changed topic 1", backend="fake")  # no KeyError: reloaded
    assert "Paper 1" in {c["title"] for c in changed["citations"]}
    assert "Paper New" in [row[0] for row in chat.papers()]
    new = chat.api_ask("brand new subject", backend="fake")
    assert "Paper New" in {s["title"] for s in new["sources"]}


def test_a_busy_port_is_one_clear_error(settings):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        busy = settings.model_copy(update={"ui_port": taken.getsockname()[1]})
        with pytest.raises(ConfigError, match="is in use .*RAG_UI_PORT"):
            launch(busy, chat=None)
