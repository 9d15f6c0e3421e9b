"""The embedding model run by ONNX Runtime: exported once, locally, from its PyTorch weights.

The export happens on first use into the data directory (nothing is downloaded) and is reused
after. sentence-transformers' own ONNX backend needs optimum-onnx, which pins
transformers < 4.58 while this project runs transformers 5, so the export and the pooling are
done here instead: torch.onnx for the transformer, ONNX Runtime's dynamic quantization for int8,
mean pooling and normalization in numpy. Throughput per backend: `benchmarks/ingest.py`.
"""

import hashlib
import json
import os
import re
from functools import cached_property
from pathlib import Path

from rag.errors import ConfigError
from rag.index.embedder_base import Embedder, max_seq_length

ONNX_FILES = {"onnx": "model.onnx", "onnx-int8": "model_int8.onnx"}
EXPORTABLE_MODULES = ("Transformer", "Pooling", "Normalize")
FEED_FORWARD_OUTPUT = re.compile(r"layer\.\d+/output/dense/MatMul$")  # BERT's names, as exported


class OnnxEmbedder(Embedder):
    """A sentence-transformers model folder encoded by ONNX Runtime from an exported file."""

    def __init__(
        self, model_path: Path, name: str, backend: str, cache_dir: Path, batch_size: int = 64
    ):
        self.path, self.name, self.batch_size = model_path, name, batch_size
        self.backend, self.cache_dir = backend, cache_dir
        self.window = max_seq_length(model_path) or self.tokenizer.model_max_length

    @cached_property
    def tokenizer(self):
        """The model's own tokenizer, so chunks and truncation match the PyTorch backend."""
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(self.path), local_files_only=True)

    @cached_property
    def session(self):
        """The ONNX Runtime session, loaded on first use (exporting the model if needed)."""
        ort = _require("onnxruntime")
        onnx_file = onnx_model_file(self.path, self.backend, self.cache_dir)
        try:
            return ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
        except Exception as error:  # noqa: BLE001 - ONNX Runtime's errors have no common base
            raise ConfigError(
                f"The exported ONNX model {onnx_file} cannot be loaded "
                f"({type(error).__name__}: {error}). Delete it to export it again, "
                "or set RAG_EMBEDDING_BACKEND=torch."
            ) from None

    def embed(self, texts: list[str]) -> list[list[float]]:
        # Longest first, as sentence-transformers does: similar lengths share a batch, less padding.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            for i, vector in zip(batch, self._encode([texts[i] for i in batch])):
                vectors[i] = vector.tolist()
        return vectors

    def _encode(self, texts: list[str]):
        """Mean pooling over real tokens, then unit length: the model's own Pooling + Normalize."""
        import numpy as np

        features = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.window, return_tensors="np"
        )
        inputs = {i.name: features[i.name].astype(np.int64) for i in self.session.get_inputs()}
        hidden = self.session.run(None, inputs)[0]
        mask = features["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def tokenize(self, text: str) -> list[str]:
        return self.tokenizer.tokenize(text)


def onnx_model_file(model_path: Path, backend: str, cache_dir: Path) -> Path:
    """The backend's ONNX file in cache_dir, exported (and quantized) from model_path if missing."""
    target = cache_dir / ONNX_FILES[backend]
    if target.is_file():
        return target
    check_exportable(model_path)
    cache_dir.mkdir(parents=True, exist_ok=True)
    full_precision = cache_dir / ONNX_FILES["onnx"]
    if not full_precision.is_file():
        _write_once(full_precision, lambda path: export_onnx(model_path, path))
    if backend == "onnx-int8":
        _write_once(target, lambda path: quantize_int8(full_precision, path))
    return target


def export_folder(onnx_dir: Path, name: str, model_path: Path) -> Path:
    """Where a model's exports live: named after the model and its files' sizes and times, so
    an upgraded or edited model is exported afresh instead of silently reusing stale weights."""
    files = sorted(path for path in model_path.iterdir() if path.is_file())
    stats = [(path.name, path.stat().st_size, path.stat().st_mtime_ns) for path in files]
    return onnx_dir / f"{name}-{hashlib.sha256(repr(stats).encode()).hexdigest()[:10]}"


def check_exportable(model_path: Path) -> None:
    """Only a transformer with mean pooling is exported: that is all `_encode` reproduces."""
    modules_file = model_path / "modules.json"
    modules = json.loads(modules_file.read_text()) if modules_file.is_file() else []
    kinds = [module["type"].rsplit(".", 1)[-1] for module in modules]
    mean_pooling = False
    if kinds[:2] == ["Transformer", "Pooling"] and set(kinds) <= set(EXPORTABLE_MODULES):
        pooling = json.loads((model_path / modules[1]["path"] / "config.json").read_text())
        modes = {key for key, on in pooling.items() if key.startswith("pooling_mode") and on}
        mean_pooling = modules[0]["path"] == "" and modes == {"pooling_mode_mean_tokens"}
    if not mean_pooling:
        raise ConfigError(
            f"{model_path} is not a transformer with mean pooling (modules: {kinds or 'none'}), "
            "which is all the ONNX backends run; set RAG_EMBEDDING_BACKEND=torch."
        )


def export_onnx(model_path: Path, target: Path) -> None:
    """Trace the PyTorch transformer into ONNX (inputs → last hidden state), on this machine."""
    import warnings

    import torch
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    _require("onnx")  # the exporter writes through it
    transformers_logging.disable_progress_bar()
    model = AutoModel.from_pretrained(str(model_path), local_files_only=True).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_path), local_files_only=True)
    names = list(tokenizer.model_input_names)
    sample = tokenizer(["an example sentence", "another"], padding=True, return_tensors="pt")

    class LastHiddenState(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *inputs):
            return self.model(**dict(zip(names, inputs))).last_hidden_state

    axes = {name: {0: "batch", 1: "sequence"} for name in [*names, "last_hidden_state"]}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notices
        torch.onnx.export(
            LastHiddenState(),
            tuple(sample[name] for name in names),
            str(target),
            dynamo=False,  # the dynamo exporter would need onnxscript; this one needs nothing more
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=17,
        )


def quantize_int8(source: Path, target: Path) -> None:
    """int8 weights with one scale per output channel (per-tensor scales lose far more accuracy).

    The feed-forward output projections stay in float: their inputs (after GELU) have outliers
    that 8 bits flatten, and keeping those 6 matrices raises the worst seed-abstract cosine to
    PyTorch from 0.989 to 0.994.
    """
    import logging

    onnx = _require("onnx")
    from onnxruntime.quantization import QuantType, quantize_dynamic

    names = [node.name for node in onnx.load(str(source), load_external_data=False).graph.node]
    keep_float = [name for name in names if FEED_FORWARD_OUTPUT.search(name)]
    # quantize_dynamic advises pre-processing through logging.warning(), which would also give
    # the root logger a handler for good (basicConfig) and so print other libraries' debug logs.
    root = logging.getLogger()
    quiet, level = logging.NullHandler(), root.level
    root.addHandler(quiet)
    root.setLevel(logging.ERROR)
    try:
        quantize_dynamic(
            str(source),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=keep_float,
        )
    finally:
        root.removeHandler(quiet)
        root.setLevel(level)


def _write_once(target: Path, write) -> None:
    """Write to a temporary name and rename, so a crash or a concurrent export leaves no half file."""
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        write(partial)
        os.replace(partial, target)
    except ConfigError:
        raise
    except Exception as error:  # noqa: BLE001 - torch, onnx or the disk: say which, in one message
        raise ConfigError(
            f"Exporting the embedding model to {target} failed ({type(error).__name__}: {error}); "
            "set RAG_EMBEDDING_BACKEND=torch to use it without ONNX."
        ) from None
    finally:
        partial.unlink(missing_ok=True)


def _require(module: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(
            f"The ONNX embedding backends need the '{module}' package; run `scripts/setup.sh` "
            "(or `pip install onnx onnxruntime`), or set RAG_EMBEDDING_BACKEND=torch."
        ) from None
