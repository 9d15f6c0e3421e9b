"""Screenshots of the chat as a new researcher meets it (issue 32), into docs/screenshots/:
the seeds indexed with the bundled embedder (once, in --index), the app on the fake backend
(instant answers; `--backend local` for the bundled model), Debian's chromium driven by
Playwright at 1400x900 and on a 390x844 phone. Each picture is reduced to a 64-colour PNG.

    PYTHONPATH=$PWD .venv/bin/python scripts/screenshots.py before      # docs/screenshots/before-*.png
    PYTHONPATH=$PWD .venv/bin/python scripts/screenshots.py after filters papers
"""

import argparse
import io
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.conftest import ANSWERED, CHROMIUM, CHROMIUM_FLAGS, SEEDS, TITLES, free_port

DESKTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
# JS: the chat shows n checked answers, none being written, and the panel the n-th (its handlers
# have run).
ANSWERS = ANSWERED


def index(folder: Path):
    """Settings of the seeds indexed with the bundled embedder in `folder` (built once)."""
    from rag.config import Settings
    from rag.index import run_ingest

    settings = Settings(data_dir=folder, corpus_paths=[SEEDS], titles_path=TITLES)
    if not (folder / "chroma").exists():
        run_ingest(settings, show_progress=False)
    return settings


def serve(settings, backend: str):
    """The app on a free loopback port; conversations in a fresh data dir of their own."""
    from rag.answer.pipeline import Answerer
    from rag.llm.bundled import QWEN_CODER_1_5B
    from rag.llm.fake import FakeBackend
    from rag.retrieve import Retriever
    from ui.app import Chat, launch

    retriever = Retriever(settings)
    if backend == "fake":
        answerer = Answerer(settings, retriever=retriever, backend=FakeBackend())
        chat = Chat(settings, retriever, {"fake": None}, answerers={"fake": answerer})
    else:
        model = QWEN_CODER_1_5B.path(settings.model_store)
        settings = settings.model_copy(update={"llm_backend": backend, "local_model_path": model})
        chat = Chat(settings, retriever=retriever)
    settings = settings.model_copy(update={"ui_port": free_port(), "llm_backend": backend})
    return launch(settings, chat, block=False)


def ask(page, question: str, answers: int, timeout: float = 120_000) -> None:
    page.fill("#question textarea", question)
    page.click("#ask")
    page.wait_for_function(ANSWERS, arg=answers, timeout=timeout)
    page.wait_for_timeout(1_000)  # the chips, buttons and conversations list follow


def pick(page, label: str, option: str) -> None:
    """Choose `option` in the dropdown labelled `label`."""
    page.get_by_label(label, exact=True).click()
    page.get_by_role("option", name=option, exact=True).click()


def filters(page, url: str) -> None:
    """Item 1: Area = Applications, set once, survives a reload with Settings collapsed."""
    page.goto(url)
    page.get_by_text("Settings", exact=True).click()
    pick(page, "Area", "Applications")
    page.wait_for_timeout(1_000)  # the settings are saved as they change
    page.reload()
    page.locator("#question textarea").wait_for()
    ask(page, "How does FIRE balance stability and plasticity?", 1)
    grab(page, "filters")


def off_topic(page, url: str) -> None:
    """Item 2: an off-topic question on a phone."""
    page.goto(url)
    ask(page, "What is the best recipe for sourdough?", 1)
    grab(page, "off-topic-phone")
    if page.query_selector("#chat h6"):  # numbered answers: the issue-32 page
        ask(page, "Which papers study quantum error correction in superconducting qubits?", 2)
        page.locator("#chat .message-row").last.scroll_into_view_if_needed()
        grab(page, "near-miss-phone")


def notices(page, url: str) -> None:
    """Item 3: a list answer, then a follow-up no listed paper meets."""
    page.goto(url)
    ask(page, "Which papers study continual learning?", 1)
    ask(page, "Which of those use a replay buffer?", 2)
    grab(page.locator("#chat"), "notices")


def conditions(page, url: str) -> None:
    """Item 3: a follow-up no listed paper meets: the notice names the condition."""
    page.goto(url)
    ask(page, "Which papers use optimal transport?", 1)
    ask(page, "Which of those use a replay buffer?", 2)
    grab(page.locator("#chat"), "conditions")


def conversations(page, url: str) -> None:
    """Item 4: the same first question in two conversations, the list of conversations."""
    page.goto(url)
    ask(page, "Which papers study continual learning?", 1)
    page.click("#new-chat")
    ask(page, "Which papers study continual learning?", 1)
    ask(page, "How does FIRE balance stability and plasticity?", 2)
    page.locator("#saved input").click()
    page.get_by_role("option").first.wait_for()
    grab(page, "conversations")
    page.keyboard.press("Escape")
    numbered = page.query_selector("#chat h6") is not None  # the issue-32 page
    page.click("#delete")
    if numbered:
        page.locator("#undo").wait_for()
        grab(page.locator("#delete").locator("xpath=../../.."), "delete-undo")


def papers(page, url: str) -> None:
    """Item 5: the Papers tab, filtered."""
    page.goto(url)
    page.get_by_role("tab", name="Papers").click()
    page.get_by_label("Filter papers").fill("pricing")
    page.wait_for_timeout(1_500)
    grab(page, "papers")
    if page.query_selector("#summarize"):
        page.locator("#papers [role=gridcell]", has_text="Bayesian Approach").first.click()
        page.wait_for_timeout(1_000)
        grab(page, "papers-picked")


def papers_phone(page, url: str) -> None:
    """Item 5: the Papers table on a phone."""
    page.goto(url)
    page.get_by_role("tab", name="Papers").click()
    page.locator("table").first.wait_for()
    grab(page, "papers-phone")


def details(page, url: str) -> None:
    """Item 6: the buttons before any question; an abstract with emphasis and a percentage."""
    page.goto(url)
    page.locator("#question textarea").wait_for()
    grab(page.locator("#ask").locator("xpath=../.."), "buttons")
    ask(page, "How does Bisecle use the hippocampus for continual learning?", 1)
    grab(page.locator("#sources"), "abstract-emphasis")
    ask(page, "How much does CaRe-BN improve SNN performance?", 2)
    grab(page.locator("#sources"), "percent")


PREFIX = ""
OUT = REPO / "docs" / "screenshots"


def grab(target, name: str) -> None:
    """A 64-colour PNG of the page's viewport or of one element."""
    from PIL import Image

    png = target.screenshot(animations="disabled")
    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=64)
    path = OUT / f"{PREFIX}-{name}.png"
    image.save(path, optimize=True)
    print(f"{path}: {path.stat().st_size // 1024} KB", flush=True)


SCENARIOS = {
    "filters": (filters, DESKTOP),
    "off-topic": (off_topic, PHONE),
    "notices": (notices, DESKTOP),
    "conditions": (conditions, DESKTOP),
    "conversations": (conversations, DESKTOP),
    "papers": (papers, DESKTOP),
    "papers-phone": (papers_phone, PHONE),
    "details": (details, DESKTOP),
}


def main() -> None:
    global PREFIX, OUT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix", help="file name prefix: before, after ...")
    parser.add_argument("scenarios", nargs="*", help=f"default: all of {', '.join(SCENARIOS)}")
    parser.add_argument("--index", type=Path, default=Path("/tmp/rag-screenshots-index"))
    parser.add_argument("--backend", default="fake")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    PREFIX, OUT = args.prefix, args.out
    OUT.mkdir(parents=True, exist_ok=True)
    wanted = args.scenarios or list(SCENARIOS)
    unknown = [name for name in wanted if name not in SCENARIOS]
    if unknown:
        raise SystemExit(f"Unknown scenario {unknown}; choose from {', '.join(SCENARIOS)}")
    settings = index(args.index)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        for name in wanted:
            run, viewport = SCENARIOS[name]
            demo = serve(
                settings.model_copy(update={"data_dir": fresh(args.index, name)}), args.backend
            )
            try:
                context = browser.new_context(viewport=viewport)
                context.grant_permissions(["clipboard-read", "clipboard-write"])
                run(context.new_page(), demo.local_url)
                context.close()
            finally:
                demo.close()
        browser.close()


def fresh(folder: Path, name: str) -> Path:
    """A data dir with the index but no conversations: the index's files linked in."""
    import shutil

    data = folder.parent / (folder.name + "-" + re.sub(r"\W", "", name))
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(folder, data, ignore=shutil.ignore_patterns("conversations.sqlite3"))
    return data


if __name__ == "__main__":
    main()
