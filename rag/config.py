"""Settings: the one place that reads the environment (RAG_* variables and .env)."""

import os
import sys
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from rag.tuning import AnswerTuning, RetrievalTuning

BUNDLED_EMBEDDER = "all-MiniLM-L6-v2"


class EmbeddingServerSettings(BaseModel):
    """An OpenAI-compatible /v1/embeddings server (RAG_EMBEDDING_BACKEND=openai), set as
    RAG_EMBEDDING_SERVER__<FIELD>."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = Field(
        None,
        description="The server's OpenAI-compatible root; requests go to <base_url>/embeddings, "
        "e.g. http://127.0.0.1:7997 (Infinity), http://127.0.0.1:8080/v1 (Text Embeddings "
        "Inference, vLLM, llama.cpp) or https://api.openai.com/v1.",
    )
    model: str | None = Field(
        None,
        description="The model's name on the server; unset means RAG_EMBEDDING_MODEL's name. "
        "RAG_EMBEDDING_MODEL still names the model for chunking (its tokenizer) and for the index.",
    )
    api_key: SecretStr | None = Field(
        None, description="Bearer key for the server; unset sends none."
    )
    batch_size: int = Field(64, ge=1, le=2048, description="Texts sent in one request.")
    concurrency: int = Field(4, ge=1, le=64, description="Requests in flight at once.")
    timeout_s: float = Field(60.0, gt=0, description="Seconds to wait for one request's answer.")


class Settings(BaseSettings):
    """All configuration, built once at the edge (CLI command, UI start, test) and passed down."""

    model_config = SettingsConfigDict(
        env_prefix="RAG_",
        env_file=".env",
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
    )

    data_dir: Path = Field(Path("data"), description="Where the vector store and BM25 index live.")
    models_dir: Path | None = Field(
        None,
        description="Where models live (the bundled GGUF, ONNX exports), shared by every index; "
        "unset means share/rag/models inside the installation (the virtualenv).",
    )
    corpus_paths: Annotated[list[Path], NoDecode] = Field(
        [Path("seeds")],
        description="Corpus files or folders (.txt seed layout, .jsonl, .csv, .bib, .ris) ingested "
        "by default.",
    )
    titles_path: Path | None = Field(
        Path("seeds/titles.jsonl"),
        description="Titles sidecar (JSONL with abstract_start, title, authors, url, venue).",
    )
    embedding_model: str = Field(
        BUNDLED_EMBEDDER,
        description="'all-MiniLM-L6-v2' (bundled, offline), 'fake' (tests), "
        "or a path to a local sentence-transformers model folder.",
    )
    embedding_batch_size: int = Field(64, ge=1, description="Texts embedded per batch.")
    embedding_backend: Literal["torch", "onnx", "onnx-int8", "openai"] = Field(
        "torch",
        description="What runs the embedding model: torch (sentence-transformers), onnx (ONNX "
        "Runtime: the same vectors, about as fast on 2 CPU cores), onnx-int8 (int8 weights: "
        "~1.2x faster ingest on 2 cores, slightly different vectors, so it needs an index of its "
        "own) or openai (an OpenAI-compatible embeddings server, RAG_EMBEDDING_SERVER__*; the "
        "same model there gives the same vectors, so it shares the index). ONNX files are "
        "exported once, locally, into models_dir/onnx. Ignored by 'fake'.",
    )
    embedding_server: EmbeddingServerSettings = Field(
        default_factory=EmbeddingServerSettings,
        description="The embeddings server used by RAG_EMBEDDING_BACKEND=openai.",
    )
    chunk_size: int = Field(
        200, ge=32, description="Maximum word pieces per chunk, title prefix included."
    )
    chunk_overlap: int = Field(32, ge=0, description="Word pieces shared by neighbouring chunks.")
    max_abstract_chars: int = Field(
        20_000, ge=100, description="Longer abstracts are rejected as malformed records."
    )
    top_k: int = Field(5, ge=1, le=50, description="Papers retrieved per question.")
    retrieval: RetrievalTuning = Field(
        default_factory=RetrievalTuning,
        description="Retrieval thresholds (RAG_RETRIEVAL__<NAME>), see rag/tuning.py.",
    )
    answer: AnswerTuning = Field(
        default_factory=AnswerTuning,
        description="Answer and decline thresholds (RAG_ANSWER__<NAME>), see rag/tuning.py.",
    )
    retrieval_mode: Literal["hybrid", "dense", "bm25"] = Field(
        "hybrid", description="hybrid (dense + BM25, RRF), dense, or bm25."
    )
    # The names are written out, not built from rag.llm.BACKENDS: the registry imports this
    # module (backends take Settings), so importing it here would be an import cycle.
    llm_backend: str = Field(
        "local",
        description="Answer backend: local (bundled llama.cpp model), openai, ollama, "
        "extractive (no LLM) or fake (tests).",
    )
    local_model_path: Path | None = Field(
        None,
        description="A GGUF file for the local backend; unset means the bundled "
        "Qwen2.5-Coder-1.5B-Instruct assembled into models_dir by scripts/setup.sh.",
    )
    llm_threads: int = Field(2, ge=1, description="CPU threads for the local model.")
    llm_context: int = Field(
        4096, ge=512, description="Context window (tokens) of the local model."
    )
    source_words: int = Field(
        55,
        ge=20,
        description="Words of each source shown to the model (the abstract sentences "
        "closest to the question); fewer answer faster.",
    )
    max_answer_tokens: int = Field(350, ge=16, description="Longest answer generated, in tokens.")
    llm_timeout_s: float = Field(
        120.0, gt=0, description="Seconds to wait for a remote model before falling back."
    )
    openai_base_url: str | None = Field(
        None,
        description="OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 or a "
        "vLLM / llama.cpp server at http://127.0.0.1:8000/v1.",
    )
    openai_model: str | None = Field(
        None, description="Model name on the OpenAI-compatible server."
    )
    openai_api_key: SecretStr | None = Field(
        None, description="API key for the OpenAI-compatible server (any value if it checks none)."
    )
    ollama_host: str = Field("http://127.0.0.1:11434", description="The Ollama server.")
    ollama_model: str = Field("qwen2.5:1.5b", description="The Ollama model name.")
    chroma_host: str | None = Field(
        None, description="Chroma server host; unset means an embedded store under data_dir."
    )
    chroma_port: int = Field(8000, description="Chroma server port (with chroma_host).")
    chroma_timeout_s: float = Field(
        30.0, gt=0, description="Seconds to wait for each answer of a Chroma server."
    )
    collection_name: str = Field("papers", description="Chroma collection holding the chunks.")
    ui_host: str = Field(
        "127.0.0.1",
        description="Interface the chat UI binds to; anything but loopback requires "
        "ui_username and ui_password.",
    )
    ui_port: int = Field(7860, ge=1, le=65535, description="Port of the chat UI.")
    ui_username: str | None = Field(None, description="Basic-auth user name for the chat UI.")
    ui_password: SecretStr | None = Field(None, description="Basic-auth password for the chat UI.")
    ui_concurrency: int = Field(
        1,
        ge=1,
        description="Answers generated at once by the UI and its API; more requests wait in "
        "the queue (1 keeps the local model from being oversubscribed).",
    )

    @field_validator("corpus_paths", mode="before")
    @classmethod
    def _paths_from_text(cls, value):
        """A JSON list, or plain paths separated by commas or the OS path separator."""
        if not isinstance(value, str):
            return value
        import json

        if value.strip().startswith("["):
            return json.loads(value)
        return [part.strip() for part in value.replace(os.pathsep, ",").split(",") if part.strip()]

    @model_validator(mode="after")
    def _overlap_below_size(self) -> "Settings":
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be smaller than "
                f"chunk_size ({self.chunk_size})"
            )
        return self

    @model_validator(mode="after")
    def _k_within_cap(self) -> "Settings":
        if self.top_k > self.retrieval.max_k:
            raise ValueError(
                f"top_k ({self.top_k}) must be at most retrieval.max_k ({self.retrieval.max_k})"
            )
        return self

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def model_store(self) -> Path:
        return self.models_dir or Path(sys.prefix) / "share" / "rag" / "models"

    @property
    def onnx_dir(self) -> Path:
        return self.model_store / "onnx"

    @property
    def bm25_dir(self) -> Path:
        return self.data_dir / "bm25" / self.collection_name


def get_settings(**overrides) -> Settings:
    """Build settings from the environment and .env, with explicit overrides on top."""
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    from rag.errors import ConfigError

    warn_unknown_variables()
    try:
        return Settings(**overrides)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}" for e in error.errors()
        )
        hints = "".join(
            f" {name} is no setting{hint}" for name, hint in unknown_variables().items()
        )
        raise ConfigError(
            f"Invalid settings ({problems}).{hints} Check your RAG_* variables and .env."
        )
    except UnicodeDecodeError:
        raise ConfigError(".env is not UTF-8 text; save it as UTF-8 (not UTF-16).") from None
    except SettingsError as error:
        raise ConfigError(f"Invalid settings: {error}. Check your RAG_* variables and .env.")


# RAG_* variables that are not settings: set by the app for its own child processes.
MODEL_PARENT_VARIABLE = "RAG_MODEL_PARENT_PID"  # the model process exits when this one is gone
INTERNAL_VARIABLES = {MODEL_PARENT_VARIABLE}


def warn_unknown_variables() -> list[str]:
    """Warn (on stderr) about RAG_* environment variables that are no setting, a typo being
    the usual reason (the same typo in .env is an error); return their names. A typo inside a
    settings group (RAG_ANSWER__...) is an error of the settings themselves, not warned here."""
    import logging

    unknown = unknown_variables()
    groups = tuple(f"{name}__" for name in group_variables())
    for name, hint in unknown.items():
        if not name.startswith(groups):
            logging.getLogger(__name__).warning("Unknown setting %s is ignored%s", name, hint)
    return list(unknown)


def group_variables() -> set[str]:
    """RAG_<GROUP> for each settings group (it may be given whole, as JSON)."""
    return {
        f"RAG_{name.upper()}"
        for name, field in Settings.model_fields.items()
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
    }


def unknown_variables() -> dict[str, str]:
    """RAG_* environment variables that are no setting, each with "; did you mean ...?" when
    one is close."""
    import difflib

    known = {variable for variable, _ in setting_variables()} | group_variables()
    names = sorted(
        n for n in os.environ if n.startswith("RAG_") and n not in known | INTERNAL_VARIABLES
    )
    hints = {}
    for name in names:
        close = difflib.get_close_matches(name, known, n=1)
        hints[name] = f"; did you mean {close[0]}?" if close else ""
    return hints


def setting_variables(model: type[BaseModel] = Settings, prefix: str = "RAG_"):
    """(environment variable, field) for every setting; a group's fields are PREFIX_GROUP__NAME."""
    for name, field in model.model_fields.items():
        group = field.annotation
        if isinstance(group, type) and issubclass(group, BaseModel):
            yield from setting_variables(group, f"{prefix}{name.upper()}__")
        else:
            yield f"{prefix}{name.upper()}", field


def env_example() -> str:
    """The text of .env.example: every setting with its description and default."""
    import json

    lines = [
        "# Every setting, with its default. Copy to .env and edit; RAG_ variables override .env."
    ]
    for variable, field in setting_variables():
        default = field.default
        if isinstance(default, list):
            default = json.dumps([str(item) for item in default])
        lines += [
            "",
            f"# {field.description}",
            f"{variable}={'' if default is None else default}",
        ]
    return "\n".join(lines) + "\n"
