"""Conversations kept on the server, in the data dir (conversations.sqlite3): each browser's
conversations (their messages and checked answers) and its last settings, under a random id
the server gives the browser. The browser keeps only that id (in its localStorage), so a copy
of the browser's storage holds no conversation; whoever has the id can read that browser's
conversations through this server, as with a session cookie.

What is read back is validated (`SavedChat`, `SavedSettings`): an entry that does not validate
(written by another version, edited by hand, damaged) is dropped with a log line, never a
crash. A database that cannot be used (read-only, full) is logged, and conversations then last
as long as the page."""

import logging
import re
import secrets
import sqlite3
import time
import uuid
from contextlib import closing
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rag.models import Answer

log = logging.getLogger(__name__)

FILE = "conversations.sqlite3"
MAX_CHATS = 30  # per browser; the oldest go first
MAX_BROWSERS = 1_000  # browsers kept, the most recently seen
TITLE_CHARS = 60
SETTINGS = ("backend", "k", "author", "area", "venue")
BROWSER_ID = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)
SCHEMA = """
CREATE TABLE IF NOT EXISTS browsers (
    browser TEXT PRIMARY KEY, current TEXT, settings TEXT, seen REAL);
CREATE TABLE IF NOT EXISTS chats (
    browser TEXT, chat TEXT, updated REAL, title TEXT, body TEXT, PRIMARY KEY (browser, chat));
"""


class ChatMessage(BaseModel):
    """One message as the chat shows it (Markdown)."""

    model_config = ConfigDict(extra="ignore")
    role: Literal["user", "assistant"]
    content: str

    @field_validator("content", mode="before")
    @classmethod
    def _text(cls, content):
        """Gradio hands a message back as a list of parts; its text parts are the message."""
        if isinstance(content, list):
            return "".join(p.get("text") or "" for p in content if isinstance(p, dict))
        return content


class SavedChat(BaseModel):
    """A stored conversation: what the chat shows, and the checked answer of each turn."""

    title: str = Field(max_length=TITLE_CHARS)
    updated: float
    messages: list[ChatMessage]
    turns: list[Answer | None]


class SavedSettings(BaseModel):
    """The settings a browser used last."""

    backend: str | None = None
    k: int | None = Field(None, ge=1, le=10)
    author: str | None = Field(None, max_length=1_000)
    area: str | None = Field(None, max_length=1_000)
    venue: str | None = Field(None, max_length=1_000)


def new_id() -> str:
    """A conversation's id (unique within its browser)."""
    return uuid.uuid4().hex[:12]


def browser_id(sent) -> str:
    """The browser's id as it sent it, or a new one when it has none (or not one of ours)."""
    return known_id(sent) or secrets.token_urlsafe(32)


def known_id(sent) -> str | None:
    """The browser's id as it sent it, if it is one of ours."""
    return sent if isinstance(sent, str) and BROWSER_ID.fullmatch(sent) else None


def title_of(turns: list[Answer | None]) -> str:
    first = next((t.question for t in turns if t is not None), None) or "Conversation"
    return first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1] + "…"


class Conversations:
    """Every browser's conversations and settings, in one SQLite file in the data dir."""

    def __init__(self, data_dir: Path):
        self.path = data_dir / FILE
        self._failed: set[str] = set()

    def _run(self, action: str, work, default=None):
        """`work(db)` in one transaction; a database that cannot be used is logged (once per
        action) and gives `default`."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():  # conversations are this user's to read
                self.path.touch(mode=0o600)
            with closing(sqlite3.connect(self.path, timeout=10)) as db, db:
                db.executescript(SCHEMA)
                return work(db)
        except (sqlite3.Error, OSError) as error:
            if action not in self._failed:
                self._failed.add(action)
                log.warning(
                    "Cannot %s conversations in %s (%s): they last as long as the page.",
                    action,
                    self.path,
                    error,
                )
            return default

    def current(self, browser: str) -> str:
        """The conversation the browser had open last ("" if none)."""
        row = self._run(
            "read",
            lambda db: db.execute(
                "SELECT current FROM browsers WHERE browser = ?", (browser,)
            ).fetchone(),
        )
        return row[0] if row and isinstance(row[0], str) else ""

    def settings(self, browser: str) -> SavedSettings:
        """The browser's last settings (the defaults if there are none or they are unreadable)."""
        row = self._run(
            "read",
            lambda db: db.execute(
                "SELECT settings FROM browsers WHERE browser = ?", (browser,)
            ).fetchone(),
        )
        if not row or row[0] is None:
            return SavedSettings()
        try:
            return SavedSettings.model_validate_json(row[0])
        except ValidationError as error:
            log.warning("Dropped unreadable saved settings of a browser: %s", short(error))
            return SavedSettings()

    def choices(self, browser: str) -> list[tuple[str, str]]:
        """(title, id) of the browser's readable conversations, newest first."""
        rows = self._run(
            "read",
            lambda db: db.execute(
                "SELECT chat, updated, title FROM chats WHERE browser = ?", (browser,)
            ).fetchall(),
            [],
        )
        readable = [
            (updated, title, chat)
            for chat, updated, title in rows
            if isinstance(updated, int | float) and isinstance(title, str) and isinstance(chat, str)
        ]
        return [(title, chat) for _, title, chat in sorted(readable, reverse=True)]

    def load(self, browser: str, chat_id: str) -> tuple[list[dict], list[Answer | None]]:
        """A saved conversation's messages and answers; nothing if it is gone, or unreadable
        (then it is dropped, with a log line)."""
        row = self._run(
            "read",
            lambda db: db.execute(
                "SELECT body FROM chats WHERE browser = ? AND chat = ?", (browser, chat_id)
            ).fetchone(),
        )
        if not row:
            return [], []
        try:
            saved = SavedChat.model_validate_json(row[0])
        except (ValidationError, TypeError) as error:
            log.warning("Dropped an unreadable saved conversation: %s", short(error))
            self.remove(browser, chat_id)
            return [], []
        return [m.model_dump() for m in saved.messages], saved.turns

    def save(self, browser: str, chat_id: str, messages: list, turns: list, settings: dict) -> None:
        """Keep this conversation (an empty one is dropped), make it the browser's current
        one, and keep these settings."""
        try:
            chosen = SavedSettings.model_validate(
                {name: value for name, value in settings.items() if name in SETTINGS}
            )
            chat = None
            if messages:
                chat = SavedChat(
                    title=title_of(turns), updated=time.time(), messages=messages, turns=turns
                )
        except ValidationError as error:
            log.warning("A conversation was not saved: %s", short(error))
            return

        def write(db):
            now = time.time()
            db.execute(
                "INSERT OR REPLACE INTO browsers VALUES (?, ?, ?, ?)",
                (browser, chat_id, chosen.model_dump_json(), now),
            )
            if chat is None:
                db.execute("DELETE FROM chats WHERE browser = ? AND chat = ?", (browser, chat_id))
            else:
                db.execute(
                    "INSERT OR REPLACE INTO chats VALUES (?, ?, ?, ?, ?)",
                    (browser, chat_id, chat.updated, chat.title, chat.model_dump_json()),
                )
            prune(db, browser)

        self._run("save", write)

    def remove(self, browser: str, chat_id: str) -> None:
        self._run(
            "save",
            lambda db: db.execute(
                "DELETE FROM chats WHERE browser = ? AND chat = ?", (browser, chat_id)
            ),
        )


def prune(db, browser: str) -> None:
    """Only the browser's MAX_CHATS newest conversations, and the MAX_BROWSERS browsers seen
    last."""
    db.execute(
        "DELETE FROM chats WHERE browser = ? AND chat NOT IN (SELECT chat FROM chats "
        "WHERE browser = ? ORDER BY updated DESC LIMIT ?)",
        (browser, browser, MAX_CHATS),
    )
    kept = "SELECT browser FROM browsers ORDER BY seen DESC LIMIT ?"
    db.execute(f"DELETE FROM browsers WHERE browser NOT IN ({kept})", (MAX_BROWSERS,))
    db.execute(f"DELETE FROM chats WHERE browser NOT IN ({kept})", (MAX_BROWSERS,))


def short(error: Exception) -> str:
    return " ".join(str(error).split())[:300]
