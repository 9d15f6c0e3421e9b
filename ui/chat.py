"""The chat tab's handlers: the question shown at once, its answer streamed then checked, Stop,
asking again without filters, and the sources panel of the answer the user picked. The chat's
state is one list of `Turn`s (ui/turns.py); the messages the chatbot shows are derived from it."""

import logging
from collections.abc import Iterator

import gradio as gr

from rag import export
from rag.errors import RagError
from rag.models import Answer
from rag.retrieve import Filters
from rag.tuning import AnswerTuning
from ui import render
from ui.answerers import AnswererPool
from ui.turns import FILTERS, Turn, history, latest_answered, messages, numbers, turn_at

log = logging.getLogger(__name__)


class ChatHandlers:
    """The chat tab's handlers; answers come from `self.pool`."""

    def __init__(self, pool: AnswererPool):
        self.pool = pool

    @staticmethod
    def post(question: str, turns: list[Turn]) -> tuple:
        """Show the question at once (also while it waits in the queue) and clear the box;
        yields (messages, turns, textbox value, Stop)."""
        if not (question or "").strip():
            gr.Warning("Please type a question.")
            return gr.skip(), gr.skip(), question, gr.skip()
        turns = [*turns, Turn(question=question)]
        return messages(turns), turns, "", gr.update(interactive=True)

    def respond(
        self,
        turns: list[Turn],
        backend: str,
        k: float,
        author: str = "",
        area: str = "",
        venue: str = "",
    ) -> Iterator[tuple]:
        """Answer the posted question (the last turn, waiting), streaming: yields (messages,
        turns) as the draft grows, then with the checked answer."""
        if not turns or turns[-1].status != "waiting":
            return
        earlier, chosen = turns[:-1], filters(author, area, venue)
        turn = turns[-1].model_copy(update={"filters": used(chosen), "status": "writing"})
        shown, events = latest_answered(earlier), None
        try:
            events = self.pool.answerer(backend).ask(
                turn.question, history=history(earlier), k=int(k), filters=chosen
            )
            for draft, answer in drafts(events):
                if answer is None:
                    turn = turn.model_copy(update={"draft": draft})
                else:
                    answer = close_suggestions(answer, self.pool.settings.answer)
                    turn = turn.model_copy(update={"status": "answered", "answer": answer})
                    shown = len(earlier)
                yield messages([*earlier, turn], shown), [*earlier, turn]
        except Exception as error:  # noqa: BLE001 - the page shows a message, never a traceback
            turn = turn.model_copy(update={"status": "failed", "failure": failure(error)})
            yield messages([*earlier, turn], shown), [*earlier, turn]
        finally:  # Stop (or a closed page) ends the generation, and the model stops with it
            if events is not None:
                events.close()

    @staticmethod
    def stop(turns: list[Turn]) -> tuple:
        """Stop pressed: the answer being written keeps its partial draft, marked as stopped;
        yields (messages, turns)."""
        if not turns or turns[-1].status not in ("waiting", "writing"):
            return gr.skip(), gr.skip()  # nothing was being answered
        turns = [*turns[:-1], turns[-1].model_copy(update={"status": "stopped"})]
        return messages(turns), turns

    @staticmethod
    def idle() -> dict:
        """Stop is offered only while an answer is on its way."""
        return gr.update(interactive=False)

    @staticmethod
    def select(turns: list[Turn], event: gr.SelectData) -> tuple:
        """The answer the user clicked on: its sources and exports are shown, and the chat marks
        it; yields (shown turn, messages)."""
        index = event.index[0] if isinstance(event.index, list | tuple) else event.index
        turn = turn_at(turns, int(index))
        if turn is None or not turns[turn].answered:
            return gr.skip(), gr.skip()
        return turn, messages(turns, turn)

    @staticmethod
    def panel(turns: list[Turn], shown: int | None = None) -> tuple:
        """For the answer shown (default: the latest): its turn, the sources panel, the answer
        as Markdown and BibTeX, the whole conversation as Markdown, and the three buttons that
        copy or download them (usable only when there is something to take)."""
        numbered = numbers(turns)
        if shown not in numbered:
            shown = latest_answered(turns)
        if shown is None:
            nothing = gr.update(interactive=False)
            return None, render.sources_html(None), "", "", "", nothing, nothing, nothing
        answer = turns[shown].answer
        bibtex = export.answer_bibtex([answer])
        return (
            shown,
            render.sources_html(answer, numbered[shown]),
            export.markdown(answer),
            bibtex,
            export.conversation_markdown([turn.answer for turn in turns if turn.answered]),
            gr.update(interactive=True),
            gr.update(interactive=bool(bibtex)),
            gr.update(interactive=True),
        )

    @staticmethod
    def chips(turns: list[Turn], author: str = "", area: str = "", venue: str = "") -> tuple:
        """The filters on, each a chip that removes it ("Area: Applications ✕"), and "Ask again
        without filters" when the latest answer declined under filters; yields (author, area,
        venue chips, retry)."""
        chips = [
            gr.update(visible=True, value=f"{name.title()}: {value.strip()} ✕")
            if (value or "").strip()
            else gr.update(visible=False)
            for name, value in zip(FILTERS, (author, area, venue))
        ]
        latest = turns[-1] if turns else None
        return (*chips, gr.update(visible=bool(latest and latest.declined_under_filters)))

    @staticmethod
    def unfiltered(turns: list[Turn]) -> tuple:
        """Ask again without filters: the filters cleared and the last declined question in the
        box, to be asked again; yields (author, area, venue, question)."""
        declined = [turn for turn in turns if turn.declined_under_filters]
        question = declined[-1].question if declined else gr.skip()
        return "", "", "", question


def drafts(events: Iterator[str | Answer]) -> Iterator[tuple[str, Answer | None]]:
    """The growing draft while it streams, then the checked answer, with it."""
    draft = ""
    for event in events:
        if isinstance(event, Answer):
            yield draft, event
            return
        draft += event
        yield draft, None


def as_markdown(events: Iterator[str | Answer]) -> Iterator[tuple[str, Answer | None]]:
    """The growing draft as the chat shows it while it streams, then the checked answer."""
    for draft, answer in drafts(events):
        yield (render.draft_md(draft) if answer is None else render.summary_md(answer)), answer


def close_suggestions(answer: Answer, tuning: AnswerTuning) -> Answer:
    """A decline offers only the papers close to the question (none for an off-topic one)."""
    close = [s for s in answer.suggestions if s.relevance >= tuning.suggestion_relevance]
    return answer.model_copy(update={"suggestions": close})


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


def used(chosen: Filters | None) -> dict[str, str]:
    """The filters a question was asked under, by name."""
    values = chosen.model_dump() if chosen else {}
    return {name: values[name] for name in FILTERS if values.get(name)}


def failure(error: Exception) -> str:
    """What a failed turn says: our errors say how to fix; others are logged."""
    if isinstance(error, RagError):
        return str(error)
    log.exception("The chat failed")
    return f"Something went wrong ({type(error).__name__}); the details are in the server log."
