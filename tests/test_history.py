"""Conversations kept on the server under a random per-browser id: what is saved, what comes
back, what another browser sees (nothing), what the page is given (no key to anything), and
stored entries that do not validate (dropped with a log line, never a crash)."""

import json
import logging
import sqlite3

import pytest

from rag.models import Answer
from ui import history
from ui.app import Chat, build
from ui.turns import Turn

SETTINGS = ("extractive", 7, "Meng", "", "")


def answer(question: str) -> Answer:
    return Answer(question=question, text=f"About {question} [1].", backend="fake")


def turn(question: str) -> tuple[list[Turn], str]:
    """A conversation of one answered question, and the browser's time zone."""
    return [Turn(question=question, status="answered", answer=answer(question))], "Europe/Zurich"


def title(label: str) -> str:
    """A conversation's label without its time ("What is AnaCP? · 5 Dec 14:02")."""
    return label.rsplit(" · ", 1)[0]


@pytest.fixture
def chat(fake_index, fake_retriever, tmp_path):
    settings = fake_index.model_copy(update={"data_dir": tmp_path / "data"})
    return Chat(settings, retriever=fake_retriever, backends={"fake": None, "extractive": None})


def test_a_conversation_and_the_settings_come_back_to_the_same_browser_only(chat):
    browser, messages, turns, chat_id, *_ = chat.restore(None)  # a browser's first visit
    assert history.BROWSER_ID.fullmatch(browser) and (messages, turns) == ([], [])
    chat.save(browser, chat_id, *turn("What is AnaCP?"), *SETTINGS)

    again = chat.restore(browser, "Europe/Zurich")  # the page reloaded (or the server restarted)
    assert again[0] == browser and again[3] == chat_id
    assert [m["role"] for m in again[1]] == ["user", "assistant", "assistant"]
    assert again[1][0]["content"] == "What is AnaCP?"
    assert again[1][1]["content"].startswith("###### Answer 1 · *sources shown* · ")
    assert again[2] == turn("What is AnaCP?")[0] and tuple(again[5:10]) == SETTINGS
    [(label, key)] = again[4]["choices"]
    assert key == chat_id and title(label) == "What is AnaCP?" and ":" in label.split(" · ")[-1]

    other = chat.restore(None)  # another browser
    assert other[0] != browser and other[1:3] == ([], []) and other[4]["choices"] == []
    assert chat.open(other[0], chat_id)[:2] == ([], [])


def test_the_browser_keeps_only_its_id_and_the_page_holds_no_key(chat):
    """The page is sent its BrowserState's key (it encrypts in the browser): that key must
    protect nothing, so it is no file of the data dir, and no conversation is in the page."""
    browser, _, _, chat_id, *_ = chat.restore("")
    chat.save(browser, chat_id, *turn("What is zorblax frobnication?"), *SETTINGS)
    config = build(chat).get_config_file()
    [state] = [c["props"] for c in config["components"] if c["type"] == "browserstate"]
    assert state["default_value"] == ""  # the browser holds an id, nothing else
    page = json.dumps(config, default=str)
    assert "zorblax" not in page
    for path in chat.settings.data_dir.iterdir():
        assert state["secret"] not in path.read_bytes().decode(errors="ignore")
    assert [path.name for path in chat.settings.data_dir.iterdir()] == [history.FILE]
    assert (chat.settings.data_dir / history.FILE).stat().st_mode & 0o777 == 0o600


def test_new_chat_delete_and_the_newest_30_per_browser(chat):
    browser = chat.restore(None)[0]
    ids = []
    for n in range(history.MAX_CHATS + 3):
        _, _, chat_id, _, _ = chat.new_chat(browser)
        chat.save(browser, chat_id, *turn(f"q{n}"), *SETTINGS)
        ids.append(chat_id)
    titles = [title(label) for label, _ in chat.conversations.choices(browser)]
    assert len(titles) == history.MAX_CHATS and titles[0] == f"q{history.MAX_CHATS + 2}"
    assert "q0" not in titles
    messages, turns, new_id, listed, undo = chat.forget(browser, ids[-1], "Europe/Zurich")
    assert (messages, turns) == ([], []) and new_id != ids[-1]
    assert ids[-1] not in {key for _, key in listed["choices"]}
    assert undo["visible"] and undo["value"] == f"Undo: bring back “q{history.MAX_CHATS + 2}”"
    messages, turns, back, listed, undo = chat.undelete(browser, "Europe/Zurich")
    assert back == ids[-1] and turns == turn(f"q{history.MAX_CHATS + 2}")[0]
    assert listed["value"] == back and not undo["visible"]  # back, open, and listed
    with pytest.warns(UserWarning, match="no deleted conversation"):
        chat.undelete(browser)  # only once


def test_two_conversations_with_the_same_first_question_read_differently():
    at = 1_765_000_000.0  # 2025-12-06 05:46 UTC (another year than now: the year is shown)
    rows = [("Which papers?", at), ("Which papers?", at + 5), ("Other", at)]
    assert history.labels(rows, "UTC") == [
        "Which papers? · 6 Dec 2025 05:46 (1)",
        "Which papers? · 6 Dec 2025 05:46 (2)",
        "Other · 6 Dec 2025 05:46",
    ]
    zurich = history.labels([("Which papers?", at)], "Europe/Zurich")
    assert zurich == ["Which papers? · 6 Dec 2025 06:46"]  # in the browser's time zone
    assert history.labels([("q", at)], "Not/AZone") == history.labels([("q", at)])


def test_an_id_that_is_not_ours_gets_a_new_one_and_saves_nothing(chat):
    for sent in (None, "", 7, {"chats": {}}, "short", "x" * 43 + "'; DROP TABLE chats; --"):
        assert history.BROWSER_ID.fullmatch(history.browser_id(sent))
        assert chat.save(sent, "c1", *turn("q"), *SETTINGS)["choices"] == []
    assert not (chat.settings.data_dir / history.FILE).exists()
    kept = history.browser_id(None)
    assert history.browser_id(kept) == kept


def tamper(data_dir, browser: str) -> None:
    """Entries another version, a hand edit or a damaged disk could leave."""
    good = history.SavedChat(title="Good", updated=2.0, turns=turn("Good?")[0])
    with sqlite3.connect(data_dir / history.FILE) as db:
        db.execute("DELETE FROM browsers")
        db.execute("INSERT INTO browsers VALUES (?, NULL, '[1, 2]', 1.0)", (browser,))
        rows = [
            ("good", 2.0, "Good", good.model_dump_json()),
            ("string", 3.0, "A string", json.dumps("just a string")),
            ("no-turns", 4.0, "No turns", json.dumps({"title": "t", "updated": 1, "messages": []})),
            ("text-date", "yesterday", "Mixed", good.model_dump_json()),
            ("not-json", 5.0, "Garbage", "{not json"),
            ("bad-turn", 6.0, "Bad turn", json.dumps(good.model_dump() | {"turns": ["x"]})),
        ]
        db.executemany("INSERT INTO chats VALUES (?, ?, ?, ?, ?)", [(browser, *r) for r in rows])


def test_stored_entries_that_do_not_validate_are_dropped_with_a_log_line(chat, caplog):
    browser, _, _, chat_id, *_ = chat.restore(None)
    chat.save(browser, chat_id, *turn("first"), *SETTINGS)  # creates the database
    tamper(chat.settings.data_dir, browser)
    with caplog.at_level(logging.WARNING):
        restored = chat.restore(browser)  # no "current", settings a list: defaults
        assert restored[0] == browser and restored[1:3] == ([], [])
        assert restored[6] == chat.settings.top_k and restored[7] == ""
        listed = {key: title(label) for label, key in restored[4]["choices"]}
        assert "text-date" not in listed and listed["good"] == "Good"
        for key in ("string", "no-turns", "not-json", "bad-turn"):
            assert chat.open(browser, key)[:2] == ([], [])
        assert chat.open(browser, "good")[1] == turn("Good?")[0]
        chat.save(browser, "new", *turn("after"), *SETTINGS)  # saving still works
    dropped = [r.getMessage() for r in caplog.records if "Dropped" in r.getMessage()]
    assert len(dropped) == 5  # the settings and four conversations, one line each
    titles = [title(label) for label, _ in chat.conversations.choices(browser)]
    assert titles == ["after", "first", "Good"]


def test_a_conversation_stored_before_turns_reads_as_turns(chat):
    """The format before turns: the chat's messages and the answers side by side (a stopped
    turn's draft and a failure's message only in the messages)."""
    browser, _, _, chat_id, *_ = chat.restore(None)
    chat.save(browser, chat_id, *turn("first"), *SETTINGS)  # creates the database
    old = {
        "title": "What is AnaCP?",
        "updated": 3.0,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "What is AnaCP?"}]},
            {"role": "assistant", "content": "About AnaCP [1].\n\n*fake · 0.1 s*"},
            {"role": "user", "content": "What\\'s next?"},
            {"role": "assistant", "content": "It \\*may\\*\n\n" + history_stopped()},
            {"role": "user", "content": "And then?"},
            {"role": "assistant", "content": "⚠ The local backend is unavailable\\."},
        ],
        "turns": [answer("What is AnaCP?").model_dump(mode="json"), None, None],
    }
    with sqlite3.connect(chat.settings.data_dir / history.FILE) as db:
        db.execute(
            "INSERT INTO chats VALUES (?, 'old', 3.0, 'What is AnaCP?', ?)",
            (browser, json.dumps(old)),
        )
    turns = chat.open(browser, "old")[1]
    assert [(t.question, t.status) for t in turns] == [
        ("What is AnaCP?", "answered"),
        ("What's next?", "stopped"),
        ("And then?", "failed"),
    ]
    assert turns[0].answer == answer("What is AnaCP?") and turns[1].draft == "It *may*"
    assert turns[2].failure == "The local backend is unavailable."


def history_stopped() -> str:
    from ui import render

    return render.STOPPED


def test_a_database_that_cannot_be_used_is_logged_and_the_page_still_works(chat, caplog):
    chat.settings.data_dir.mkdir(parents=True, exist_ok=True)
    (chat.settings.data_dir / history.FILE).write_bytes(b"this is not a database" * 100)
    with caplog.at_level(logging.WARNING):
        browser, messages, turns, chat_id, *_ = chat.restore(None)
        assert (messages, turns) == ([], [])
        chat.save(browser, chat_id, *turn("q"), *SETTINGS)
        chat.save(browser, chat_id, *turn("q"), *SETTINGS)
        chat.forget(browser, chat_id)
    warned = [r.getMessage() for r in caplog.records if "Cannot" in r.getMessage()]
    assert len(warned) == 2 and all(history.FILE in line for line in warned)  # once per action
