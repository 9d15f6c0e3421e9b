"""The Gradio app: a chat with streamed, checked, cited answers; the sources panel for the
selected answer; backend, k and filter controls; a Papers tab with cited summaries; and the
same answers as an API (`/ask`, `/summarize`) for gradio_client."""

import ipaddress
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import gradio as gr
from pydantic import ValidationError

from rag import export
from rag.answer.pipeline import Answerer
from rag.config import Settings
from rag.errors import ConfigError, RagError
from rag.models import Answer, Message
from rag.retrieve import Filters, Retriever
from ui import history, render

log = logging.getLogger(__name__)

EXAMPLES = [
    "Which papers study continual learning?",
    "How does FIRE balance stability and plasticity?",
    "Which papers use optimal transport?",
    "Which papers are in the Learning Theory subarea?",
]


class Chat:
    """What the page does, without the page (so handlers are testable without a browser).
    One instance serves every session; conversations live in each session's state."""

    def __init__(
        self,
        settings: Settings,
        retriever: Retriever | None = None,
        backends: dict[str, str | None] | None = None,
        answerers: dict[str, Answerer] | None = None,
    ):
        """`backends` maps each offered backend to None or the reason it is unavailable
        (default: checked now); `answerers` may supply ready answerers by backend name."""
        from rag.llm import availability

        self.settings = settings
        self.retriever = retriever or Retriever(settings)
        self.backends = backends if backends is not None else availability(settings)
        self._answerers = dict(answerers or {})
        self.conversations = history.Conversations(settings.data_dir)

    # --- model-facing ---

    def answerer(self, backend: str | None) -> Answerer:
        self.reload_if_reindexed()
        backend = backend or self.settings.llm_backend
        if backend not in self.backends:
            raise ConfigError(
                f"Unknown backend '{backend}'; choose one of {', '.join(self.backends)}."
            )
        if self.backends[backend]:
            raise ConfigError(f"The {backend} backend is unavailable: {self.backends[backend]}")
        if backend not in self._answerers:
            configured = self.settings.model_copy(update={"llm_backend": backend})
            self._answerers[backend] = Answerer(configured, retriever=self.retriever)
        return self._answerers[backend]

    def reload_if_reindexed(self) -> bool:
        """After an ingest (by any process while this app runs), answer from the new index;
        the answerers share the retriever and keep their backends."""
        return self.retriever.refresh()

    def warm_up(self) -> None:
        """Load the default backend's model in the background (the first question then finds
        it ready); a failure is logged, and the question that needs the model reports it."""

        def warm():
            try:
                self.answerer(self.default_backend()).warm()
            except Exception as error:  # noqa: BLE001
                log.warning("Could not load the %s model: %s", self.default_backend(), error)

        threading.Thread(target=warm, daemon=True).start()

    def default_backend(self) -> str:
        usable = [name for name, reason in self.backends.items() if not reason]
        return self.settings.llm_backend if self.settings.llm_backend in usable else usable[0]

    def backend_notes(self) -> str:
        lines = [
            f"- **{name}** unavailable: {reason}"
            for name, reason in self.backends.items()
            if reason
        ]
        return "\n".join(lines)

    def examples(self) -> list[str]:
        """The example questions this index can answer (they are written for the bundled
        papers; another library gets none rather than questions it must decline)."""
        k, floor = self.settings.top_k, self.settings.answer.min_relevance
        return [
            question
            for question in EXAMPLES
            if self.retriever.answerability(question, self.retriever.search(question, k)) >= floor
        ]

    def areas(self) -> list[str]:
        return self.retriever.catalog.areas()

    def venues(self) -> list[str]:
        return self.retriever.catalog.venues()

    # --- chat tab ---

    def post(self, question: str, messages: list[dict]) -> tuple:
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
            events = self.answerer(backend).ask(
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

    def stop(self, messages: list[dict], turns: list[Answer | None]) -> tuple:
        """Stop pressed: the answer being written keeps its partial draft, marked as stopped."""
        if not messages or len(turns) * 2 >= len(messages):
            return gr.skip(), gr.skip()  # nothing was being answered
        if messages[-1]["role"] == "assistant":
            shown = content_text(messages[-1]["content"])
            messages = [*messages[:-1], {"role": "assistant", "content": render.stopped_md(shown)}]
        else:
            messages = [*messages, {"role": "assistant", "content": render.stopped_md(None)}]
        return messages, [*turns, None]

    def select(self, turns: list[Answer | None], event: gr.SelectData) -> int:
        """The answer the user clicked on: its sources and exports are shown."""
        index = event.index[0] if isinstance(event.index, list | tuple) else event.index
        turn = int(index) // 2
        return turn if 0 <= turn < len(turns) and turns[turn] is not None else gr.skip()

    def panel(self, turns: list[Answer | None], shown: int | None = None) -> tuple:
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

    # --- conversations kept on the server, under the browser's id ---

    def restore(self, browser: str) -> tuple:
        """Page load: the browser's id (a new one if it has none), its last conversation, the
        list of its conversations and its last settings; yields (browser id, messages, turns,
        chat id, conversations, backend, k, author, area, venue)."""
        browser = history.browser_id(browser)
        chat_id = self.conversations.current(browser) or history.new_id()
        messages, turns = self.conversations.load(browser, chat_id)
        saved = self.conversations.settings(browser)
        usable = [name for name, reason in self.backends.items() if not reason]
        return (
            browser,
            messages,
            turns,
            chat_id,
            self.choices(browser, chat_id),
            saved.backend if saved.backend in usable else self.default_backend(),
            saved.k or min(self.settings.top_k, 10),
            saved.author or "",
            saved.area or "",
            saved.venue or "",
        )

    def save(self, browser: str, chat_id: str, messages, turns, *settings) -> tuple:
        """Keep the conversation and settings (for a browser the page load gave its id):
        yields the conversations list."""
        if browser := history.known_id(browser):
            chosen = dict(zip(history.SETTINGS, settings))
            self.conversations.save(browser, chat_id, messages, turns, chosen)
        return self.choices(browser, chat_id)

    def open(self, browser: str, chat_id: str) -> tuple:
        """Reopen a saved conversation: yields (messages, turns, chat id)."""
        if not (browser := history.known_id(browser)):
            return [], [], chat_id
        messages, turns = self.conversations.load(browser, chat_id)
        return messages, turns, chat_id

    def new_chat(self, browser: str) -> tuple:
        """An empty conversation (the current one stays in the list)."""
        chat_id = history.new_id()
        return [], [], chat_id, self.choices(history.known_id(browser), chat_id)

    def forget(self, browser: str, chat_id: str) -> tuple:
        """Delete the open conversation (the trash icon, or Delete) and start an empty one, so
        nothing of it reaches the next question."""
        if known := history.known_id(browser):
            self.conversations.remove(known, chat_id)
        return self.new_chat(browser)

    def choices(self, browser: str | None, chat_id: str):
        """The conversations list, with the open one selected (if it was saved)."""
        choices = self.conversations.choices(browser) if browser else []
        saved = chat_id in {key for _, key in choices}
        return gr.update(choices=choices, value=chat_id if saved else None)

    # --- papers tab ---

    def papers(self, query: str = "") -> list[list[str]]:
        """The corpus as table rows, filtered by words in the title, authors, area or venue."""
        self.reload_if_reindexed()
        words = (query or "").casefold().split()
        rows = []
        for paper in sorted(self.retriever.catalog.papers(), key=lambda p: p.title.casefold()):
            fields = [paper.title, ", ".join(paper.authors), paper.area or "", paper.venue or ""]
            if all(word in " ".join(fields).casefold() for word in words):
                rows.append(fields[:1] + [export.authors_line(paper.authors)] + fields[2:])
        return rows

    def summarize(self, title: str, backend: str) -> Iterator[tuple[str, str]]:
        """Stream a cited summary of one paper (or a topic): yields (answer, sources html)."""
        if not (title or "").strip():
            gr.Warning("Pick a paper to summarize.")
            yield gr.skip(), gr.skip()
            return
        try:
            for shown, answer in as_markdown(self.answerer(backend).summarize(title)):
                yield shown, render.sources_html(answer) if answer else gr.skip()
        except Exception as error:  # noqa: BLE001
            yield failure(error)["content"], gr.skip()

    # --- API (gradio_client) ---

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
                self.answerer(backend or None).ask(
                    question, history=turns, k=k, filters=filters(author, area, venue)
                )
            )
        return answer.summary() | {"sources": [s.summary() for s in answer.sources]}

    def api_summarize(self, title: str, backend: str = "") -> dict:
        """A cited summary of a paper (by title) or of a topic, as data."""
        with shown_to_caller():
            return final(self.answerer(backend or None).summarize(title)).summary()


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
    return next(event for event in events if isinstance(event, Answer))


def filters(author: str, area: str, venue: str) -> Filters | None:
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


COPY_JS = "(text) => navigator.clipboard.writeText(text)"
DOWNLOAD_JS = """(text) => {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], {type: "text/markdown"}));
  link.download = "conversation.md";
  link.click();
  URL.revokeObjectURL(link.href);
}"""


def build(chat: Chat) -> gr.Blocks:
    """The page. Answers share one queue slot pool (`answers`) so the model is never
    oversubscribed; a waiting question shows in the chat with its place in the queue."""
    limit = chat.settings.ui_concurrency
    queued = {"concurrency_id": "answers", "concurrency_limit": limit}
    quick = {"queue": False, "api_visibility": "undocumented"}
    names = list(chat.backends)
    catalog = chat.retriever.catalog
    with gr.Blocks(title="Paper QA") as demo:
        gr.Markdown(
            f"## Ask the papers\n{len(catalog)} papers indexed. Every claim is "
            "cited by the paper's real title and checked against its abstract."
        )
        # Only the browser's id is kept in the browser; its conversations stay on the server.
        # (BrowserState encrypts in the page, with a key sent to the page: it hides nothing.)
        store = gr.BrowserState("", storage_key="rag-browser", secret="rag-browser-id")
        chat_id, turns, shown, pending = gr.State(""), gr.State([]), gr.State(None), gr.State("")
        with gr.Tab("Chat"):
            with gr.Row():
                with gr.Column(scale=3):
                    chatbot = gr.Chatbot(
                        label="Conversation",
                        height=520,
                        latex_delimiters=render.LATEX,
                        feedback_options=None,
                        buttons=["copy", "copy_all"],
                        elem_id="chat",
                    )
                    question = gr.Textbox(
                        placeholder="Ask about the papers…", show_label=False, elem_id="question"
                    )
                    with gr.Row():
                        send = gr.Button("Ask", variant="primary", elem_id="ask")
                        stop = gr.Button("Stop", variant="stop", elem_id="stop")
                        clear = gr.Button("New chat", elem_id="new-chat")
                        backend = gr.Dropdown(
                            [n for n in names if not chat.backends[n]],  # reasons: in Settings
                            value=chat.default_backend(),
                            show_label=False,
                            container=False,
                            elem_id="backend",
                        )
                    if examples := chat.examples():
                        gr.Examples(examples, inputs=question, label="Try")
                    with gr.Row():
                        saved = gr.Dropdown(
                            [], label="Conversations (of this browser)", elem_id="saved"
                        )
                        delete = gr.Button("Delete conversation", size="sm", elem_id="delete")
                with gr.Column(scale=2):
                    sources = gr.Markdown(
                        render.sources_html(None), latex_delimiters=render.LATEX, elem_id="sources"
                    )
                    with gr.Row():
                        copy_md = gr.Button("Copy as Markdown", size="sm", elem_id="copy-md")
                        copy_bib = gr.Button("Copy BibTeX", size="sm", elem_id="copy-bib")
                        download = gr.Button("Download conversation", size="sm", elem_id="save-md")
                    answer_md, answer_bib, conversation_md = (
                        gr.Textbox(visible=False) for _ in range(3)
                    )
            with gr.Accordion("Settings", open=False):
                k = gr.Slider(1, 10, value=chat.settings.top_k, step=1, label="Sources")
                with gr.Row():
                    author = gr.Textbox(label="Author contains")
                    with_area = sum(1 for p in catalog.papers() if p.area)
                    area = gr.Dropdown(
                        ["", *chat.areas()],
                        value="",
                        label="Area",
                        info=f"{with_area} of {len(catalog)} papers have an area; "
                        "the others are left out while an area is chosen.",
                        allow_custom_value=True,
                    )
                    venue = gr.Dropdown(
                        ["", *chat.venues()], value="", label="Venue", allow_custom_value=True
                    )
                if notes := chat.backend_notes():
                    gr.Markdown(notes)
        with gr.Tab("Papers"):
            search = gr.Textbox(label="Filter papers", placeholder="title, author, area or venue")
            table = gr.Dataframe(
                chat.papers(),
                headers=["Title", "Authors", "Area", "Venue"],
                interactive=False,
                wrap=True,
                column_widths=["45%", "30%", "12%", "13%"],
            )
            with gr.Row():
                paper = gr.Dropdown(
                    sorted(p.title for p in catalog.papers()),
                    label="Paper",
                    allow_custom_value=True,
                )
                summarize = gr.Button("Cited summary", variant="primary")
            with gr.Row():
                summary = gr.Markdown(latex_delimiters=render.LATEX)
                summary_sources = gr.Markdown(latex_delimiters=render.LATEX)

        gr.api(chat.api_ask, api_name="ask", **queued)
        gr.api(chat.api_summarize, api_name="summarize", **queued)
        choices = [backend, k, author, area, venue]
        exports = [shown, sources, answer_md, answer_bib, conversation_md]

        def then_save(event):
            """After the conversation changed: refresh the panel, keep the conversation."""
            return event.then(chat.panel, [turns], exports, **quick).then(
                chat.save, [store, chat_id, chatbot, turns, *choices], saved, **quick
            )

        asked = []
        for trigger in (send.click, question.submit):
            posted = trigger(chat.post, [question, chatbot], [chatbot, pending, question], **quick)
            asked.append(
                posted.then(
                    chat.respond,
                    [pending, chatbot, turns, *choices],
                    [chatbot, turns],
                    api_visibility="undocumented",
                    **queued,
                )
            )
            then_save(asked[-1])
        then_save(stop.click(chat.stop, [chatbot, turns], [chatbot, turns], cancels=asked, **quick))
        then_save(clear.click(chat.new_chat, store, [chatbot, turns, chat_id, saved], **quick))
        forget = [chatbot, turns, chat_id, saved]
        then_save(chatbot.clear(chat.forget, [store, chat_id], forget, **quick))
        then_save(delete.click(chat.forget, [store, chat_id], forget, **quick))
        then_save(saved.input(chat.open, [store, saved], [chatbot, turns, chat_id], **quick))
        gr.on(
            [backend.input, k.release, author.blur, area.input, venue.input],
            chat.save,
            [store, chat_id, chatbot, turns, *choices],
            saved,
            **quick,
        )
        restored = demo.load(
            chat.restore, store, [store, chatbot, turns, chat_id, saved, *choices], **quick
        )
        restored.then(chat.panel, [turns], exports, **quick)
        chatbot.select(chat.select, turns, shown, **quick).then(
            chat.panel, [turns, shown], exports, **quick
        )
        copy_md.click(None, answer_md, None, js=COPY_JS, **quick)
        copy_bib.click(None, answer_bib, None, js=COPY_JS, **quick)
        download.click(None, conversation_md, None, js=DOWNLOAD_JS, **quick)
        search.change(chat.papers, search, table, **quick)
        table.select(picked_title, None, paper, **quick)
        summarize.click(
            chat.summarize,
            [paper, backend],
            [summary, summary_sources],
            api_visibility="undocumented",
            **queued,
        )
    return demo


def picked_title(event: gr.SelectData) -> str:
    """The title of the table row the user clicked."""
    return event.row_value[0]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Login:
    """Checks the UI's username and password in constant time; each failed attempt in a row
    waits longer before answering (1 s, 2 s, ... up to MAX_DELAY_S), so guessing is slow."""

    MAX_DELAY_S = 8.0

    def __init__(self, username: str, password: str, sleep=time.sleep):
        self.username, self.password, self.sleep = username, password, sleep
        self.failures = 0
        self.lock = threading.Lock()

    def __call__(self, username: str, password: str) -> bool:
        import hmac

        ok = hmac.compare_digest(username.encode(), self.username.encode()) & hmac.compare_digest(
            password.encode(), self.password.encode()
        )
        with self.lock:
            self.failures = 0 if ok else self.failures + 1
            delay = min(float(self.failures), self.MAX_DELAY_S)
        if not ok:
            log.warning("Failed UI login for %r (%d in a row)", username[:40], self.failures)
            self.sleep(delay)
        return ok


def auth_for(settings: Settings) -> Login | None:
    """Basic auth from settings; binding beyond loopback without it is refused."""
    if settings.ui_username and settings.ui_password:
        return Login(settings.ui_username, settings.ui_password.get_secret_value())
    if not is_loopback(settings.ui_host):
        raise ConfigError(
            f"The UI would listen on {settings.ui_host}, beyond this machine, without a password. "
            "Set RAG_UI_USERNAME and RAG_UI_PASSWORD, or bind to 127.0.0.1."
        )
    return None


def port_is_free(settings: Settings) -> None:
    """A clear error (not Gradio's traceback) when the UI's port is taken."""
    import socket

    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            probe.bind((settings.ui_host, settings.ui_port))
        except OSError:
            raise ConfigError(
                f"Port {settings.ui_port} on {settings.ui_host} is in use (another `rag ui`?); "
                "set RAG_UI_PORT or pass --port to use another one."
            ) from None


def launch(settings: Settings, chat: Chat | None = None, block: bool = True) -> gr.Blocks:
    """Serve the app on settings.ui_host:ui_port (loopback by default)."""
    auth = auth_for(settings)
    port_is_free(settings)
    chat = chat or Chat(settings)
    chat.warm_up()
    demo = build(chat)
    demo.queue(default_concurrency_limit=settings.ui_concurrency)
    demo.launch(
        server_name=settings.ui_host,
        server_port=settings.ui_port,
        auth=auth,
        ssr_mode=False,
        show_error=False,
        prevent_thread_lock=True,
        quiet=True,
        footer_links=["api"],
        css=render.CSS,
    )
    print(f"The chat is serving at {demo.local_url}", flush=True)
    if block:
        demo.block_thread()
    return demo
