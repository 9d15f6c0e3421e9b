"""The Gradio app: a chat with streamed, checked, cited answers; the sources panel for the
selected answer; backend, k and filter controls; a Papers tab with cited summaries; and the
same answers as an API (`/ask`, `/summarize`) for gradio_client.

This module is the app's front door; each job has a module of its own:
ui/handlers.py (`Chat`, every handler in one object, made of ui/answerers.py, ui/chat.py,
ui/conversations.py, ui/papers.py and ui/api.py), ui/layout.py (`build`, the page) and
ui/serving.py (`launch`, login and binding)."""

from ui.answerers import EXAMPLES, AnswererPool
from ui.handlers import Chat
from ui.layout import build
from ui.serving import Login, auth_for, is_loopback, launch, port_is_free

__all__ = [
    "EXAMPLES",
    "AnswererPool",
    "Chat",
    "Login",
    "auth_for",
    "build",
    "is_loopback",
    "launch",
    "port_is_free",
]
