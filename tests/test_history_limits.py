"""The history a question arrives with is bounded: no turn longer than a question or an answer
can be (a clear error says which), and only the latest turns are read, so neither the follow-up
rewrite nor the search query ever sees more than the bound."""

import gradio as gr
import pytest

from rag import history_limits
from rag.answer.pipeline import MAX_QUESTION_CHARS, Answerer
from rag.errors import RagError
from rag.history_limits import bounded_history
from rag.models import Message
from tests.conftest import PRICING_QUESTION
from ui.app import Chat

HUGE = "forgetting " * 5_000  # 55,000 characters: what a question can never be


def exchange(n: int, answer_chars: int = 100) -> list[Message]:
    return [
        Message(role="user", content=f"Question {n}?"),
        Message(role="assistant", content="a" * answer_chars),
    ]


def test_a_history_turn_longer_than_a_question_is_refused_before_anything_reads_it(fake_index):
    answerer = Answerer(fake_index.model_copy(update={"llm_backend": "extractive"}))
    history = [Message(role="user", content=HUGE), Message(role="assistant", content="Yes [1].")]
    with pytest.raises(RagError, match=r"History turn 1 \(user\) is 55,000 characters .* 2,000"):
        list(answerer.ask("What about it?", history=history))


def test_the_api_says_which_turn_is_too_long(fake_index, fake_retriever):
    chat = Chat(fake_index, retriever=fake_retriever, backends={"fake": None})
    history = [{"role": "user", "content": "Hi?"}, {"role": "assistant", "content": HUGE * 2}]
    with pytest.raises(gr.Error, match=r"History turn 2 \(assistant\) is 110,000 characters"):
        chat.api_ask(PRICING_QUESTION, history=history, backend="fake")


def test_only_the_latest_turns_within_the_character_bound_are_used():
    long_history = [m for n in range(40) for m in exchange(n)]
    kept = bounded_history(long_history)
    assert kept == long_history[-history_limits.MAX_HISTORY_MESSAGES :]
    wordy = [m for n in range(8) for m in exchange(n, history_limits.MAX_ANSWER_TURN_CHARS)]
    kept = bounded_history(wordy)
    assert sum(len(m.content) for m in kept) <= history_limits.MAX_HISTORY_CHARS
    assert kept == wordy[-len(kept) :] and kept[-1] == wordy[-1] and len(kept) < len(wordy)


def test_a_user_turn_may_be_as_long_as_a_question():
    assert history_limits.MAX_USER_TURN_CHARS == MAX_QUESTION_CHARS
