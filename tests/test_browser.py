"""End to end in a real headless Chromium (Debian's, driven by Playwright): the page loads,
a seed question gets a streamed answer from the bundled local model, and the paper's real
title appears in the answer's references and in the sources panel. Set UI_SCREENSHOT to also
copy the screenshot there (the README's picture is made this way)."""

import os
import shutil
import threading
import time

import pytest

from rag.answer.pipeline import Answerer
from rag.llm.fake import FakeBackend
from tests.conftest import BUNDLED_MODEL, free_port
from tests.test_answer import PRICING, PRICING_QUESTION
from ui.app import Chat, launch

CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium tries to reach Google's hosts at start.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.slow


@pytest.fixture
def app_url(seed_index, retriever):
    settings = seed_index.model_copy(
        update={"ui_port": free_port(), "llm_backend": "local", "local_model_path": BUNDLED_MODEL}
    )
    demo = launch(settings, Chat(settings, retriever=retriever), block=False)
    yield demo.local_url
    demo.close()


@pytest.fixture
def page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        yield page
        browser.close()


def test_seed_question_in_the_browser(app_url, page, tmp_path):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(app_url)
    page.fill("#question textarea", PRICING_QUESTION)
    page.click("#ask")
    page.wait_for_selector("#chat .rag-draft", timeout=120_000)  # streaming has started
    references = page.wait_for_selector("#chat .rag-refs", timeout=240_000)
    assert PRICING in references.inner_text()
    assert PRICING in page.inner_text("#sources")
    assert page.query_selector("#sources mark"), "the supporting sentence is highlighted"
    assert page.query_selector("#chat .rag-draft") is None, "the draft was replaced"
    assert "local ·" in page.inner_text("#chat")
    shot = tmp_path / "chat.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if os.environ.get("UI_SCREENSHOT"):
        shutil.copy(shot, os.environ["UI_SCREENSHOT"])
    elsewhere = [url for url in requests if not url.startswith(app_url.rstrip("/"))]
    assert not elsewhere, f"the page fetched from elsewhere: {elsewhere[:3]}"


def test_hostile_text_stays_inert_in_the_browser(app_url, page):
    """A question carrying HTML, JS and markdown links is shown literally, never run."""
    hostile = '<img src=x onerror="window.pwned=1"> [click](http://evil.example) <b>bold</b>?'
    page.goto(app_url)
    page.fill("#question textarea", hostile)
    page.click("#ask")
    page.wait_for_selector("#chat .rag-meta:not(.rag-draft + .rag-meta)", timeout=240_000)
    chat = page.inner_text("#chat")
    assert "[click](http://evil.example)" in chat and "<b>bold</b>" in chat
    assert page.evaluate("window.pwned") is None
    assert page.query_selector("#chat a[href^='http://evil']") is None
    assert page.query_selector("#chat img[src='x']") is None


class EndlessBackend(FakeBackend):
    """The first answer streams a word every 0.2 s for a minute (until stopped); later answers
    come at once. Records when a stream is closed, as a model server sees its client leave."""

    def __init__(self):
        super().__init__()
        self.closed, self.calls = threading.Event(), 0

    def stream(self, prompt):
        self.calls += 1
        if self.calls > 1:
            yield from super().stream(prompt)
            return
        try:
            for _ in range(300):
                time.sleep(0.2)
                yield "more "
        finally:
            self.closed.set()


def test_stop_ends_the_answer_keeps_the_draft_and_frees_the_queue(seed_index, retriever, page):
    backend = EndlessBackend()
    settings = seed_index.model_copy(update={"ui_port": free_port()})
    answerer = Answerer(settings, retriever=retriever, backend=backend)
    chat = Chat(settings, retriever, {"fake": None}, answerers={"fake": answerer})
    demo = launch(settings.model_copy(update={"llm_backend": "fake"}), chat, block=False)
    try:
        page.goto(demo.local_url)
        page.fill("#question textarea", PRICING_QUESTION)
        page.click("#ask")
        page.wait_for_function("document.querySelector('#chat .rag-draft')?.innerText.length > 20")
        started = time.monotonic()
        page.click("#stop")
        page.wait_for_selector("#chat .rag-stopped", timeout=10_000)
        assert backend.closed.wait(10), "the generation was not ended"
        print(f"stopped after {time.monotonic() - started:.2f} s")
        assert "more more" in page.inner_text("#chat"), "the partial draft stays"
        page.fill("#question textarea", PRICING_QUESTION)
        page.click("#ask")  # the one queue slot is free again: the next question is answered
        references = page.wait_for_selector("#chat .rag-refs", timeout=120_000)
        assert PRICING in references.inner_text()
    finally:
        demo.close()
