"""Complete lists: a "which papers" answer searches deeper while its deepest candidates are still
accepted, says how many papers match, and gives the next ones when asked for more."""

import json
import re
from types import SimpleNamespace

import pytest

from benchmarks.synthetic import TOPIC_QUESTION, write_corpus
from rag.answer.conversation import asks_for_more, next_page
from rag.answer.listing import deep_enough
from rag.answer.pipeline import Answerer
from rag.config import Settings
from rag.index import run_ingest
from rag.llm.fake import FakeBackend
from rag.models import Message

QUESTION = "Which papers study continual learning?"


def turn(question: str, answer: str) -> list[Message]:
    return [Message(role="user", content=question), Message(role="assistant", content=answer)]


@pytest.mark.parametrize(
    "question", ["show more", "more", "More please", "the rest?", "show all of them", "next"]
)
def test_asking_for_more_is_told_from_a_question(question):
    assert asks_for_more(question)


@pytest.mark.parametrize(
    "question", ["more on pruning?", "which papers do all of this?", "what else", "show me FIRE"]
)
def test_a_question_with_a_topic_is_not_a_request_for_more(question):
    assert not asks_for_more(question)


def test_a_request_for_more_continues_the_list_question_with_what_was_shown():
    papers = [  # what the catalog gives: ids and titles
        SimpleNamespace(paper_id="a", title="A Paper About Continual Learning"),
        SimpleNamespace(paper_id="b", title="Another Paper On Forgetting"),
    ]
    history = [
        *turn(QUESTION, "A Paper About Continual Learning: it learns [1]."),
        *turn("show more", "Another Paper On Forgetting: it forgets [1]."),
    ]
    page = next_page("show all", history, papers)
    assert page.question == QUESTION and page.history == [] and page.everything
    assert page.shown == {"a", "b"}
    assert not next_page("show more", [], papers)  # nothing was listed
    assert not next_page("show more on pruning", history, papers)


def test_a_search_is_deep_enough_when_its_deeper_half_holds_no_accepted_paper():
    assert deep_enough([True] * 4 + [False] * 4, depth=8)
    assert not deep_enough([True] * 2 + [False] * 5 + [True], depth=8)
    assert deep_enough([True] * 7, depth=8)  # fewer came back than asked: the whole corpus


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> Settings:
    """120 synthetic abstracts (seed sentences mixed), 12 of them also about glacier melt,
    indexed with the fake embedder."""
    folder = tmp_path_factory.mktemp("planted")
    corpus = write_corpus(120, folder / "corpus.jsonl")
    settings = Settings(
        embedding_model="fake",
        data_dir=folder / "data",
        corpus_paths=[corpus],
        titles_path=None,
        llm_backend="extractive",
    )
    run_ingest(settings, show_progress=False)
    return settings


def listed(settings: Settings, **tuning) -> tuple[int, set[str]]:
    """How many papers the topic question's list says match, and the planted ones it shows."""
    update = {"answer": settings.answer.model_copy(update=tuning)}
    answer = ask(Answerer(settings.model_copy(update=update)), TOPIC_QUESTION)
    glacier = {c.title for c in answer.citations if c.title in planted_titles(settings)}
    return int(re.search(r"\d+", answer.notices[-1]).group()), glacier


def planted_titles(settings: Settings) -> set[str]:
    records = [json.loads(line) for line in settings.corpus_paths[0].open()]
    return {r["title"] for r in records if "glacier melt" in r["abstract"]}


def test_a_list_searches_deeper_while_its_deeper_candidates_are_accepted(planted):
    """Four candidates at first: without going deeper the list stops at the four it sees;
    going deeper finds as many as a search fifty deep, and lists only glacier papers."""
    shallow, _ = listed(planted, list_depth=4, list_max_depth=4)
    deeper, shown = listed(planted, list_depth=4, list_shown=50)
    wide, _ = listed(planted, list_depth=50)
    assert shallow == 4 and deeper == wide > shallow
    assert len(shown) == deeper  # every paper listed is a planted one


def test_a_list_cut_at_the_deepest_search_says_there_may_be_more(planted):
    """Stopped at list_max_depth with its deeper candidates still accepted, the count is a
    lower bound, and says so."""
    update = {"answer": planted.answer.model_copy(update={"list_depth": 4, "list_max_depth": 4})}
    answer = ask(Answerer(planted.model_copy(update=update)), TOPIC_QUESTION)
    assert answer.notices[-1].startswith("At least 4 indexed papers match")
    assert not ask(Answerer(planted), TOPIC_QUESTION).notices[-1].startswith("At least")


@pytest.fixture
def paged(seed_index, retriever) -> Answerer:
    """Two papers at a time: the seeds' continual-learning papers take three pages."""
    tuning = seed_index.answer.model_copy(update={"list_shown": 2})
    settings = seed_index.model_copy(update={"answer": tuning})
    return Answerer(settings, retriever=retriever, backend=FakeBackend())


def ask(answerer: Answerer, question: str, history=()):
    return list(answerer.ask(question, history=list(history)))[-1]


def test_a_list_is_paged_through_to_its_end(paged, seed_index, retriever):
    everything = Answerer(seed_index, retriever=retriever, backend=FakeBackend())
    whole = {c.paper_id for c in ask(everything, QUESTION).citations}
    first = ask(paged, QUESTION)
    count = f"{len(whole)} indexed papers match; showing 1–2 (ask for more to see the next)."
    assert len(whole) >= 4 and first.notices[-1] == count
    history, seen = turn(QUESTION, first.transcript()), [c.paper_id for c in first.citations]
    while len(seen) < len(whole):
        more = ask(paged, "show more", history)
        assert more.standalone_question == QUESTION and more.citations
        assert f"showing {len(seen) + 1}–" in more.notices[-1]
        seen += [c.paper_id for c in more.citations]
        history += turn("show more", more.transcript())
    assert len(seen) == len(set(seen)) and set(seen) == whole
    done = ask(paged, "more", history)
    assert not done.citations and not done.abstained and str(len(whole)) in done.text


def test_show_all_gives_every_remaining_paper_at_once(paged, seed_index, retriever):
    first = ask(paged, QUESTION)
    rest = ask(paged, "show all", turn(QUESTION, first.transcript()))
    listed = {c.paper_id for c in first.citations} | {c.paper_id for c in rest.citations}
    total = int(first.notices[-1].split()[0])
    assert len(listed) == total and "showing 3–" in rest.notices[-1]


def test_the_chat_pages_through_a_list_with_show_more(planted):
    """In the chat, "show more" after a list question lists the next papers (the turns keep the
    titles the first answer showed)."""
    from tests.test_ui import BACKENDS
    from tests.test_ui import ask as chat_ask
    from ui.app import Chat

    update = {"answer": planted.answer.model_copy(update={"list_shown": 5})}
    settings = planted.model_copy(update=update)
    answerer = Answerer(settings)
    backends = BACKENDS | {"extractive": None}
    chat = Chat(
        settings,
        retriever=answerer.retriever,
        backends=backends,
        answerers={"extractive": answerer},
    )
    _, turns = chat_ask(chat, TOPIC_QUESTION, backend="extractive")
    _, turns = chat_ask(chat, "show more", turns, backend="extractive")
    first, more = ({c.paper_id for c in t.answer.citations} for t in turns)
    assert len(first) == 5 and more and not first & more
    assert "showing 6–" in turns[1].answer.notices[-1]
