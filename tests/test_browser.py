"""End to end in a real headless Chromium (Debian's, driven by Playwright): the page loads,
a seed question gets a streamed answer from the bundled local model, and the paper's real
title appears in the answer's references and in the sources panel; answers leave as clean
Markdown and BibTeX; the conversation survives a reload (kept on the server); text and formulas show right. Set
UI_SCREENSHOT to also copy the screenshot there (the README's picture is made this way)."""

import os
import re
import shutil
import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from rag.answer.pipeline import Answerer
from rag.llm.fake import FakeBackend
from tests.conftest import ANSWERED, BUNDLED_MODEL, PRICING, PRICING_QUESTION, free_port
from ui import history
from ui.app import Chat, launch

pytestmark = pytest.mark.slow


@pytest.fixture
def app_url(seed_index, retriever):
    settings = seed_index.model_copy(
        update={"ui_port": free_port(), "llm_backend": "local", "local_model_path": BUNDLED_MODEL}
    )
    demo = launch(settings, Chat(settings, retriever=retriever), block=False)
    yield demo.local_url
    demo.close()


def test_seed_question_in_the_browser(app_url, page, tmp_path):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(app_url)
    page.fill("#question textarea", PRICING_QUESTION)
    page.click("#ask")
    page.get_by_text("generating ·").wait_for(timeout=120_000)  # streaming has started
    page.wait_for_function(ANSWERED, arg=1, timeout=240_000)  # ... and was replaced
    assert f"References\n\n{PRICING} — " in page.inner_text("#chat")
    assert PRICING in page.inner_text("#sources")
    assert page.query_selector("#sources mark"), "the supporting sentence is highlighted"
    assert "Answer 1 · sources shown · local model · " in page.inner_text("#chat")
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
    page.wait_for_function(ANSWERED, arg=1, timeout=240_000)
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
    from playwright.sync_api import expect

    backend = EndlessBackend()
    settings = seed_index.model_copy(update={"ui_port": free_port()})
    answerer = Answerer(settings, retriever=retriever, backend=backend)
    chat = Chat(settings, retriever, {"fake": None}, answerers={"fake": answerer})
    demo = launch(settings.model_copy(update={"llm_backend": "fake"}), chat, block=False)
    try:
        page.goto(demo.local_url)
        page.fill("#question textarea", PRICING_QUESTION)
        page.click("#ask")
        page.wait_for_function("document.querySelector('#chat').innerText.includes('more more')")
        started = time.monotonic()
        page.click("#stop")
        # generous waits: the stop is a behaviour here, how fast it is a benchmark's (it timed
        # out at 10 s once, on 2 cores busy with a llama.cpp build)
        page.get_by_text("stopped · this partial draft").wait_for(timeout=60_000)
        assert backend.closed.wait(60), "the generation was not ended"
        print(f"stopped after {time.monotonic() - started:.2f} s")
        assert "more more" in page.inner_text("#chat"), "the partial draft stays"
        expect(page.locator("#stop")).to_be_disabled()  # nothing runs: nothing to stop
        page.fill("#question textarea", PRICING_QUESTION)
        page.click("#ask")  # the one queue slot is free again: the next question is answered
        page.get_by_text("Sources of answer 1:").wait_for(timeout=120_000)  # the stopped: none
        assert f"References\n\n{PRICING} — " in page.inner_text("#chat")
        assert "Answer 1 · sources shown" in page.inner_text("#chat")
        with page.expect_download() as saved:
            page.click("#save-md")  # the export numbers the answers as the chat does
        text = Path(saved.value.path()).read_text(encoding="utf-8")
        assert text.startswith("# Conversation\n\n## 1. ") and "## 2." not in text
    finally:
        demo.close()


@pytest.fixture
def fake_app(seed_index, retriever):
    """The app on the fake backend (instant answers), with a recording of every prompt."""
    backend = FakeBackend()
    settings = seed_index.model_copy(update={"ui_port": free_port(), "llm_backend": "fake"})
    answerer = Answerer(settings, retriever=retriever, backend=backend)
    chat = Chat(settings, retriever, {"fake": None}, answerers={"fake": answerer})
    demo = launch(settings, chat, block=False)
    yield demo.local_url, backend
    demo.close()


def ask(page, question: str, answers: int) -> None:
    page.fill("#question textarea", question)
    page.click("#ask")
    page.wait_for_function(ANSWERED, arg=answers, timeout=120_000)


def test_answers_leave_as_clean_markdown_and_bibtex(fake_app, page):
    import bibtexparser

    url, _ = fake_app
    page.goto(url)
    ask(page, PRICING_QUESTION, 1)
    page.click("#copy-md")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert f"[1]\n\n**References**\n\n1. **{PRICING}** — " in copied and "<" not in copied
    page.click("#copy-bib")
    entries = bibtexparser.parse_string(page.evaluate("navigator.clipboard.readText()")).entries
    assert PRICING in [entry["title"] for entry in entries]
    page.get_by_label("Copy message").last.click()  # the chat's own copy button: the same text
    own = page.evaluate("navigator.clipboard.readText()")
    assert own == copied  # without the label ("Answer 1 · test model · 0.1 s")
    with page.expect_download() as saved:
        page.click("#save-md")
    text = Path(saved.value.path()).read_text(encoding="utf-8")
    assert text.startswith("# Conversation\n\n## 1. ") and copied in text


def saved(data_dir, query: str, wanted) -> None:
    """Wait until the server's conversations database answers `query` with a row for which
    `wanted(row)` holds (the page saves after each change; under load this takes a while)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with closing(sqlite3.connect(data_dir / history.FILE)) as db:
            if any(wanted(row) for row in db.execute(query).fetchall()):
                return
        time.sleep(0.2)
    pytest.fail(f"the server did not save what was expected ({query})")


def test_a_reload_keeps_the_conversation_its_sources_and_the_settings(fake_app, page, seed_index):
    from playwright.sync_api import expect

    url, _ = fake_app
    page.goto(url)
    # opened well before the filter is typed: a box typed into the moment its closed accordion
    # first draws it can be reset to its initial value by the drawing (as no user types)
    page.click("text=Settings")
    ask(page, PRICING_QUESTION, 1)
    ask(page, "What data does it use?", 2)
    # the second answer's save runs after it shows; a filter edited before it lands could be
    # written over by it (both carry the settings as the page had them)
    saved(seed_index.data_dir, "SELECT body FROM chats", lambda row: "What data does it" in row[0])
    page.get_by_label("Author contains").fill("Deyu Meng")
    page.keyboard.press("Tab")  # the filter is kept as typed and when the box loses focus
    expect(page.get_by_label("Author contains")).to_have_value("Deyu Meng")
    saved(seed_index.data_dir, "SELECT settings FROM browsers", lambda row: "Deyu Meng" in row[0])
    before = page.inner_text("#chat")
    page.reload()
    page.wait_for_function(ANSWERED, arg=2, timeout=30_000)
    assert page.inner_text("#chat") == before
    assert "Sources of answer 2:" in page.inner_text("#sources")
    label = page.locator("#saved input").input_value()  # by its question, and when
    assert re.fullmatch(re.escape(PRICING_QUESTION) + r" · \d+ \w+ \d\d:\d\d", label)
    page.click("text=Settings")
    expect(page.get_by_label("Author contains")).to_have_value("Deyu Meng")
    kept = page.evaluate("Object.values(localStorage).join(' ')")
    assert "Deyu" not in kept and "BayesCoxCP" not in kept  # the browser holds only its id
    page.click("#new-chat")
    saved(  # the new, empty chat is the current one (it is in no list yet)
        seed_index.data_dir,
        "SELECT current, settings FROM browsers WHERE current NOT IN (SELECT chat FROM chats)",
        lambda row: "Deyu Meng" in row[1],
    )
    page.reload()
    page.click("text=Settings")
    expect(page.get_by_label("Author contains")).to_have_value("Deyu Meng")  # restored
    assert PRICING_QUESTION not in page.inner_text("#chat")  # the new, empty chat is current
    page.click("#saved input")
    page.get_by_role("option").first.click()  # reopen the earlier one from the list
    page.wait_for_function(ANSWERED, arg=2, timeout=30_000)


def test_the_trash_icon_clears_the_context_of_the_next_question(fake_app, page):
    url, _ = fake_app
    page.goto(url)
    ask(page, PRICING_QUESTION, 1)
    page.get_by_label("Clear").click()
    page.wait_for_function("!document.querySelector('#chat h6')")
    ask(page, "What data does it use?", 1)
    # with the earlier turn as context, "it" would be BayesCoxCP, answered and cited (the
    # question alone now reaches the model too, so the number of prompts tells nothing)
    assert PRICING not in page.inner_text("#chat")
    assert "Sources of answer 1: “What data does it use?”" in page.inner_text("#sources")


def test_apostrophes_and_formulas_show_right(fake_app, page):
    url, _ = fake_app
    page.goto(url)
    question = r"What's the sample complexity $poly(d,1/\epsilon)$ of agnostically learning ReLUs?"
    ask(page, question, 1)
    chat = page.inner_text("#chat")
    assert "What's the sample complexity" in chat and "&#" not in chat
    assert page.query_selector("#chat .message-row .katex"), "the formula is rendered"
    sources = page.inner_text("#sources")
    assert "&#" not in sources and "\\epsilon" not in sources
    assert page.query_selector("#sources .katex"), "the abstract's formulas are rendered"


class GatedBackend(FakeBackend):
    """Answers only once `release` is set, so a second question has to wait in the queue."""

    def __init__(self):
        super().__init__()
        self.release = threading.Event()

    def stream(self, prompt):
        self.release.wait(60)
        yield from super().stream(prompt)


def test_a_waiting_question_shows_with_its_place_in_the_queue(seed_index, retriever, browser):
    backend = GatedBackend()
    settings = seed_index.model_copy(update={"ui_port": free_port(), "ui_concurrency": 1})
    answerer = Answerer(settings, retriever=retriever, backend=backend)
    chat = Chat(settings, retriever, {"fake": None}, answerers={"fake": answerer})
    demo = launch(settings.model_copy(update={"llm_backend": "fake"}), chat, block=False)
    try:
        first, second = (browser.new_page() for _ in range(2))
        for page in (first, second):
            page.goto(demo.local_url)
            page.fill("#question textarea", PRICING_QUESTION)
            page.click("#ask")
            page.locator("#chat").get_by_text(PRICING_QUESTION).wait_for()  # asked, in order
        second.get_by_text("queue: 1/1").wait_for(timeout=10_000)
        assert PRICING_QUESTION in second.inner_text("#chat")  # shown while it waits
        backend.release.set()
        second.wait_for_function(ANSWERED, arg=1, timeout=60_000)
    finally:
        backend.release.set()
        demo.close()


def test_the_papers_table_fits_the_page(fake_app, page):
    url, _ = fake_app
    page.goto(url)
    page.get_by_role("tab", name="Papers").click()
    table = page.locator("table").first
    table.wait_for()
    width, room = table.evaluate("t => [t.scrollWidth, t.parentElement.clientWidth]")
    assert width <= room, "authors, area and venue are visible without scrolling sideways"


def choose(page, label: str, option: str) -> None:
    page.get_by_label(label, exact=True).click()
    page.get_by_role("option", name=option, exact=True).click()


def test_a_hidden_filter_is_a_chip_and_a_decline_under_it_offers_to_ask_without(fake_app, page):
    from playwright.sync_api import expect

    url, _ = fake_app
    page.goto(url)
    page.click("text=Settings")
    choose(page, "Area", "Applications")
    chip = page.locator("#chip-area")
    expect(chip).to_have_text("Area: Applications ✕")  # next to the question box
    page.click("text=Settings")  # Settings collapsed again: the chip still says it
    ask(page, "How does FIRE balance stability and plasticity?", 1)
    chat = page.inner_text("#chat")
    assert "The provided papers do not answer this question." in chat
    assert "Asked with filters on (area “Applications”)" in chat
    page.click("#retry")  # "Ask again without filters"
    page.wait_for_function(ANSWERED, arg=2, timeout=120_000)
    expect(chip).to_be_hidden()
    assert "FIRE: Frobenius-Isometry" in page.inner_text("#sources")
    page.click("text=Settings")
    expect(page.get_by_label("Area", exact=True)).to_have_value("")


def test_a_decline_shows_its_close_papers_in_the_chat_on_a_phone(fake_app, browser):
    url, _ = fake_app
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(url)
    ask(page, "What is the best recipe for sourdough?", 1)
    chat = page.inner_text("#chat")
    assert "The provided papers do not answer this question." in chat
    assert "closest papers" not in chat.casefold() and "AnaCP" not in chat  # off-topic: none
    assert "AnaCP" not in page.inner_text("#sources")
    ask(page, "Which papers study quantum error correction in superconducting qubits?", 2)
    suggested = page.locator("#chat .message-row").last
    assert "The closest papers:" in suggested.inner_text()
    assert "SAQNN" in suggested.inner_text()  # title + one line, in the chat itself
    notice = suggested.locator("blockquote").inner_text()  # quotes conditions, not the question
    assert "'superconducting qubits'" in notice and "Which papers" not in notice


def test_answers_are_numbered_labelled_and_the_one_shown_is_marked(fake_app, page):
    url, _ = fake_app
    page.goto(url)
    ask(page, "Which papers study continual learning?", 1)
    ask(page, PRICING_QUESTION, 2)
    labels = page.locator("#chat h6")
    assert labels.nth(0).inner_text().startswith("Answer 1 · list of papers · no model")
    assert re.fullmatch(
        r"Answer 2 · sources shown · test model · \d+\.\d s", labels.nth(1).inner_text()
    )
    page.locator("#chat .message-row").nth(2).click()  # the first answer
    page.get_by_text("Sources of answer 1:").wait_for()
    assert labels.nth(0).inner_text().startswith("Answer 1 · sources shown")
    assert "sources shown" not in labels.nth(1).inner_text()
    spoken = page.evaluate(
        "[...document.querySelectorAll('#chat [data-testid][aria-label]')]"
        ".map(e => e.getAttribute('aria-label')).join(' | ')"
    )
    assert "References" in spoken and "**" not in spoken and "###" not in spoken


def test_conversations_read_apart_and_a_delete_can_be_undone(fake_app, page):
    from playwright.sync_api import expect

    url, _ = fake_app
    page.goto(url)
    for _ in range(2):
        ask(page, "Which papers study continual learning?", 1)
        page.click("#new-chat")
        page.wait_for_function("!document.querySelector('#chat h6')")
    page.click("#saved input")
    options = page.get_by_role("option").all_inner_texts()
    assert len(options) == 2 and len(set(options)) == 2  # the same question, told apart
    assert all(o.startswith("Which papers study continual learning? · ") for o in options), options
    page.get_by_role("option").first.click()
    page.wait_for_function(ANSWERED, arg=1, timeout=30_000)
    page.click("#delete")
    undo = page.locator("#undo")
    expect(undo).to_have_text("Undo: bring back “Which papers study continual learning?”")
    assert not page.query_selector("#chat h6")  # gone at once, and said so
    undo.click()
    page.wait_for_function(ANSWERED, arg=1, timeout=30_000)  # back, and open
    expect(undo).to_be_hidden()
    page.click("#saved input")
    assert len(page.get_by_role("option").all_inner_texts()) == 2


def test_the_paper_picked_follows_the_filter_and_the_table_wraps_by_word(fake_app, browser):
    from playwright.sync_api import expect

    url, _ = fake_app
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.goto(url)
    page.get_by_role("tab", name="Papers").click()
    button = page.locator("#summarize")
    expect(button).to_have_text("Cited summary: click a paper's row first")
    expect(button).to_be_disabled()
    assert page.locator("#paper input").input_value() == ""  # nothing picked
    page.get_by_label("Filter papers").fill("pricing hazards")
    page.locator("#papers [role=gridcell]", has_text="Bayesian Approach").first.click()
    expect(button).to_have_text(re.compile("Cited summary of “A Bayesian Approach"))
    expect(button).to_be_enabled()
    page.get_by_label("Filter papers").fill("continual")  # the picked paper is filtered out
    expect(button).to_have_text("Cited summary: click a paper's row first")

    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    phone.goto(url)
    phone.get_by_role("tab", name="Papers").click()
    phone.locator("#papers [role=gridcell]").first.wait_for()
    broken = phone.evaluate(
        """() => [...document.querySelectorAll("#papers [role=gridcell]")].slice(0, 40).flatMap(cell => {
          const words = []; const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
          while (walk.nextNode()) { const node = walk.currentNode;
            for (const m of node.textContent.matchAll(/\\S+/g)) {
              const r = document.createRange(); r.setStart(node, m.index);
              r.setEnd(node, m.index + m[0].length);
              const tops = new Set([...r.getClientRects()].map(q => Math.round(q.top)));
              if (tops.size > 1) words.push(m[0]); } }
          return words; })"""
    )
    assert not broken, f"words broken across lines: {broken[:5]}"


def test_the_details_read_right(fake_app, page):
    from playwright.sync_api import expect

    url, _ = fake_app
    page.goto(url)
    expect(page.locator("#stop")).to_be_disabled()  # nothing runs
    for button in ("#copy-md", "#copy-bib", "#save-md"):
        expect(page.locator(button)).to_be_disabled()  # nothing to copy yet
    stop = page.evaluate("getComputedStyle(document.querySelector('#stop')).backgroundColor")
    ask_color = page.evaluate("getComputedStyle(document.querySelector('#ask')).backgroundColor")
    assert stop != ask_color and "239, 68, 68" not in stop  # not the bright red "stop" variant
    ask(page, "How does Bisecle use the hippocampus for continual learning?", 1)
    sources = page.locator("#sources")
    assert "**" not in sources.inner_text()
    assert sources.locator("strong", has_text="Bi").count() >= 1  # **Bi**nding as bold
    sizes = page.evaluate(
        """() => { const size = e => getComputedStyle(e).fontSize;
          const rows = [...document.querySelectorAll('#chat .message-row')];
          const answer = rows[rows.length - 1];
          return [size(answer.querySelector('p')), size(answer.querySelector('ol strong'))]; }"""
    )
    assert float(sizes[1].removesuffix("px")) <= float(sizes[0].removesuffix("px"))
    ask(page, "How much does CaRe-BN improve SNN performance?", 2)
    shown = sources.inner_text()
    assert "22.6%" in shown and "$" not in shown  # a number in $…$ is text, next to its "%"


def test_conversations_an_earlier_version_kept_in_the_browser_come_over_once(
    seed_index, retriever, browser, tmp_path
):
    """The old value is written by Gradio's own BrowserState (as the earlier version wrote it),
    then read by this version's page load, brought over to the server and removed."""
    import gradio as gr

    from tests.test_legacy import KEY, OLD_STORE
    from ui import legacy

    with gr.Blocks() as earlier:
        store = gr.BrowserState(None, storage_key=legacy.STORAGE_KEY, secret=KEY)
        gr.Button("keep", elem_id="keep").click(lambda: OLD_STORE, None, store)
    earlier.launch(server_port=free_port(), prevent_thread_lock=True, quiet=True, ssr_mode=False)
    try:
        old = browser.new_page()
        old.goto(earlier.local_url)
        old.click("#keep")
        old.wait_for_function(f"localStorage.getItem('{legacy.STORAGE_KEY}')")
        stored = old.evaluate(f"localStorage.getItem('{legacy.STORAGE_KEY}')")
    finally:
        earlier.close()
    assert "What is AnaCP" not in stored  # encrypted in the browser

    data = tmp_path / "data"
    data.mkdir()
    (data / legacy.SECRET_FILE).write_text(KEY)  # the key the earlier version left
    settings = seed_index.model_copy(
        update={"ui_port": free_port(), "llm_backend": "fake", "data_dir": data}
    )
    answerer = Answerer(settings, retriever=retriever, backend=FakeBackend())
    demo = launch(settings, Chat(settings, retriever, {"fake": None}, {"fake": answerer}), False)
    try:
        page = browser.new_page()
        page.goto(demo.local_url)
        page.evaluate(f"localStorage.setItem('{legacy.STORAGE_KEY}', {stored!r})")
        page.reload()  # the first visit after the upgrade
        page.wait_for_function(ANSWERED, arg=1, timeout=30_000)
        assert PRICING_QUESTION in page.inner_text("#chat")  # the one that was open
        page.wait_for_function(f"!localStorage.getItem('{legacy.STORAGE_KEY}')")  # removed
        page.reload()  # now from the server alone
        page.wait_for_function(ANSWERED, arg=1, timeout=30_000)
        page.click("#saved input")
        options = page.get_by_role("option").all_inner_texts()
        titles = [o.split("\n")[-1].rsplit(" · ", 1)[0] for o in options]  # "✓\n" if open
        assert titles == [PRICING_QUESTION, "What is AnaCP?"]
    finally:
        demo.close()
