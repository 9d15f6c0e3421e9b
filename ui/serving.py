"""Serving the page: who may bind where (a password beyond loopback), the login that slows
guessing, a clear error for a busy port, and `launch`."""

import ipaddress
import logging
import threading
import time

import gradio as gr

from rag.config import Settings
from rag.errors import ConfigError
from ui import render
from ui.handlers import Chat
from ui.layout import build

log = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    """Whether `host` is this machine only (localhost or a loopback address)."""
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
    chat.pool.warm_up()
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
        js=render.PAGE_JS,
    )
    print(f"The chat is serving at {demo.local_url}", flush=True)
    if block:
        demo.block_thread()
    return demo
