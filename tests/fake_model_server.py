"""A stand-in for the local model process (`python -m rag.llm.serve CONFIG`): reads the same
config file, checks the API key, and streams a fixed cited answer slowly, word by word.

    python tests/fake_model_server.py CONFIG.json
"""

import json
import os
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from rag.llm.serve import exit_with_parent
from rag.llm.runner import PARENT_ENV  # noqa: E402
from tests.fake_servers import QuietHandler, chunk_line

REPLY = "BayesCoxCP prices products with a Bayesian proportional hazards model [1]."
WORD_DELAY_S = 0.3


def main() -> None:
    parent = int(os.environ.get(PARENT_ENV, os.getppid()))
    threading.Thread(target=exit_with_parent, args=(parent,), daemon=True).start()
    config = json.loads(Path(sys.argv[1]).read_text())
    bearer = f"Bearer {config['api_key']}"

    class Handler(QuietHandler):
        def authorized(self) -> bool:
            if self.headers.get("Authorization") == bearer:
                return True
            self.send_response(401)
            self.end_headers()
            return False

        def do_GET(self):
            if self.authorized():
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b'{"object": "list", "data": [{"id": "local"}]}')

        def do_POST(self):
            self.json_body()
            if not self.authorized():
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for word in REPLY.split(" "):
                    self.wfile.write(chunk_line(word))
                    self.wfile.flush()
                    time.sleep(WORD_DELAY_S)
            except (BrokenPipeError, ConnectionResetError):
                print("client hung up", flush=True)  # as llama.cpp's server stops generating
                return
            self.wfile.write(chunk_line(None, finish_reason="stop") + b"data: [DONE]\n\n")

    ThreadingHTTPServer((config["host"], config["port"]), Handler).serve_forever()


if __name__ == "__main__":
    main()
