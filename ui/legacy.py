"""Conversations an earlier version kept in the browser, brought over to the server once.

That version stored them in the browser's localStorage under `rag-conversations`, as Gradio's
BrowserState writes it: AES-256-CBC in CryptoJS's passphrase format ("iv:" + base64 of
"Salted__", an 8-byte salt and the ciphertext; key and iv derived from the passphrase
SHA-256(secret) by OpenSSL's EVP_BytesToKey with MD5), the secret being the random key it kept
in the data dir (`ui-secret`). The page sends the stored text as it is; the server decrypts it
with that key, which never leaves the server. Every conversation is validated as the server's
own are (`history.LegacyChat`); one that does not validate is dropped with a log line. The
page then removes the old value, so this happens once per browser."""

import base64
import hashlib
import json
import logging
from pathlib import Path

from pydantic import ValidationError

from ui import history

log = logging.getLogger(__name__)

STORAGE_KEY = "rag-conversations"  # where the earlier version kept them in localStorage
SECRET_FILE = "ui-secret"  # its key, in the data dir
# JS, on page load: the old value as stored (encrypted), or "" when there is none.
READ_JS = f"() => localStorage.getItem({json.dumps(STORAGE_KEY)}) || ''"
# JS, once the server has read it: remove it, so it is brought over only once.
CLEAR_JS = f"(read) => {{ if (read) localStorage.removeItem({json.dumps(STORAGE_KEY)}); }}"


def secret(data_dir: Path) -> str | None:
    """The earlier version's key, if it left one."""
    try:
        return (data_dir / SECRET_FILE).read_text().strip() or None
    except OSError:
        return None


def evp_bytes_to_key(passphrase: bytes, salt: bytes, size: int = 48) -> bytes:
    """OpenSSL's EVP_BytesToKey with MD5 and one round, as CryptoJS derives a key and iv."""
    derived, block = b"", b""
    while len(derived) < size:
        block = hashlib.md5(block + passphrase + salt).digest()
        derived += block
    return derived[:size]


def decrypt(stored: str, key: str) -> str | None:
    """The text BrowserState encrypted with `key`, or None when it is not that."""
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    try:
        _, _, body = stored.partition(":")
        raw = base64.b64decode(body, validate=True)
        if not raw.startswith(b"Salted__") or len(raw) < 32 or len(raw) % 16:
            return None
        passphrase = hashlib.sha256(key.encode()).hexdigest().encode()
        derived = evp_bytes_to_key(passphrase, raw[8:16])
        cipher = Cipher(algorithms.AES(derived[:32]), modes.CBC(derived[32:]))
        decryptor, unpadder = cipher.decryptor(), padding.PKCS7(128).unpadder()
        plain = decryptor.update(raw[16:]) + decryptor.finalize()
        return (unpadder.update(plain) + unpadder.finalize()).decode()
    except ValueError:  # not base64, bad padding (another key), not UTF-8
        return None


def chats_of(store) -> dict[str, history.SavedChat]:
    """The old store's conversations that validate, by id; the others are dropped, logged."""
    chats = store.get("chats") if isinstance(store, dict) else None
    kept = {}
    for chat_id, chat in (chats if isinstance(chats, dict) else {}).items():
        try:
            if not isinstance(chat_id, str) or not chat_id or len(chat_id) > 64:
                raise ValueError(f"a conversation id that is not one of ours: {chat_id!r:.40}")
            kept[chat_id] = history.SavedChat.model_validate(chat)
        except (ValidationError, ValueError, TypeError) as error:
            log.warning("Dropped a conversation kept in the browser: %s", history.short(error))
    return kept


def bring_over(conversations: history.Conversations, browser: str, stored, data_dir: Path) -> bool:
    """Bring the browser's old conversations into the server's store; True when the old value
    was read (it may then be removed), False when there was none or it cannot be read here."""
    if not isinstance(stored, str) or not stored:
        return False
    key = secret(data_dir)
    text = decrypt(stored, key) if key else None
    if text is None:
        log.warning(
            "Conversations an earlier version kept in a browser cannot be read: %s",
            f"no {SECRET_FILE} in {data_dir}" if not key else "not encrypted with its key",
        )
        return False
    try:
        store = json.loads(text)
    except ValueError:
        store = None
    if not isinstance(store, dict):
        log.warning("Dropped what an earlier version kept in a browser: not its conversations.")
        return True
    chats = chats_of(store)
    current = store.get("current") if store.get("current") in chats else ""
    conversations.adopt(browser, current, settings_of(store))  # first: a browser's chats need it
    for chat_id, chat in chats.items():
        conversations.add(browser, chat_id, chat)
    log.info("Brought %d conversation(s) over from a browser's storage.", len(chats))
    return True


def settings_of(store: dict) -> history.SavedSettings:
    """The old store's settings, or the defaults when they do not validate (logged)."""
    try:
        return history.SavedSettings.model_validate(store.get("settings") or {})
    except ValidationError as error:
        log.warning("Dropped settings kept in the browser: %s", history.short(error))
        return history.SavedSettings()
