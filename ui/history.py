"""Conversations kept on the server, in the data dir (conversations.sqlite3): each browser's
conversations (their turns: ui/turns.py) and its last settings, under a random id
the server gives the browser. The browser keeps only that id (in its localStorage), so a copy
of the browser's storage holds no conversation; whoever has the id can read that browser's
conversations through this server, as with a session cookie.

What is read back is validated (`SavedChat`, `SavedSettings`): an entry that does not validate
(written by another version, edited by hand, damaged) is dropped with a log line, never a
crash; one in the format before turns (messages and answers side by side) is read as turns. A
database that cannot be used (read-only, full) is logged, and conversations then last as long
as the page. A deleted conversation waits in the trash (one per browser) until Undo or the
next delete."""

import logging
import re
import secrets
import sqlite3
import time
import uuid
from collections import Counter
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from rag.models import Answer
from ui.turns import Turn, from_messages

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
CREATE TABLE IF NOT EXISTS trash (
    browser TEXT PRIMARY KEY, chat TEXT, updated REAL, title TEXT, body TEXT);
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


class LegacyChat(BaseModel):
    """A conversation as stored before turns: the chat's messages, and each turn's checked
    answer (None when it failed or was stopped), side by side."""

    title: str
    updated: float
    messages: list[ChatMessage]
    turns: list[Answer | None]


class SavedChat(BaseModel):
    """A stored conversation: its turns (the chat's messages are derived from them)."""

    title: str = Field(max_length=TITLE_CHARS)
    updated: float
    turns: list[Turn]

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data):
        """A conversation stored before turns is read as turns (validated as it was)."""
        if isinstance(data, dict) and "messages" in data:
            old = LegacyChat.model_validate(data)
            messages = [message.model_dump() for message in old.messages]
            return {
                "title": title_of(from_messages(messages, old.turns)),
                "updated": old.updated,
                "turns": from_messages(messages, old.turns),
            }
        return data


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


def title_of(turns: list[Turn]) -> str:
    """A conversation's title: its first question."""
    first = next((t.question for t in turns if t.question.strip()), None) or "Conversation"
    first = " ".join(first.split())
    return first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1] + "…"


def zone_of(name) -> ZoneInfo | None:
    """The browser's time zone (an IANA name it reported); None (the server's) if unknown."""
    try:
        return ZoneInfo(name) if isinstance(name, str) and name else None
    except (ValueError, KeyError, OSError):  # not a zone name, or not one this machine knows
        return None


def labels(rows: list[tuple[str, float]], zone=None) -> list[str]:
    """Each conversation's label: its title and when it was last used ("… · 5 Dec 14:02"),
    numbered where two would read the same."""
    now = datetime.now(zone_of(zone)).year
    texts = []
    for title, updated in rows:
        when = datetime.fromtimestamp(updated, zone_of(zone))
        texts.append(
            f"{title} · {when.strftime('%-d %b %Y %H:%M' if when.year != now else '%-d %b %H:%M')}"
        )
    counts, seen = Counter(texts), Counter()
    for i, text in enumerate(texts):
        if counts[text] > 1:
            seen[text] += 1
            texts[i] = f"{text} ({seen[text]})"
    return texts


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

    def choices(self, browser: str, zone=None) -> list[tuple[str, str]]:
        """(label, id) of the browser's readable conversations, newest first: each labelled by
        its first question and when it was last used, in the browser's time `zone`."""
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
        newest = sorted(readable, reverse=True)
        named = labels([(title, updated) for updated, title, _ in newest], zone)
        return [(label, chat) for label, (_, _, chat) in zip(named, newest)]

    def load(self, browser: str, chat_id: str) -> list[Turn]:
        """A saved conversation's turns; none if it is gone, or unreadable (then it is dropped,
        with a log line)."""
        row = self._run(
            "read",
            lambda db: db.execute(
                "SELECT body FROM chats WHERE browser = ? AND chat = ?", (browser, chat_id)
            ).fetchone(),
        )
        if not row:
            return []
        try:
            return SavedChat.model_validate_json(row[0]).turns
        except (ValidationError, TypeError) as error:
            log.warning("Dropped an unreadable saved conversation: %s", short(error))
            self._run("save", lambda db: forget(db, "chats", browser, chat_id))
            return []

    def save(self, browser: str, chat_id: str, turns: list[Turn], settings: dict) -> None:
        """Keep this conversation (an empty one is dropped), make it the browser's current
        one, and keep these settings."""
        try:
            chosen = SavedSettings.model_validate(
                {name: value for name, value in settings.items() if name in SETTINGS}
            )
            chat = None
            if turns:
                turns = [Turn.model_validate(turn) for turn in turns]
                chat = SavedChat(title=title_of(turns), updated=time.time(), turns=turns)
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
                forget(db, "chats", browser, chat_id)
            else:
                keep(db, browser, chat_id, chat)
            prune(db, browser)

        self._run("save", write)

    def adopt(self, browser: str, current: str, settings: SavedSettings) -> None:
        """A browser's current conversation and settings brought over from elsewhere, unless
        it has its own already."""
        self._run(
            "save",
            lambda db: db.execute(
                "INSERT OR IGNORE INTO browsers VALUES (?, ?, ?, ?)",
                (browser, current, settings.model_dump_json(), time.time()),
            ),
        )

    def add(self, browser: str, chat_id: str, chat: SavedChat) -> None:
        """Keep a conversation as it is (one brought over from elsewhere)."""
        self._run("save", lambda db: (keep(db, browser, chat_id, chat), prune(db, browser)))

    def remove(self, browser: str, chat_id: str) -> str | None:
        """Delete a conversation into the browser's trash (which holds only the last one);
        gives its title, or None when there was none."""

        def move(db):
            row = db.execute(
                "SELECT chat, updated, title, body FROM chats WHERE browser = ? AND chat = ?",
                (browser, chat_id),
            ).fetchone()
            if row:
                db.execute("INSERT OR REPLACE INTO trash VALUES (?, ?, ?, ?, ?)", (browser, *row))
                forget(db, "chats", browser, chat_id)
            return row[2] if row else None

        return self._run("save", move)

    def restore(self, browser: str) -> str | None:
        """Undo the last delete: the conversation back from the trash; gives its id."""

        def move(db):
            row = db.execute(
                "SELECT chat, updated, title, body FROM trash WHERE browser = ?", (browser,)
            ).fetchone()
            if row:
                db.execute("INSERT OR REPLACE INTO chats VALUES (?, ?, ?, ?, ?)", (browser, *row))
                db.execute("DELETE FROM trash WHERE browser = ?", (browser,))
            return row[0] if row else None

        return self._run("save", move)


def keep(db, browser: str, chat_id: str, chat: SavedChat) -> None:
    db.execute(
        "INSERT OR REPLACE INTO chats VALUES (?, ?, ?, ?, ?)",
        (browser, chat_id, chat.updated, chat.title, chat.model_dump_json()),
    )


def forget(db, table: str, browser: str, chat_id: str) -> None:
    db.execute(f"DELETE FROM {table} WHERE browser = ? AND chat = ?", (browser, chat_id))


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
    db.execute(f"DELETE FROM trash WHERE browser NOT IN ({kept})", (MAX_BROWSERS,))


def short(error: Exception) -> str:
    return " ".join(str(error).split())[:300]
