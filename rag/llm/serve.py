"""The model process: llama-cpp-python's OpenAI-compatible server, which also exits when the
process that started it is gone (even after a `kill -9`, which leaves no chance to clean up).

    python -m rag.llm.serve CONFIG.json
"""

import os
import sys
import threading
import time


def exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main() -> None:
    from rag.llm.runner import PARENT_ENV

    parent = int(os.environ.get(PARENT_ENV, os.getppid()))
    threading.Thread(target=exit_with_parent, args=(parent,), daemon=True).start()
    from llama_cpp.server.__main__ import main as serve

    sys.argv = [sys.argv[0], "--config_file", sys.argv[1]]
    serve()


if __name__ == "__main__":
    main()
