"""Follow-up questions: rewrite them into standalone questions before retrieval, and keep
"which of those ..." within the papers the previous answer named."""

from rag.answer.intent import chooses, continues, refers_back
from rag.answer.prompts import rewrite_messages
from rag.errors import RagError
from rag.models import Message, normalize_text

MAX_REWRITE_TOKENS = 60


def standalone_question(
    question: str, history: list[Message], rewriter=None, short_words: int = 3
) -> str:
    """The question made self-contained. An LLM rewrites it when one is available; otherwise
    (or if the rewrite fails) the previous user question is prepended."""
    earlier = [m.content for m in history if m.role == "user"]
    if not earlier or not continues(question, short_words):
        return question  # a new topic stands alone
    if rewriter is not None:
        from rag.llm import Prompt

        try:
            rewritten = rewriter.complete(
                Prompt(messages=rewrite_messages(question, history), max_tokens=MAX_REWRITE_TOKENS)
            )
            rewritten = " ".join(rewritten.split()).strip('"')
            if 3 <= len(rewritten.split()) <= 60:
                return rewritten
        except RagError:
            pass
    return f"{earlier[-1]} {question}"


def scope_of_follow_up(question: str, history: list[Message], papers) -> set[str] | None:
    """When a follow-up refers back ("which of those ..."), the papers the previous answer
    named by title; None when it does not refer back or named none. A follow-up choosing
    among papers ("And which one ...?") after an answer that named one chooses among the
    papers of the latest answer that named several."""
    answers = [m.content for m in history if m.role == "assistant"]
    if not answers or not refers_back(question):
        return None
    titles = [(p.paper_id, normalize_text(p.title)) for p in papers if len(p.title) >= 12]
    scopes = (
        {pid for pid, title in titles if title in normalize_text(text)}
        for text in reversed(answers)
    )
    latest = next(scopes)
    if chooses(question) and len(latest) == 1:
        return next((scope for scope in scopes if len(scope) > 1), latest)
    return latest or None
