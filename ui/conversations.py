"""The conversations handlers: each browser's conversations and last settings, kept on the
server (ui/history.py) under the id the page load gives the browser, restored, saved, reopened,
started anew and deleted."""

import gradio as gr

from ui import history
from ui.answerers import AnswererPool


class ConversationHandlers:
    """The conversations handlers over `self.conversations`; `self.pool` gives the backends."""

    def __init__(self, pool: AnswererPool, conversations: history.Conversations):
        self.pool, self.conversations = pool, conversations

    def restore(self, browser: str) -> tuple:
        """Page load: the browser's id (a new one if it has none), its last conversation, the
        list of its conversations and its last settings; yields (browser id, messages, turns,
        chat id, conversations, backend, k, author, area, venue)."""
        browser = history.browser_id(browser)
        chat_id = self.conversations.current(browser) or history.new_id()
        messages, turns = self.conversations.load(browser, chat_id)
        saved = self.conversations.settings(browser)
        return (
            browser,
            messages,
            turns,
            chat_id,
            self.choices(browser, chat_id),
            saved.backend if saved.backend in self.pool.usable() else self.pool.default_backend(),
            saved.k or min(self.pool.settings.top_k, 10),
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
