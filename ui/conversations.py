"""The conversations handlers: each browser's conversations and last settings, kept on the
server (ui/history.py) under the id the page load gives the browser, restored (with those an
earlier version kept in the browser brought over once, ui/legacy.py), saved, reopened, started
anew, deleted and undeleted."""

import gradio as gr

from ui import history, legacy
from ui.answerers import AnswererPool
from ui.turns import Turn, messages


class ConversationHandlers:
    """The conversations handlers over `self.conversations`; `self.pool` gives the backends."""

    def __init__(self, pool: AnswererPool, conversations: history.Conversations):
        self.pool, self.conversations = pool, conversations

    def restore(self, browser: str, zone: str = "", old: str = "", asked=()) -> tuple:
        """Page load: the browser's id (a new one if it has none), its last conversation, the
        list of its conversations, its last settings, its time zone, and whether the
        conversations an earlier version kept in the browser (`old`) were read; yields (browser
        id, messages, turns, chat id, conversations, backend, k, author, area, venue, zone,
        read). A conversation already begun on the page (a question asked before the page
        finished loading) is left as it is."""
        browser = history.browser_id(browser)
        read = legacy.bring_over(self.conversations, browser, old, self.pool.settings.data_dir)
        chat_id = self.conversations.current(browser) or history.new_id()
        turns = self.conversations.load(browser, chat_id)
        saved = self.conversations.settings(browser)
        zone = zone if history.zone_of(zone) else ""
        begun = bool(asked)  # the turns already on the page
        return (
            browser,
            gr.skip() if begun else messages(turns),
            gr.skip() if begun else turns,
            gr.skip() if begun else chat_id,
            self.choices(browser, chat_id, zone),
            saved.backend if saved.backend in self.pool.usable() else self.pool.default_backend(),
            saved.k or min(self.pool.settings.top_k, 10),
            saved.author or "",
            saved.area or "",
            saved.venue or "",
            zone,
            "read" if read else "",
        )

    def save(self, browser: str, chat_id: str, turns: list[Turn], zone: str, *settings) -> tuple:
        """Keep the conversation and settings (for a browser the page load gave its id):
        yields the conversations list."""
        if browser := history.known_id(browser):
            chosen = dict(zip(history.SETTINGS, settings))
            self.conversations.save(browser, chat_id, turns, chosen)
        return self.choices(browser, chat_id, zone)

    def open(self, browser: str, chat_id: str) -> tuple:
        """Reopen a saved conversation: yields (messages, turns, chat id, undo)."""
        if not (browser := history.known_id(browser)):
            return [], [], chat_id, gr.update(visible=False)
        turns = self.conversations.load(browser, chat_id)
        return messages(turns), turns, chat_id, gr.update(visible=False)

    def new_chat(self, browser: str, zone: str = "") -> tuple:
        """An empty conversation (the current one stays in the list): yields (messages, turns,
        chat id, conversations, undo)."""
        chat_id = history.new_id()
        listed = self.choices(history.known_id(browser), chat_id, zone)
        return [], [], chat_id, listed, gr.update(visible=False)

    def forget(self, browser: str, chat_id: str, zone: str = "") -> tuple:
        """Delete the open conversation (the trash icon, or Delete) and start an empty one, so
        nothing of it reaches the next question; Undo brings it back. Yields (messages, turns,
        chat id, conversations, undo)."""
        title = None
        if known := history.known_id(browser):
            title = self.conversations.remove(known, chat_id)
        *emptied, _ = self.new_chat(browser, zone)
        if not title:
            return (*emptied, gr.update(visible=False))
        undo = f"Undo: bring back “{title}”"
        return (*emptied, gr.update(visible=True, value=undo))

    def undelete(self, browser: str, zone: str = "") -> tuple:
        """Undo the last delete: the conversation is back, and open. Yields (messages, turns,
        chat id, conversations, undo)."""
        chat_id = None
        if known := history.known_id(browser):
            chat_id = self.conversations.restore(known)
        if not chat_id:
            gr.Warning("There is no deleted conversation to bring back.")
            return gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.update(visible=False)
        turns = self.conversations.load(known, chat_id)
        listed = self.choices(known, chat_id, zone)
        return messages(turns), turns, chat_id, listed, gr.update(visible=False)

    def choices(self, browser: str | None, chat_id: str, zone: str = ""):
        """The conversations list, with the open one selected (if it was saved)."""
        choices = self.conversations.choices(browser, zone) if browser else []
        saved = chat_id in {key for _, key in choices}
        return gr.update(choices=choices, value=chat_id if saved else None)
