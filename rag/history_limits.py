"""Bounds on the conversation a question arrives with (from the UI, the API or `rag chat`):
no turn longer than a question or an answer can be, and only the latest turns, so whatever
reads the history (the follow-up rewrite, the search query, the "which of those" scope) sees a
bounded amount of text."""

import logging

from rag.errors import RagError
from rag.models import Message

log = logging.getLogger(__name__)

# A user turn is a question asked before: the question limit (rag.answer.pipeline's
# MAX_QUESTION_CHARS, checked equal by the tests; importing it here would be an import cycle).
MAX_USER_TURN_CHARS = 2_000
# An answer's transcript is its text and references: 20 papers listed with a sentence each and
# their references come to about 10,000 characters.
MAX_ANSWER_TURN_CHARS = 20_000
MAX_HISTORY_MESSAGES = 20  # the latest ten questions and their answers
MAX_HISTORY_CHARS = 60_000


def turn_limit(message: Message) -> int:
    return MAX_USER_TURN_CHARS if message.role == "user" else MAX_ANSWER_TURN_CHARS


def check_turns(history: list[Message]) -> None:
    """Raise a RagError naming the first turn longer than any question or answer can be."""
    for number, message in enumerate(history, start=1):
        if len(message.content) > (limit := turn_limit(message)):
            raise RagError(
                f"History turn {number} ({message.role}) is {len(message.content):,} characters "
                f"long; a {message.role} turn may have at most {limit:,}. Send the conversation's "
                "own questions and answers, or start a new conversation."
            )


def bounded_history(history: list[Message] | None) -> list[Message]:
    """The history a question may use: every turn within its limit (else a RagError that
    says which), and of the turns only the latest MAX_HISTORY_MESSAGES that together stay
    within MAX_HISTORY_CHARS (follow-ups refer to the recent answers)."""
    history = list(history or [])
    check_turns(history)
    kept, total = [], 0
    for message in reversed(history[-MAX_HISTORY_MESSAGES:]):
        total += len(message.content)
        if total > MAX_HISTORY_CHARS:
            break
        kept.append(message)
    if len(kept) < len(history):
        log.info("Follow-ups use the latest %d of %d history turns.", len(kept), len(history))
    return kept[::-1]
