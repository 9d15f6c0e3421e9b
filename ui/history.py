"""Conversations kept in the browser (Gradio's BrowserState, encrypted with a key only the
server has): each conversation's messages and checked answers, and the last settings used.
The store is a plain dict, so these functions are tested without a page:

    {"current": id, "settings": {...}, "chats": {id: {"title", "updated", "messages", "turns"}}}
"""

import logging
import os
import secrets
import time
import uuid
from pathlib import Path

from pydantic import ValidationError

from rag.models import Answer

log = logging.getLogger(__name__)

MAX_CHATS = 30  # the oldest go first: the browser gives a page about 5 MB
TITLE_CHARS = 60
SETTINGS = ("backend", "k", "author", "area", "venue")


def new_id() -> str:
    return uuid.uuid4().hex[:12]


def empty() -> dict:
    return {"current": "", "settings": {}, "chats": {}}


def valid(store) -> dict:
    """The store as saved, or an empty one if it is not one of ours."""
    if not isinstance(store, dict) or not isinstance(store.get("chats"), dict):
        return empty()
    return store


def save(
    store: dict, chat_id: str, messages: list[dict], turns: list[Answer | None], settings: dict
) -> dict:
    """The store with this conversation (an empty one is dropped) and these settings."""
    store = valid(store)
    chats = dict(store["chats"])
    if messages:
        first = next((t.question for t in turns if t is not None), None) or "Conversation"
        chats[chat_id] = {
            "title": first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1] + "…",
            "updated": time.time(),
            "messages": messages,
            "turns": [t.model_dump(mode="json") if t is not None else None for t in turns],
        }
    else:
        chats.pop(chat_id, None)
    newest = sorted(chats, key=lambda key: chats[key]["updated"], reverse=True)[:MAX_CHATS]
    return {
        "current": chat_id,
        "settings": {name: settings.get(name) for name in SETTINGS},
        "chats": {key: chats[key] for key in newest},
    }


def load(store: dict, chat_id: str) -> tuple[list[dict], list[Answer | None]]:
    """A saved conversation's messages and answers; nothing if it is gone or unreadable
    (saved by another version of the app)."""
    saved = valid(store)["chats"].get(chat_id)
    if not saved:
        return [], []
    try:
        turns = [Answer.model_validate(t) if t is not None else None for t in saved["turns"]]
        return list(saved["messages"]), turns
    except (KeyError, TypeError, ValidationError) as error:
        log.warning("A saved conversation could not be read, so it starts empty: %s", error)
        return [], []


def remove(store: dict, chat_id: str) -> dict:
    store = valid(store)
    return store | {"chats": {k: v for k, v in store["chats"].items() if k != chat_id}}


def choices(store: dict) -> list[tuple[str, str]]:
    """(title, id) of the saved conversations, newest first."""
    chats = valid(store)["chats"]
    newest = sorted(chats, key=lambda key: chats[key].get("updated", 0), reverse=True)
    return [(chats[key].get("title", "Conversation"), key) for key in newest]


def secret(data_dir: Path) -> str:
    """The key the browser's copy is encrypted with: kept in the data dir, so conversations
    survive a restart of the server (a new key would make them unreadable)."""
    path = data_dir / "ui-secret"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as new:
            new.write(secrets.token_hex(32))
    except FileExistsError:
        pass
    except OSError as error:
        log.warning(
            "Cannot keep the UI key in %s (%s): saved conversations last until the server stops.",
            path,
            error.strerror,
        )
        return secrets.token_hex(32)
    return path.read_text().strip()
