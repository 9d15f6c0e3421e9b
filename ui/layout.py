"""The page: one function per area (chat column, conversations, sources panel, settings, Papers
tab) puts its components in a `Page`, then the events are wired to `Chat`'s handlers."""

from types import SimpleNamespace

import gradio as gr

from ui import legacy, render
from ui.handlers import Chat
from ui.papers import picked_title, summary_button, summary_update
from ui.turns import FILTERS

# Handlers that return at once skip the queue (answers wait there) and stay out of the API docs.
QUICK = {"queue": False, "api_visibility": "undocumented"}

COPY_JS = "(text) => navigator.clipboard.writeText(text)"
# JS on page load: the browser's time zone, and the conversations an earlier version kept in it
# (see ui/legacy.py).
BROWSER_JS = f"""() => [
  Intl.DateTimeFormat().resolvedOptions().timeZone || "", ({legacy.READ_JS})()
]"""
DOWNLOAD_JS = """(text) => {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], {type: "text/markdown"}));
  link.download = "conversation.md";
  link.click();
  URL.revokeObjectURL(link.href);
}"""


class Page(SimpleNamespace):
    """The page's components by name, filled in area by area, for the wiring."""

    @property
    def choices(self) -> list:
        """The settings a conversation keeps and each answer uses."""
        return [self.backend, self.k, self.author, self.area, self.venue]

    @property
    def filters(self) -> list:
        return [self.author, self.area, self.venue]

    @property
    def kept(self) -> list:
        """What saving a conversation reads."""
        return [self.store, self.chat_id, self.turns, self.zone, *self.choices]

    @property
    def exports(self) -> list:
        """The shown answer's turn, sources panel and exports, and the buttons that take them
        (see `Chat.panel`)."""
        return [
            self.shown,
            self.sources,
            self.answer_md,
            self.answer_bib,
            self.conversation_md,
            self.copy_md,
            self.copy_bib,
            self.download,
        ]


def queued(chat: Chat) -> dict:
    """Answers share one queue slot pool (`answers`) so the model is never oversubscribed; a
    waiting question shows in the chat with its place in the queue."""
    return {"concurrency_id": "answers", "concurrency_limit": chat.settings.ui_concurrency}


def build(chat: Chat) -> gr.Blocks:
    """The page."""
    with gr.Blocks(title="Paper QA") as demo:
        gr.Markdown(
            f"## Ask the papers\n{len(chat.retriever.catalog)} papers indexed. Every claim is "
            "cited by the paper's real title and checked against its abstract."
        )
        page = session_state()
        with gr.Tab("Chat"):
            with gr.Row():
                with gr.Column(scale=3):
                    chat_column(chat, page)
                with gr.Column(scale=2):
                    sources_panel(page)
            with gr.Accordion("Settings", open=False):
                settings_area(chat, page)
        with gr.Tab("Papers"):
            papers_tab(chat, page)
        wire(chat, page, demo)
    return demo


def session_state() -> Page:
    """Each session's state: the browser's id, the open conversation's id, its turns, the
    answer shown and the browser's time zone; and the hidden boxes the page load reads the
    browser through (its time zone, conversations an earlier version kept in it)."""
    # Only the browser's id is kept in the browser; its conversations stay on the server.
    # (BrowserState encrypts in the page, with a key sent to the page: it hides nothing.)
    store = gr.BrowserState("", storage_key="rag-browser", secret="rag-browser-id")
    chat_id, turns, shown, zone = gr.State(""), gr.State([]), gr.State(None), gr.State("")
    zone_box, old_box, read = (gr.Textbox(visible=False) for _ in range(3))
    return Page(
        store=store,
        chat_id=chat_id,
        turns=turns,
        shown=shown,
        zone=zone,
        zone_box=zone_box,
        old_box=old_box,
        read=read,
    )


def chat_column(chat: Chat, page: Page) -> None:
    """The conversation, the question box with the active filters and its buttons and backend,
    example questions and the browser's conversations."""
    page.chatbot = gr.Chatbot(
        label="Conversation",
        height=520,
        latex_delimiters=render.LATEX,
        feedback_options=None,
        buttons=["copy", "copy_all"],
        group_consecutive_messages=False,
        elem_id="chat",
    )
    page.question = gr.Textbox(
        placeholder="Ask about the papers…", show_label=False, elem_id="question"
    )
    filter_chips(page)
    with gr.Row():
        # Ask waits for the page load to bring the conversation back, so a question asked at
        # once is not replaced by it.
        page.send = gr.Button("Ask", variant="primary", interactive=False, elem_id="ask")
        page.stop = gr.Button("Stop", interactive=False, elem_id="stop")
        page.clear = gr.Button("New chat", elem_id="new-chat")
        page.backend = gr.Dropdown(
            chat.pool.usable(),  # why the others are not: in Settings
            value=chat.pool.default_backend(),
            show_label=False,
            container=False,
            elem_id="backend",
        )
    if examples := chat.examples():
        gr.Examples(examples, inputs=page.question, label="Try")
    conversations_row(page)


def filter_chips(page: Page) -> None:
    """The filters on, as chips that remove them, and "Ask again without filters" after a
    decline under filters."""
    with gr.Row(elem_id="filters", elem_classes="rag-chips"):
        page.chips = [
            gr.Button(visible=False, size="sm", elem_id=f"chip-{name}", elem_classes="rag-chip")
            for name in FILTERS
        ]
        page.retry = gr.Button(
            "Ask again without filters", visible=False, size="sm", elem_id="retry"
        )


def conversations_row(page: Page) -> None:
    """The browser's saved conversations, Delete for the open one, and Undo after a delete."""
    with gr.Row():
        page.saved = gr.Dropdown([], label="Conversations (of this browser)", elem_id="saved")
        with gr.Column():
            page.delete = gr.Button("Delete conversation", size="sm", elem_id="delete")
            page.undo = gr.Button(visible=False, size="sm", variant="primary", elem_id="undo")


def sources_panel(page: Page) -> None:
    """The shown answer's sources, with copy and download buttons (and their hidden texts)."""
    page.sources = gr.Markdown(
        render.sources_html(None), latex_delimiters=render.LATEX, elem_id="sources"
    )
    with gr.Row():
        page.copy_md = gr.Button(
            "Copy as Markdown", size="sm", interactive=False, elem_id="copy-md"
        )
        page.copy_bib = gr.Button("Copy BibTeX", size="sm", interactive=False, elem_id="copy-bib")
        page.download = gr.Button(
            "Download conversation", size="sm", interactive=False, elem_id="save-md"
        )
    page.answer_md, page.answer_bib, page.conversation_md = (
        gr.Textbox(visible=False) for _ in range(3)
    )


def settings_area(chat: Chat, page: Page) -> None:
    """Sources (k), the author, area and venue filters, and why a backend is unavailable."""
    catalog = chat.retriever.catalog
    page.k = gr.Slider(1, 10, value=chat.settings.top_k, step=1, label="Sources")
    with gr.Row():
        page.author = gr.Textbox(label="Author contains")
        with_area = sum(1 for p in catalog.papers() if p.area)
        page.area = gr.Dropdown(
            ["", *chat.pool.areas()],
            value="",
            label="Area",
            info=f"{with_area} of {len(catalog)} papers have an area; "
            "the others are left out while an area is chosen.",
            allow_custom_value=True,
        )
        page.venue = gr.Dropdown(
            ["", *chat.pool.venues()], value="", label="Venue", allow_custom_value=True
        )
    if notes := chat.pool.backend_notes():
        gr.Markdown(notes)


def papers_tab(chat: Chat, page: Page) -> None:
    """The papers table with its filter, and a cited summary of the paper picked (none until a
    row is clicked: the button says so)."""
    page.search = gr.Textbox(label="Filter papers", placeholder="title, author, area or venue")
    page.table = gr.Dataframe(
        chat.papers(),
        headers=["Title", "Authors", "Area", "Venue"],
        interactive=False,
        wrap=True,
        column_widths=["45%", "30%", "12%", "13%"],
        elem_id="papers",
    )
    with gr.Row():
        page.paper = gr.Dropdown(
            chat.titles(),
            value=None,
            label="Paper (click a row, or type a topic)",
            allow_custom_value=True,
            elem_id="paper",
        )
        page.summarize = gr.Button(**summary_button(None), variant="primary", elem_id="summarize")
    with gr.Row():
        page.summary = gr.Markdown(latex_delimiters=render.LATEX, elem_classes="rag-summary")
        page.summary_sources = gr.Markdown(latex_delimiters=render.LATEX)


def wire(chat: Chat, page: Page, demo: gr.Blocks) -> None:
    """Every event, the API's first (the order is the order of the page's endpoints)."""
    gr.api(chat.api_ask, api_name="ask", **queued(chat))
    gr.api(chat.api_summarize, api_name="summarize", **queued(chat))
    wire_questions(chat, page)
    wire_filters(chat, page)
    wire_conversations(chat, page, demo)
    wire_panel(chat, page)
    wire_papers(chat, page)


def then_save(chat: Chat, page: Page, event) -> None:
    """After the conversation changed: refresh the panel and the filter chips, keep the
    conversation."""
    event.then(chat.panel, [page.turns], page.exports, **QUICK).then(
        chat.chips, [page.turns, *page.filters], [*page.chips, page.retry], **QUICK
    ).then(chat.save, page.kept, page.saved, **QUICK)


def wire_questions(chat: Chat, page: Page) -> None:
    """Ask (the button, Enter, or "Ask again without filters") shows the question at once and
    answers it in the queue; Stop cancels the answer."""
    asked, posted_to = [], [page.chatbot, page.turns, page.question, page.stop]
    cleared = page.retry.click(chat.unfiltered, page.turns, [*page.filters, page.question], **QUICK)
    for trigger in (page.send.click, page.question.submit, cleared.then):
        posted = trigger(chat.post, [page.question, page.turns], posted_to, **QUICK)
        answered = posted.then(
            chat.respond,
            [page.turns, *page.choices],
            [page.chatbot, page.turns],
            api_visibility="undocumented",
            **queued(chat),
        )
        asked.append(answered)
        answered.then(chat.idle, None, page.stop, **QUICK)
        then_save(chat, page, answered)
    conversation = [page.chatbot, page.turns]
    stopped = page.stop.click(chat.stop, page.turns, conversation, cancels=asked, **QUICK)
    stopped.then(chat.idle, None, page.stop, **QUICK)
    then_save(chat, page, stopped)


def wire_filters(chat: Chat, page: Page) -> None:
    """A filter chip removes its filter; the chips follow the filters as they change."""
    for chip, box in zip(page.chips, page.filters):
        removed = chip.click(lambda: "", None, box, **QUICK)
        removed.then(chat.save, page.kept, page.saved, **QUICK)
    gr.on(
        [box.change for box in page.filters],
        chat.chips,
        [page.turns, *page.filters],
        [*page.chips, page.retry],
        **QUICK,
    )


def wire_conversations(chat: Chat, page: Page, demo: gr.Blocks) -> None:
    """New chat, delete (and undo), reopen, keep settings as they change, and restore on page
    load (bringing over what an earlier version kept in the browser)."""
    conversation = [page.chatbot, page.turns, page.chat_id]
    listed = [*conversation, page.saved, page.undo]
    started = page.clear.click(chat.new_chat, [page.store, page.zone], listed, **QUICK)
    then_save(chat, page, started)
    open_one = [page.store, page.chat_id, page.zone]
    then_save(chat, page, page.chatbot.clear(chat.forget, open_one, listed, **QUICK))
    then_save(chat, page, page.delete.click(chat.forget, open_one, listed, **QUICK))
    then_save(chat, page, page.undo.click(chat.undelete, [page.store, page.zone], listed, **QUICK))
    reopened = page.saved.input(
        chat.open, [page.store, page.saved], [*conversation, page.undo], **QUICK
    )
    then_save(chat, page, reopened)
    edited = [
        page.backend.input,
        page.k.release,
        page.author.input,  # kept as typed: a reload before the box loses focus keeps it too
        page.author.blur,
        page.area.input,
        page.venue.input,
    ]
    gr.on(edited, chat.save, page.kept, page.saved, **QUICK)  # the settings, as they change
    read_browser = demo.load(None, None, [page.zone_box, page.old_box], js=BROWSER_JS, **QUICK)
    restored = read_browser.then(
        chat.restore,
        [page.store, page.zone_box, page.old_box, page.turns],
        [page.store, *conversation, page.saved, *page.choices, page.zone, page.read],
        **QUICK,
    )
    restored.then(lambda: gr.update(interactive=True), None, page.send, **QUICK)
    restored.then(chat.panel, [page.turns], page.exports, **QUICK).then(
        chat.chips, [page.turns, *page.filters], [*page.chips, page.retry], **QUICK
    ).then(None, page.read, None, js=legacy.CLEAR_JS, **QUICK)


def wire_panel(chat: Chat, page: Page) -> None:
    """Clicking an answer shows its sources (and marks it in the chat); the copy and download
    buttons run in the page."""
    page.chatbot.select(chat.select, page.turns, [page.shown, page.chatbot], **QUICK).then(
        chat.panel, [page.turns, page.shown], page.exports, **QUICK
    )
    page.copy_md.click(None, page.answer_md, None, js=COPY_JS, **QUICK)
    page.copy_bib.click(None, page.answer_bib, None, js=COPY_JS, **QUICK)
    page.download.click(None, page.conversation_md, None, js=DOWNLOAD_JS, **QUICK)


def wire_papers(chat: Chat, page: Page) -> None:
    """The table's filter (the paper picked follows it), the row clicked picks the paper, the
    button says which, and its summary (in the queue)."""
    searched = page.search.change(chat.papers, page.search, page.table, **QUICK)
    searched.then(chat.paper_choices, [page.search, page.paper], page.paper, **QUICK)
    page.table.select(picked_title, None, page.paper, **QUICK)
    page.paper.change(summary_update, page.paper, page.summarize, **QUICK)
    page.summarize.click(
        chat.summarize,
        [page.paper, page.backend],
        [page.summary, page.summary_sources],
        api_visibility="undocumented",
        **queued(chat),
    )
