import shutil

import pytest

from rag.config import Settings, env_example, get_settings
from rag.errors import ConfigError
from tests.conftest import REPO


def test_env_example_lists_every_setting_and_loads(tmp_path):
    example = (REPO / ".env.example").read_text()
    assert example == env_example(), "regenerate .env.example from rag.config.env_example()"
    for name in Settings.model_fields:
        assert f"RAG_{name.upper()}=" in example
    shutil.copy(REPO / ".env.example", tmp_path / ".env")
    settings = get_settings()
    assert settings.chunk_size == 200 and not settings.chroma_host


def test_environment_overrides_and_invalid_values(monkeypatch):
    monkeypatch.setenv("RAG_CHUNK_SIZE", "120")
    assert get_settings().chunk_size == 120
    monkeypatch.setenv("RAG_CHUNK_OVERLAP", "150")
    with pytest.raises(ConfigError, match="chunk_overlap"):
        get_settings()
