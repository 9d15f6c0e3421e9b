"""`Chat`: every handler the page wires, in one object (ui/layout.py wires it, the tests call it
without a browser). Each job is a part of its own: the answerer pool (ui/answerers.py), the chat
tab (ui/chat.py), the conversations (ui/conversations.py), the Papers tab (ui/papers.py) and the
API (ui/api.py)."""

from rag.answer.pipeline import Answerer
from rag.config import Settings
from rag.retrieve import Retriever
from ui import history
from ui.answerers import AnswererPool
from ui.api import ApiHandlers
from ui.chat import ChatHandlers
from ui.conversations import ConversationHandlers
from ui.papers import PapersHandlers


class Chat(ChatHandlers, ConversationHandlers, PapersHandlers, ApiHandlers):
    """What the page does, without the page: the parts' handlers over one answerer pool.
    One instance serves every session; conversations live in each session's state."""

    def __init__(
        self,
        settings: Settings,
        retriever: Retriever | None = None,
        backends: dict[str, str | None] | None = None,
        answerers: dict[str, Answerer] | None = None,
    ):
        """`backends` maps each offered backend to None or the reason it is unavailable
        (default: checked now); `answerers` may supply ready answerers by backend name."""
        # The parts need only these two attributes (their own __init__ sets them when used alone).
        self.pool = AnswererPool(settings, retriever, backends, answerers)
        self.conversations = history.Conversations(settings.data_dir)
        self.settings, self.retriever = settings, self.pool.retriever
        self.backends = self.pool.backends

    def examples(self) -> list[str]:
        """The example questions this index can answer."""
        return self.pool.examples()
