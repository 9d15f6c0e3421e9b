import shutil

import pytest

from rag.config import Settings, env_example, get_settings, setting_variables
from rag.errors import ConfigError
from tests.conftest import REPO


def test_env_example_lists_every_setting_and_loads(tmp_path):
    example = (REPO / ".env.example").read_text()
    assert example == env_example(), "regenerate .env.example from rag.config.env_example()"
    for variable, _ in setting_variables():
        assert f"\n{variable}=" in example
    assert "\nRAG_ANSWER__KEY_WORD_WEIGHT=0.1\n" in example
    shutil.copy(REPO / ".env.example", tmp_path / ".env")
    settings = get_settings()
    assert settings.chunk_size == 200 and not settings.chroma_host


def test_every_threshold_is_a_setting_in_its_group(monkeypatch, caplog):
    monkeypatch.setenv("RAG_ANSWER__KEY_WORD_WEIGHT", "0.25")
    monkeypatch.setenv("RAG_RETRIEVAL__RRF_K", "30")
    settings = get_settings()
    assert settings.answer.key_word_weight == 0.25 and settings.retrieval.rrf_k == 30
    assert settings.answer.support_threshold == 0.45  # the rest keep their defaults
    monkeypatch.setenv("RAG_ANSWER__KEY_WORD_WEIHGT", "0.3")  # a typo inside a group fails
    with pytest.raises(ConfigError, match="did you mean RAG_ANSWER__KEY_WORD_WEIGHT"):
        get_settings()
    monkeypatch.delenv("RAG_ANSWER__KEY_WORD_WEIHGT")
    monkeypatch.setenv("RAG_TOP_K", "30")
    with pytest.raises(ConfigError, match="max_k"):
        get_settings()


def test_environment_overrides_and_invalid_values(monkeypatch):
    monkeypatch.setenv("RAG_CHUNK_SIZE", "120")
    assert get_settings().chunk_size == 120
    monkeypatch.setenv("RAG_CHUNK_OVERLAP", "150")
    with pytest.raises(ConfigError, match="chunk_overlap"):
        get_settings()


def test_a_misspelt_variable_is_warned_about_with_the_likely_name(monkeypatch, caplog):
    monkeypatch.setenv("RAG_TOPK", "9")
    with caplog.at_level("WARNING"):
        assert get_settings().top_k == 5
    assert "Unknown setting RAG_TOPK is ignored; did you mean RAG_TOP_K?" in caplog.text


@pytest.mark.parametrize(
    ("value", "paths"),
    [("seeds", ["seeds"]), ("a.jsonl, b.csv", ["a.jsonl", "b.csv"]), ('["x y"]', ["x y"])],
)
def test_corpus_paths_may_be_plain_paths(monkeypatch, value, paths):
    monkeypatch.setenv("RAG_CORPUS_PATHS", value)
    assert [str(p) for p in get_settings().corpus_paths] == paths


def test_a_utf16_dotenv_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("RAG_TOP_K=3\n", encoding="utf-16")
    with pytest.raises(ConfigError, match="not UTF-8"):
        get_settings()


def test_a_read_only_command_never_creates_a_mistyped_data_dir(tmp_path):
    from rag.errors import StoreError
    from rag.index import open_store

    missing = tmp_path / "typo"
    with pytest.raises(StoreError, match="run `rag ingest` first"):
        open_store(Settings(embedding_model="fake", data_dir=missing))
    assert not missing.exists()
