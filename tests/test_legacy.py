"""Conversations an earlier version kept in the browser (Gradio's BrowserState, encrypted with
the key it kept in the data dir) are brought over to the server once, validated as the server's
own are: the old value is decrypted on the server, bad entries are dropped with a log line, and
the page is told it may remove the old value."""

import base64
import hashlib
import json
import logging
import os

import pytest

from rag.models import Answer
from tests.conftest import PRICING_QUESTION
from ui import history, legacy
from ui.app import Chat

KEY = "0f" * 32  # the earlier version's secrets.token_hex(32)


def encrypt(text: str, key: str) -> str:
    """What BrowserState's page code (CryptoJS) writes: base64 iv ':' base64 of the OpenSSL
    salted format, with key and iv from the passphrase SHA-256(key)."""
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    salt = os.urandom(8)
    passphrase = hashlib.sha256(key.encode()).hexdigest().encode()
    derived = legacy.evp_bytes_to_key(passphrase, salt)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(text.encode()) + padder.finalize()
    encryptor = Cipher(algorithms.AES(derived[:32]), modes.CBC(derived[32:])).encryptor()
    body = b"Salted__" + salt + encryptor.update(padded) + encryptor.finalize()
    return base64.b64encode(os.urandom(16)).decode() + ":" + base64.b64encode(body).decode()


def old_chat(question: str, updated: float) -> dict:
    """A conversation as the earlier version stored it: messages and answers side by side."""
    answer = Answer(question=question, text=f"About {question}.", backend="fake")
    return {
        "title": question,
        "updated": updated,
        "messages": [
            {"role": "user", "content": question},
            {"role": "assistant", "content": f"About {question}.\n\n*fake · 0.1 s*"},
        ],
        "turns": [answer.model_dump(mode="json")],
    }


OLD_STORE = {
    "current": "c2",
    "settings": {"backend": "fake", "k": 4, "author": "Meng", "area": None, "venue": None},
    "chats": {
        "c1": old_chat("What is AnaCP?", 1.0),
        "c2": old_chat(PRICING_QUESTION, 2.0),
        "bad": {"title": "Broken", "updated": 3.0, "messages": [{"role": "robot"}], "turns": []},
        "worse": "just a string",
    },
}


@pytest.fixture
def chat(fake_index, fake_retriever, tmp_path):
    settings = fake_index.model_copy(update={"data_dir": tmp_path / "data"})
    settings.data_dir.mkdir()
    return Chat(settings, retriever=fake_retriever, backends={"fake": None})


def test_the_old_conversations_come_over_once_and_bad_ones_are_dropped(chat, caplog):
    (chat.settings.data_dir / legacy.SECRET_FILE).write_text(KEY)
    stored = encrypt(json.dumps(OLD_STORE), KEY)
    with caplog.at_level(logging.WARNING):
        browser, messages, turns, chat_id, listed, *settings, zone, read = chat.restore(
            None, "Europe/Zurich", stored
        )
    assert read == "read"  # the page may now remove the old value
    assert chat_id == "c2" and [t.question for t in turns] == [PRICING_QUESTION]
    assert turns[0].status == "answered" and messages[0]["content"] == PRICING_QUESTION
    assert [key for _, key in listed["choices"]] == ["c2", "c1"]  # the newest first
    assert settings == ["fake", 4, "Meng", "", ""] and zone == "Europe/Zurich"
    dropped = [r.getMessage() for r in caplog.records if "Dropped a conversation" in r.getMessage()]
    assert len(dropped) == 2  # "bad" and "worse", one line each
    again = chat.restore(browser, "", "")  # the page removed the old value: nothing more
    assert [key for _, key in again[4]["choices"]] == ["c2", "c1"] and again[-1] == ""


def test_an_old_value_that_cannot_be_read_is_left_in_the_browser_and_logged(chat, caplog):
    stored = encrypt(json.dumps(OLD_STORE), KEY)
    with caplog.at_level(logging.WARNING):
        assert chat.restore(None, "", stored)[-1] == ""  # no key here: left in the browser
        (chat.settings.data_dir / legacy.SECRET_FILE).write_text("another key")
        assert chat.restore(None, "", stored)[-1] == ""  # another key: left too
        assert chat.restore(None, "", "not:encrypted")[-1] == ""
    said = [r.getMessage() for r in caplog.records if "cannot be read" in r.getMessage()]
    assert len(said) == 3 and "no ui-secret" in said[0]
    assert not history.Conversations(chat.settings.data_dir).choices("x" * 43)
