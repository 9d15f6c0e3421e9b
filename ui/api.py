"""The API (`/ask`, `/summarize`, for gradio_client): the chat's answers as data, and our errors
as the caller's error message."""

import logging
from contextlib import contextmanager

import gradio as gr
from pydantic import ValidationError

from rag.errors import RagError
from rag.models import Message
from ui.answerers import AnswererPool
from ui.chat import filters, final

log = logging.getLogger(__name__)


class ApiHandlers:
    """The API's endpoints; answers come from `self.pool`."""

    def __init__(self, pool: AnswererPool):
        self.pool = pool

    def api_ask(
        self,
        question: str,
        history: list[dict] | None = None,
        backend: str = "",
        k: int = 0,
        author: str = "",
        area: str = "",
        venue: str = "",
    ) -> dict:
        """Answer one question (with optional earlier turns) and return it as data."""
        with shown_to_caller():
            turns, k = api_history(history), api_k(k)
            answer = final(
                self.pool.answerer(backend or None).ask(
                    question, history=turns, k=k, filters=filters(author, area, venue)
                )
            )
        return answer.summary() | {"sources": [s.summary() for s in answer.sources]}

    def api_summarize(self, title: str, backend: str = "") -> dict:
        """A cited summary of a paper (by title) or of a topic, as data."""
        with shown_to_caller():
            return final(self.pool.answerer(backend or None).summarize(title)).summary()


def api_history(history) -> list[Message]:
    """API history as messages; anything else is an error that says what is expected."""
    try:
        return [Message(**turn) for turn in history or []]
    except (TypeError, ValidationError):
        raise RagError(
            'history must be a list of {"role": "user" or "assistant", "content": text} objects.'
        ) from None


def api_k(k) -> int | None:
    """API k: a whole number (0 or empty: the default)."""
    try:
        return int(k or 0) or None
    except (TypeError, ValueError):
        raise RagError(f"k must be a whole number, not {k!r}.") from None


@contextmanager
def shown_to_caller():
    """Our errors (bad input, unavailable backend) reach API callers as their message."""
    try:
        yield
    except (RagError, ValidationError) as error:
        log.warning("An API call was refused: %s", error)  # one line, no traceback
        raise gr.Error(str(error), print_exception=False) from None
