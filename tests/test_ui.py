"""The chat UI: handlers with the fake backend (over the seeds indexed with the fake embedder
where ranking is not the point), the API through gradio_client, safe rendering."""

import html

import gradio as gr
import pytest

from rag.answer.pipeline import Answerer
from rag.config import Settings
from rag.errors import ConfigError
from rag.export import escape
from rag.llm import BackendError
from rag.llm.fake import FakeBackend
from rag.models import Answer
from rag.tuning import AnswerTuning
from tests.conftest import PRICING, PRICING_QUESTION, free_port
from ui import render
from ui.app import Chat, auth_for, launch

BACKENDS = {"fake": None, "extractive": None, "local": "the model file is missing"}


def chat_with(index, retriever, reply: str | None = None, backend=None) -> Chat:
    answerer = Answerer(index, retriever=retriever, backend=backend or FakeBackend(reply=reply))
    return Chat(index, retriever=retriever, backends=BACKENDS, answerers={"fake": answerer})


def last(events):
    *_, final = events
    return final


def turn(chat, question, turns=(), backend="fake", k=5, *filters):
    """One turn as the page runs it: post the question, then stream the answer; returns every
    (messages, turns) the chat showed, and the question box after posting."""
    _, posted, box, _ = chat.post(question, list(turns))
    return list(chat.respond(posted, backend, k, *filters)), box


def ask(chat, question, turns=(), backend="fake", k=5, *filters):
    """The chat after one turn: (messages, turns)."""
    events, _ = turn(chat, question, turns, backend, k, *filters)
    return events[-1]


def test_a_turn_streams_a_draft_then_the_checked_answer_and_its_sources(fake_index, fake_retriever):
    chat = chat_with(fake_index, fake_retriever)
    posted, turns, box, stop = chat.post(PRICING_QUESTION, [])
    assert [m["role"] for m in posted] == ["user"] and box == ""  # shown at once, even queued
    assert turns[0].status == "waiting" and stop["interactive"]  # Stop is offered now
    events = list(chat.respond(turns, "fake", 5))
    drafts = [messages[-1]["content"] for messages, _ in events[:-1]]
    assert len(drafts) > 3 and all(d.endswith(render.GENERATING) for d in drafts)
    assert events[-2][1][0].status == "writing" and events[-2][1][0].draft  # the draft is kept
    messages, turns = events[-1]
    assert [m["role"] for m in messages] == ["user", "assistant", "assistant"]
    assert turns[0].status == "answered" and not turns[0].answer.abstained
    label, reply = messages[1]["content"], messages[2]["content"]
    assert label.startswith("###### Answer 1 · *sources shown* · test model · ")  # no copy
    assert reply.startswith("BayesCoxCP") or "[1]" in reply
    assert f"[1]\n\n**References**\n\n1. **{escape(PRICING)}**" in reply
    assert "<" not in reply and " s*" not in reply  # clean Markdown, without the badge
    shown, sources, markdown, bibtex, whole, copy_md, copy_bib, download = chat.panel(turns)
    assert shown == 0 and sources.startswith('<p class="rag-for">Sources of answer 1: ')
    assert render.inert(PRICING) in sources and "<mark>" in sources
    assert markdown == reply and f"title = {{{PRICING}}}" in bibtex
    assert whole.startswith("# Conversation") and f"## 1. {escape(PRICING_QUESTION)}" in whole
    assert copy_md["interactive"] and copy_bib["interactive"] and download["interactive"]


def test_with_nothing_answered_the_copy_buttons_are_off(fake_index, fake_retriever):
    chat = chat_with(fake_index, fake_retriever)
    *_, copy_md, copy_bib, download = chat.panel([])
    assert not (copy_md["interactive"] or copy_bib["interactive"] or download["interactive"])


def test_follow_up_sees_the_earlier_turn(fake_index, fake_retriever):
    backend = FakeBackend()
    chat = chat_with(fake_index, fake_retriever, backend=backend)
    messages, turns = ask(chat, PRICING_QUESTION)
    messages, turns = ask(chat, "What data does it use?", turns)
    assert len(messages) == 6 and len(turns) == 2
    assert turns[1].answer.sources[0].paper.title == PRICING


def test_a_decline_shows_its_close_papers_in_the_chat_and_an_off_topic_one_none(
    seed_index, retriever
):
    chat = chat_with(seed_index, retriever)
    messages, turns = ask(chat, "What is the best recipe for sourdough?")
    assert turns[0].answer.abstained and turns[0].answer.suggestions == []
    assert messages[-1]["content"] == "The provided papers do not answer this question."
    assert "no paper is close to it" in chat.panel(turns)[1]
    question = "Which papers study quantum error correction in superconducting qubits?"
    messages, turns = ask(chat, question)
    [declined] = [t.answer for t in turns]
    assert declined.abstained and declined.suggestions  # close enough to offer
    shown = messages[-1]["content"]
    assert "listed as suggestions" not in shown and "\n\nThe closest papers:\n\n- **" in shown
    assert all(
        s.relevance >= chat.settings.answer.suggestion_relevance for s in declined.suggestions
    )
    assert escape(declined.suggestions[0].paper.title) in shown


def test_unsupported_sentences_are_marked_in_the_answer(fake_index, fake_retriever):
    reply = (
        "BayesCoxCP is a Bayesian approach to the proportional hazards model for pricing [1]. "
        "It was trained on photographs of household pets with deep convolutional networks [1]."
    )
    chat = chat_with(fake_index, fake_retriever, reply=reply)
    messages, turns = ask(chat, PRICING_QUESTION)
    assert turns[0].answer.unsupported_sentences
    assert "networks. [1] *(not supported by the cited abstract)*" in messages[-1]["content"]


def test_filters_and_k_reach_retrieval(fake_index, fake_retriever):
    chat = chat_with(fake_index, fake_retriever)
    _, turns = ask(chat, "Which papers use neural networks?", (), "fake", 2, "Deyu Meng")
    answer = turns[0].answer
    assert turns[0].filters == {"author": "Deyu Meng"}
    shown = answer.sources or answer.suggestions
    assert 1 <= len(shown) <= 2
    for source in shown:
        assert any("Deyu Meng" in author for author in source.paper.authors)


def test_unavailable_backend_and_failures_show_a_message_not_a_traceback(
    fake_index, fake_retriever, monkeypatch
):
    chat = chat_with(fake_index, fake_retriever)
    messages, turns = ask(chat, PRICING_QUESTION, (), "local")
    assert "model file is missing" in messages[-1]["content"]
    assert [t.status for t in turns] == ["failed"]

    def broken(*args, **kwargs):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(fake_retriever, "search", broken)
    messages, _ = ask(chat_with(fake_index, fake_retriever), PRICING_QUESTION)
    assert "⚠ Something went wrong (RuntimeError)" in messages[-1]["content"]
    assert "Traceback" not in messages[-1]["content"] and "kaboom" not in messages[-1]["content"]


def test_backend_failing_mid_answer_falls_back_visibly(fake_index, fake_retriever):
    class Dies(FakeBackend):
        def stream(self, prompt):
            yield "BayesCoxCP prices "
            raise BackendError("the server closed the stream")

    chat = chat_with(fake_index, fake_retriever, backend=Dies())
    messages, turns = ask(chat, PRICING_QUESTION)
    answer = turns[0].answer
    assert answer.backend == "extractive" and answer.fallback_from == "fake"
    assert "> ⚠ The fake backend failed: the server closed the stream" in messages[-1]["content"]
    assert (
        "⚠ sentences from the abstracts · no model · the test model failed"
        in messages[-2]["content"]
    )  # the label says so too


def test_stop_keeps_the_partial_draft_marked_as_stopped(fake_index, fake_retriever):
    class Closable(FakeBackend):
        closed = False

        def stream(self, prompt):
            try:
                yield from super().stream(prompt)
            finally:
                Closable.closed = True

    chat = chat_with(fake_index, fake_retriever, backend=Closable())
    _, posted, _, _ = chat.post(PRICING_QUESTION, [])
    events = chat.respond(posted, "fake", 5)
    next(events)  # the first words of the draft
    messages, turns = next(events)
    events.close()  # what Gradio does to the generation when Stop cancels it
    assert Closable.closed  # the backend's stream was ended (a server sees the client leave)
    stopped, turns = chat.stop(turns)
    draft = messages[-1]["content"].removesuffix(render.GENERATING)
    assert stopped[-1]["content"] == draft + render.STOPPED
    assert [t.status for t in turns] == ["stopped"]  # no checked answer, and no sources
    done, done_turns = ask(chat, PRICING_QUESTION, turns)
    assert chat.stop(done_turns) == (gr.skip(), gr.skip())  # nothing left to stop
    assert "###### Answer 1 ·" in done[-2]["content"]  # the stopped turn has no number
    assert chat.panel(done_turns)[1].startswith('<p class="rag-for">Sources of answer 1: ')
    assert "## 1. " in chat.panel(done_turns)[4] and "## 2." not in chat.panel(done_turns)[4]


def test_stop_while_the_question_waits_in_the_queue(fake_index, fake_retriever):
    chat = chat_with(fake_index, fake_retriever)
    _, posted, _, _ = chat.post(PRICING_QUESTION, [])
    stopped, turns = chat.stop(posted)
    assert [m["role"] for m in stopped] == ["user", "assistant"]
    assert [t.status for t in turns] == ["stopped"] and stopped[-1]["content"] == render.STOPPED
    assert list(chat.respond(turns, "fake", 5)) == []  # the queued answer then writes nothing


def test_empty_question_makes_no_turn(fake_index, fake_retriever):
    chat = chat_with(fake_index, fake_retriever)
    with pytest.warns(UserWarning, match="type a question"):
        messages, turns, box, _ = chat.post("   ", [])
    assert messages == gr.skip() and turns == gr.skip() and box == "   "
    assert list(chat.respond([], "fake", 5)) == []


def test_selecting_an_earlier_answer_shows_its_sources_and_exports(fake_index, fake_retriever):
    chat = chat_with(fake_index, fake_retriever)
    messages, turns = ask(chat, PRICING_QUESTION)
    messages, turns = ask(chat, "Which papers study continual learning?", turns)
    assert chat.panel(turns)[0] == 1  # the latest answer by default
    assert "*sources shown*" in messages[4]["content"] and "shown" not in messages[1]["content"]
    for clicked in (1, 2):  # the first answer's label, or the answer itself
        picked, marked = chat.select(turns, gr.SelectData(None, {"index": clicked, "value": ""}))
        assert picked == 0
        assert "###### Answer 1 · *sources shown*" in marked[1]["content"]
        assert "sources shown" not in marked[4]["content"]
    shown, sources, markdown, bibtex, *_ = chat.panel(turns, picked)
    assert shown == 0 and "Sources of answer 1:" in sources
    assert render.inert(PRICING) in sources and escape(PRICING) in markdown
    assert bibtex.count("@") == 1 and PRICING in bibtex


def test_papers_table_filters_and_summary(fake_index, fake_retriever):
    chat = chat_with(fake_index, fake_retriever)
    assert len(chat.papers()) == 58
    rows = chat.papers("pricing hazards")
    assert [row[0] for row in rows] == [PRICING]
    summary, sources = last(chat.summarize(PRICING, "fake"))
    assert f"1. **{escape(PRICING)}**" in summary and render.inert(PRICING) in sources


def test_the_paper_picked_follows_the_filter_and_the_button_says_what_it_summarizes(
    fake_index, fake_retriever
):
    from ui.app import build
    from ui.papers import summary_button

    chat = chat_with(fake_index, fake_retriever)
    config = build(chat).get_config_file()
    [paper] = [c["props"] for c in config["components"] if c["props"].get("elem_id") == "paper"]
    [button] = [
        c["props"] for c in config["components"] if c["props"].get("elem_id") == "summarize"
    ]
    assert paper.get("value") in (None, "", [])  # nothing picked until a row is clicked
    assert (
        button["value"] == "Cited summary: click a paper's row first" and not button["interactive"]
    )
    narrowed = chat.paper_choices("pricing hazards", None)
    assert narrowed["choices"] == [PRICING] and narrowed["value"] is None
    assert chat.paper_choices("pricing", PRICING)["value"] == PRICING  # still shown: kept
    assert chat.paper_choices("continual", PRICING)["value"] is None  # hidden: no longer picked
    assert summary_button(PRICING)["interactive"]
    assert summary_button(PRICING)["value"].startswith("Cited summary of “A Bayesian Approach")


def test_the_filters_on_are_chips_and_a_decline_under_them_offers_to_ask_without(
    fake_index, fake_retriever
):
    from ui.turns import Turn

    chat = chat_with(fake_index, fake_retriever)
    author, area, venue, retry = chat.chips([], "", "Applications", "")
    assert not author["visible"] and not venue["visible"] and not retry["visible"]
    assert area["visible"] and area["value"] == "Area: Applications ✕"
    declined = Answer(question="q?", text="No.", abstained=True, backend="fake")
    turns = [Turn(question="q?", status="answered", answer=declined, filters={"area": "App"})]
    assert chat.chips(turns, "", "App", "")[-1]["visible"]  # "Ask again without filters"
    assert chat.unfiltered(turns) == ("", "", "", "q?")  # filters cleared, the question again
    from ui.turns import messages

    shown = messages(turns)[-1]["content"]
    assert "> Asked with filters on (area “App”): papers outside them were not searched." in shown
    unfiltered = [turns[0].model_copy(update={"filters": {}})]
    assert not chat.chips(unfiltered, "", "", "")[-1]["visible"]


def test_the_label_says_what_wrote_the_answer_in_the_readers_words():
    listed = Answer(question="q", text="t", backend="list", latency_s=0.4, ttft_s=0.1)
    assert render.badge(listed) == "list of papers · no model"
    local = Answer(question="q", text="t", backend="local", latency_s=3.14, ttft_s=1.0)
    assert render.badge(local) == "local model · 3.1 s"
    venue = Answer(question="q", text="t", backend="metadata", latency_s=0.02, ttft_s=0.01)
    assert render.badge(venue) == "the paper's metadata · no model"
    declined = Answer(question="q", text="t", backend="local", abstained=True, latency_s=0.01)
    assert render.badge(declined) == "declined before any model ran · no model"
    fallback = Answer(
        question="q",
        text="t",
        backend="extractive",
        fallback_from="local",
        ttft_s=2,
        reasons=["backend_failed"],
    )
    assert (
        render.badge(fallback)
        == "⚠ sentences from the abstracts · no model · the local model failed"
    )
    withheld = fallback.model_copy(update={"reasons": ["extracted"]})  # the model ran
    assert render.badge(withheld) == (
        "sentences from the abstracts · no model · the local model's draft withheld"
    )


def test_abstracts_show_their_emphasis_and_numbers_as_text(fake_index, fake_retriever):
    bisecle = next(p for p in fake_retriever.catalog.papers() if p.title.startswith("Bisecle"))
    card = render.paper_card(1, fake_retriever.source_for(bisecle.paper_id))
    assert "<strong>Bi</strong>nding" in card and "**" not in card and "&#42;" not in card
    assert render.inert("by up to $22.6$% and $\\textbf{27}$\\%") == "by up to 22.6% and 27%"
    assert render.inert("**[click](http://evil.example)**", emphasis=True) == (
        "<strong>&#91;click&#93;&#40;http://evil.example&#41;</strong>"
    )  # bold, nothing else


def test_long_author_lists_are_shortened_in_the_table_but_still_searched(
    fake_index, fake_retriever
):
    chat = chat_with(fake_index, fake_retriever)
    paper = max(chat.retriever.catalog.papers(), key=lambda p: len(p.authors))
    assert len(paper.authors) > 3
    [row] = [r for r in chat.papers(paper.authors[-1]) if r[0] == paper.title]
    assert row[1] == ", ".join(paper.authors[:3]) + " et al."


def test_text_is_rendered_inert():
    hostile = (
        "<script>alert(1)</script> ![x](http://evil.example/a.png) [click](http://evil.example)"
    )
    from markdown_it import MarkdownIt  # CommonMark, as the chat's renderer reads it

    shown = MarkdownIt("commonmark").render(render.question_md(hostile))
    assert shown == f"<p>{html.escape(hostile, quote=False)}</p>\n"  # the text, nothing else
    for dangerous in ("<script", "](", "!["):
        assert dangerous not in render.inert(hostile)
    assert render.question_md("It's **Bi**nding") == r"It's \*\*Bi\*\*nding"  # no &#x27;
    assert render.inert("**Bi**nding") == "&#42;&#42;Bi&#42;&#42;nding"
    assert render.inert("It's") == "It&#x27;s"  # one entity, which the browser shows as '
    assert render.link("javascript:alert(1)") == ""
    assert ">https://openreview.net/forum?id=1<" in render.link("https://openreview.net/forum?id=1")


def test_latex_is_left_for_katex_and_latex_text_commands_become_plain():
    text = r"Regret $\widetilde{O}(T^{2/3})$ for 10\% of **Bi**nding, costing $5."
    assert render.question_md(text) == (
        r"Regret $\widetilde{O}(T^{2/3})$ for 10% of \*\*Bi\*\*nding, costing &#36;5."
    )
    assert render.inert(text).startswith(r"Regret $\widetilde{O}(T^{2/3})$ for 10% of &#42;&#42;Bi")


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
def test_api_returns_the_answer_and_its_citations_as_data(served, capfd, caplog):
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
    refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refused) == 2 and "Traceback" not in capfd.readouterr().err  # one line each


def test_api_input_out_of_range_is_clamped_or_explained(fake_index, fake_retriever):
    chat = chat_with(fake_index, fake_retriever)
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

    settings = settings.model_copy(update={"answer": AnswerTuning(min_relevance=0.0)})
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


def test_the_area_filter_says_how_many_papers_have_an_area(fake_index, fake_retriever):
    from ui.app import build

    chat = chat_with(fake_index, fake_retriever)
    with_area = sum(1 for paper in chat.retriever.catalog.papers() if paper.area)
    config = build(chat).get_config_file()
    [area] = [c["props"] for c in config["components"] if c["props"].get("label") == "Area"]
    assert area["info"].startswith(f"{with_area} of 58 papers have an area")
    assert 0 < with_area < 58


def test_example_questions_are_offered_only_where_the_index_answers_them(
    seed_index, retriever, settings, tmp_path
):
    from rag.index import run_ingest
    from tests.conftest import abstract, write_jsonl
    from ui.app import EXAMPLES

    assert chat_with(seed_index, retriever).examples() == EXAMPLES
    corpus = write_jsonl(
        tmp_path / "cooking.jsonl",
        [{"title": f"Bread {n}", "abstract": abstract(f"sourdough baking {n}")} for n in range(3)],
    )
    run_ingest(settings, [corpus], show_progress=False)
    assert Chat(settings, backends={"fake": None}).examples() == []
