"""The UI's parts used alone, with no `Chat`, page or browser: the answerer pool, the chat,
conversations, Papers and API handlers over a pool, and the loopback check."""

import pytest

from rag.errors import ConfigError
from tests.conftest import PRICING, PRICING_QUESTION
from ui import history
from ui.answerers import AnswererPool
from ui.api import ApiHandlers
from ui.chat import ChatHandlers
from ui.conversations import ConversationHandlers
from ui.papers import PapersHandlers
from ui.serving import is_loopback

BACKENDS = {"fake": None, "local": "the model file is missing"}


@pytest.fixture
def pool(fake_index, fake_retriever):
    return AnswererPool(
        fake_index.model_copy(update={"llm_backend": "local"}), fake_retriever, BACKENDS
    )


def test_the_pool_offers_usable_backends_and_says_why_the_others_are_not(pool):
    assert pool.usable() == ["fake"] and pool.default_backend() == "fake"
    assert pool.backend_notes() == "- **local** unavailable: the model file is missing"
    with pytest.raises(ConfigError, match="choose one of fake, local"):
        pool.answerer("nonesuch")
    with pytest.raises(ConfigError, match="local backend is unavailable: the model file"):
        pool.answerer("local")
    assert pool.answerer("fake") is pool.answerer("fake")  # made once, then shared


def test_each_handler_part_answers_from_a_pool_alone(pool, tmp_path):
    chat = ChatHandlers(pool)
    _, posted, _, _ = chat.post(PRICING_QUESTION, [])
    *_, (messages, turns) = chat.respond(posted, "fake", 5)
    assert [m["role"] for m in messages] == ["user", "assistant", "assistant"]
    assert turns[0].answer.citations[0].title == PRICING
    assert [row[0] for row in PapersHandlers(pool).papers("pricing hazards")] == [PRICING]
    answer = ApiHandlers(pool).api_ask(PRICING_QUESTION, backend="fake")
    assert answer["citations"][0]["title"] == PRICING

    saved = ConversationHandlers(pool, history.Conversations(tmp_path))
    browser, _, _, chat_id, _, backend, k, *_ = saved.restore("")
    assert backend == "fake"  # the configured backend is unavailable: the first usable one
    saved.save(browser, chat_id, turns, "", backend, k, "", "", "")
    assert saved.open(browser, chat_id)[1] == turns


def test_only_this_machine_counts_as_loopback():
    assert all(map(is_loopback, ["localhost", "127.0.0.1", "127.0.0.2", "::1"]))
    assert not any(map(is_loopback, ["0.0.0.0", "192.168.1.2", "example.org", ""]))


def test_the_sources_of_an_unstated_detail_are_the_paper_not_a_corpus_that_lacks_it():
    from rag.models import Answer, Paper, Source
    from ui import render

    paper = Paper(paper_id="p", title="EvA", title_source="metadata", abstract="x", source_file="f")
    suggested = [Source(paper=paper, passage="x", score=1.0, relevance=0.5)]
    unstated = Answer(
        question="what dataset does EvA use",
        backend="extractive",
        text="...",
        abstained=True,
        reason="not_stated",
        suggestions=suggested,
    )
    assert "abstract does not state" in render.cards_html(unstated)
    unrelated = unstated.model_copy(update={"reason": "not_relevant"})
    assert "The corpus does not answer" in render.cards_html(unrelated)
