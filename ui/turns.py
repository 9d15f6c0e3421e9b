"""A conversation as the chat keeps it: one `Turn` per question (what was asked, under which
filters, and what became of it). The chat's messages, the answers' numbers and the history a
follow-up sees are all derived from the turns, never kept beside them."""

from typing import Literal

from pydantic import BaseModel, Field

from rag.models import Answer, Message
from ui import render

FILTERS = ("author", "area", "venue")


class Turn(BaseModel):
    """One question and what became of it: waiting in the queue, being written (its draft so
    far), answered (the checked answer), stopped (the draft it had) or failed (the message)."""

    question: str
    status: Literal["waiting", "writing", "answered", "stopped", "failed"] = "waiting"
    filters: dict[str, str] = Field(
        default_factory=dict, description="The filters it was asked under, by name (author ...)."
    )
    draft: str = Field("", description="The model's text as streamed, before any check.")
    answer: Answer | None = None
    failure: str = Field("", description="What went wrong, as the reader is told.")

    @property
    def answered(self) -> bool:
        return self.status == "answered" and self.answer is not None

    @property
    def declined_under_filters(self) -> bool:
        """Declined while filters were on: asking again without them may find an answer."""
        return self.answered and self.answer.abstained and bool(self.filters)


def numbers(turns: list[Turn]) -> dict[int, int]:
    """Each answered turn's answer number, as the chat, the panel and the export show it."""
    answered = [i for i, turn in enumerate(turns) if turn.answered]
    return {turn: number for number, turn in enumerate(answered, start=1)}


def latest_answered(turns: list[Turn]) -> int | None:
    return max(numbers(turns), default=None)


def turn_messages(turn: Turn, number: int | None, shown: bool) -> list[dict]:
    """The question, then what became of it: an answer's label (its number, what wrote it, and
    whether its sources are shown) and the answer itself (a message of its own, so the chat's
    copy button copies the answer alone)."""
    replies = {
        "waiting": [],
        "writing": [render.draft_md(turn.draft)],
        "stopped": [render.stopped_md(turn.draft)],
        "failed": [render.failure_md(turn.failure)],
    }.get(turn.status)
    if replies is None:
        replies = [render.label_md(turn.answer, number, shown), render.reply_md(turn)]
    user = {"role": "user", "content": render.question_md(turn.question)}
    return [user, *({"role": "assistant", "content": reply} for reply in replies)]


def messages(turns: list[Turn], shown: int | None = None) -> list[dict]:
    """The chat's messages; the answer whose sources are shown (default: the latest) is
    marked."""
    shown = latest_answered(turns) if shown is None else shown
    numbered = numbers(turns)
    return [
        message
        for i, turn in enumerate(turns)
        for message in turn_messages(turn, numbered.get(i), i == shown)
    ]


def turn_at(turns: list[Turn], message: int) -> int | None:
    """The turn a chat message (by its index) belongs to."""
    seen = 0
    for i, turn in enumerate(turns):
        seen += len(turn_messages(turn, 0, False))
        if message < seen:
            return i
    return None


def history(turns: list[Turn]) -> list[Message]:
    """Earlier answered turns as plain-text chat history for follow-up questions."""
    return [
        message
        for turn in turns
        if turn.answered
        for message in (
            Message(role="user", content=turn.answer.question),
            Message(role="assistant", content=turn.answer.transcript()),
        )
    ]


def from_messages(messages: list, answers: list) -> list[Turn]:
    """Turns from the format before turns: the chat's messages (question, reply, question ...)
    and each turn's checked answer (or None when it failed or was stopped) side by side."""
    questions = [i for i, message in enumerate(messages) if message.get("role") == "user"]
    turns = []
    for n, at in enumerate(questions):
        end = questions[n + 1] if n + 1 < len(questions) else len(messages)
        reply = "".join(render.plain(m.get("content")) for m in messages[at + 1 : end])
        answer = answers[n] if n < len(answers) else None
        turns.append(old_turn(render.plain(messages[at].get("content")), reply, answer))
    return turns


def old_turn(question_md: str, reply_md: str, answer: Answer | None) -> Turn:
    """One turn of the format before turns, from its messages' Markdown and its answer."""
    if answer is not None:
        return Turn(question=answer.question, status="answered", answer=answer)
    question = render.unescape(question_md)
    if reply_md.startswith("⚠ "):
        return Turn(question=question, status="failed", failure=render.unescape(reply_md[2:]))
    draft = reply_md.replace(render.STOPPED, "").replace(render.GENERATING, "").strip()
    return Turn(question=question, status="stopped", draft=render.unescape(draft))
