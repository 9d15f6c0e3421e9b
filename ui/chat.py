"""The chat tab's handlers: the question shown at once, its answer streamed then checked, Stop,
and the sources panel of the answer the user picked. `messages` (what the chatbot shows) and
`turns` (each turn's checked answer, or None when it failed or was stopped) run in step: turn i
is messages 2i (the question) and 2i + 1 (the reply)."""

import logging
from collections.abc import Iterator

import gradio as gr

from rag import export
from rag.errors import RagError
from rag.models import Answer, Message
from rag.retrieve import Filters
from ui import render
from ui.answerers import AnswererPool

log = logging.getLogger(__name__)


class ChatHandlers:
    """The chat tab's handlers; answers come from `self.pool`."""

    def __init__(self, pool: AnswererPool):
        self.pool = pool

    @staticmethod
    def post(question: str, messages: list[dict]) -> tuple:
        """Show the question at once (also while it waits in the queue) and clear the box;
        yields (messages, pending question, textbox value)."""
        if not (question or "").strip():
            gr.Warning("Please type a question.")
            return gr.skip(), "", question
        return [*messages, {"role": "user", "content": render.question_md(question)}], question, ""

    def respond(
        self,
        question: str,
        messages: list[dict],
        turns: list[Answer | None],
        backend: str,
        k: float,
        author: str = "",
        area: str = "",
        venue: str = "",
    ) -> Iterator[tuple]:
        """Answer the posted question (the last message), streaming: yields (messages, turns)."""
        if not (question or "").strip():
            return
        history, events = conversation(turns), None
        try:
            events = self.pool.answerer(backend).ask(
                question, history=history, k=int(k), filters=filters(author, area, venue)
            )
            for shown, answer in as_markdown(events):
                reply = [*messages, {"role": "assistant", "content": shown}]
                yield reply, turns if answer is None else [*turns, answer]
        except Exception as error:  # noqa: BLE001 - the page shows a message, never a traceback
            yield [*messages, failure(error)], [*turns, None]
        finally:  # Stop (or a closed page) ends the generation, and the model stops with it
            if events is not None:
                events.close()

    @staticmethod
    def stop(messages: list[dict], turns: list[Answer | None]) -> tuple:
        """Stop pressed: the answer being written keeps its partial draft, marked as stopped."""
        if not messages or len(turns) * 2 >= len(messages):
            return gr.skip(), gr.skip()  # nothing was being answered
        if messages[-1]["role"] == "assistant":
            shown = content_text(messages[-1]["content"])
            messages = [*messages[:-1], {"role": "assistant", "content": render.stopped_md(shown)}]
        else:
            messages = [*messages, {"role": "assistant", "content": render.stopped_md(None)}]
        return messages, [*turns, None]

    @staticmethod
    def select(turns: list[Answer | None], event: gr.SelectData) -> int:
        """The answer the user clicked on: its sources and exports are shown."""
        index = event.index[0] if isinstance(event.index, list | tuple) else event.index
        turn = int(index) // 2
        return turn if 0 <= turn < len(turns) and turns[turn] is not None else gr.skip()

    @staticmethod
    def panel(turns: list[Answer | None], shown: int | None = None) -> tuple:
        """For the answer shown (default: the latest): its number, the sources panel, the
        answer as Markdown and BibTeX, and the whole conversation as Markdown."""
        answered = [i for i, answer in enumerate(turns) if answer is not None]
        if shown not in answered:
            shown = answered[-1] if answered else None
        if shown is None:
            return None, render.sources_html(None), "", "", ""
        answer = turns[shown]
        return (
            shown,
            render.sources_html(answer, shown + 1),
            export.markdown(answer),
            export.answer_bibtex([answer]),
            export.conversation_markdown(turns),
        )


def as_markdown(events: Iterator[str | Answer]) -> Iterator[tuple[str, Answer | None]]:
    """The growing draft while it streams, then the checked answer, with it."""
    draft = ""
    for event in events:
        if isinstance(event, Answer):
            yield render.answer_md(event), event
            return
        draft += event
        yield render.draft_md(draft), None


def content_text(content) -> str:
    """A chat message's text (Gradio may hand it back as a list of parts)."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in parts)


def final(events: Iterator) -> Answer:
    """The checked answer at the end of an answer's events."""
    return next(event for event in events if isinstance(event, Answer))


def filters(author: str, area: str, venue: str) -> Filters | None:
    """The filters the user set (blank fields set none)."""
    values = {
        "author": (author or "").strip() or None,
        "area": (area or "").strip() or None,
        "venue": (venue or "").strip() or None,
    }
    return Filters(**values) if any(values.values()) else None


def conversation(turns: list[Answer | None]) -> list[Message]:
    """Earlier answered turns as plain-text chat history for follow-up questions."""
    history = []
    for answer in turns:
        if answer is not None:
            history += [
                Message(role="user", content=answer.question),
                Message(role="assistant", content=answer.transcript()),
            ]
    return history


def failure(error: Exception) -> dict:
    """An assistant message for a failed turn: our errors say how to fix; others are logged."""
    if isinstance(error, RagError):
        text = str(error)
    else:
        log.exception("The chat failed")
        text = f"Something went wrong ({type(error).__name__}); the details are in the server log."
    return {"role": "assistant", "content": render.failure_md(text)}
