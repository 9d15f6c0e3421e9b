"""How the answer pipeline treats a model's draft: what it keeps, completes or withholds (fake
backend over the real seed index and embedder)."""

import pytest

from rag.answer.pipeline import Answerer
from rag.llm.fake import FakeBackend

BISECLE = "Bisecle: Binding and Separation in Continual Learning for Video Language Understanding"
QUESTION = "Which method binds and separates concepts for continual video-language learning?"


@pytest.fixture
def ask(seed_index, retriever):
    def run(reply: str, question: str = QUESTION):
        answerer = Answerer(seed_index, retriever=retriever, backend=FakeBackend(reply=reply))
        return list(answerer.ask(question))[-1]

    return run


@pytest.mark.parametrize(
    "reply",
    [f'It is titled "{BISECLE}" [1].', f"[1] Title: {BISECLE}", f"Yes: {BISECLE.upper()} [1]."],
)
def test_a_draft_that_only_names_the_paper_gets_the_papers_own_sentence(ask, reply):
    answer = ask(reply)
    assert not answer.abstained and [c.title for c in answer.citations] == [BISECLE]
    (line,) = answer.sentences
    assert line.text.startswith(f"{BISECLE}: ") and line.supported
    assert line.text.removeprefix(f"{BISECLE}: ").rstrip(".") in answer.sources[0].paper.abstract


def test_a_sentence_with_a_claim_of_its_own_is_checked_as_written(ask):
    answer = ask(f"{BISECLE} predicts protein structures from amino-acid sequences [1].")
    assert answer.abstained or not answer.sentences[0].supported
