"""Conversations kept in the browser: what is saved, what comes back, what is dropped."""

from rag.models import Answer
from ui import history

SETTINGS = {"backend": "extractive", "k": 7, "author": "Meng", "area": "", "venue": ""}


def answer(question: str) -> Answer:
    return Answer(question=question, text=f"About {question} [1].", backend="fake")


def test_a_conversation_and_the_settings_come_back_as_they_were():
    turns = [answer("What is AnaCP?"), None]
    messages = [
        {"role": "user", "content": "What is AnaCP?"},
        {"role": "assistant", "content": "x"},
    ]
    store = history.save(history.empty(), "a1", messages, turns, SETTINGS)
    assert store["current"] == "a1" and store["settings"] == SETTINGS
    assert history.choices(store) == [("What is AnaCP?", "a1")]
    assert history.load(store, "a1") == (messages, turns)


def test_an_emptied_conversation_is_dropped_and_the_oldest_go_past_the_limit():
    store = history.empty()
    for n in range(history.MAX_CHATS + 5):
        store = history.save(
            store, f"c{n}", [{"role": "user", "content": "q"}], [answer(f"q{n}")], {}
        )
    assert len(store["chats"]) == history.MAX_CHATS
    assert history.choices(store)[0] == (f"q{history.MAX_CHATS + 4}", f"c{history.MAX_CHATS + 4}")
    assert "c0" not in store["chats"]
    store = history.save(store, "c10", [], [], {})  # the trash icon emptied it
    assert "c10" not in store["chats"]
    assert "c11" not in history.remove(store, "c11")["chats"]


def test_long_questions_make_short_titles():
    long = "Which papers " + "really " * 20 + "study continual learning?"
    store = history.save(
        history.empty(), "x", [{"role": "user", "content": long}], [answer(long)], {}
    )
    [(title, _)] = history.choices(store)
    assert len(title) == history.TITLE_CHARS and title.endswith("…")


def test_a_store_that_is_not_ours_or_from_another_version_starts_empty():
    assert history.valid(None) == history.empty() and history.valid([1]) == history.empty()
    broken = {"current": "b", "settings": {}, "chats": {"b": {"messages": [], "turns": [{"x": 1}]}}}
    assert history.load(broken, "b") == ([], [])
    assert history.load(history.empty(), "missing") == ([], [])


def test_the_key_is_kept_so_a_restarted_server_still_reads_the_browser_copy(tmp_path):
    first = history.secret(tmp_path / "data")
    assert history.secret(tmp_path / "data") == first and len(first) == 64
    assert (tmp_path / "data" / "ui-secret").stat().st_mode & 0o777 == 0o600
