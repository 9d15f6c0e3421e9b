"""Tiny local HTTP servers that speak the OpenAI chat API and the Ollama chat API."""

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(BaseHTTPRequestHandler):
    """Records nothing to stderr; reads JSON request bodies."""

    def log_message(self, *args):
        pass

    def json_body(self) -> dict:
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))


def openai_handler(reply: str, status: int = 200):
    class Handler(QuietHandler):
        requests: list[dict] = []

        def do_POST(self):
            body = self.json_body()
            Handler.requests.append(
                {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
            )
            if status != 200:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b'{"error": {"message": "boom", "type": "server_error"}}')
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for word in reply.split(" "):
                chunk = {
                    "id": "x",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": "m",
                    "choices": [
                        {"index": 0, "delta": {"content": word + " "}, "finish_reason": None}
                    ],
                }
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

    return Handler


def ollama_handler(reply: str):
    class Handler(QuietHandler):
        requests: list[dict] = []

        def do_POST(self):
            body = self.json_body()
            Handler.requests.append({"path": self.path, "body": body})
            self.send_response(200)
            if self.path == "/api/show":  # model details, asked before chatting
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(
                    json.dumps(
                        {
                            "modelfile": "",
                            "parameters": "",
                            "template": "",
                            "details": {"family": "qwen2", "format": "gguf"},
                            "model_info": {
                                "general.architecture": "qwen2",
                                "qwen2.context_length": 4096,
                            },
                        }
                    ).encode()
                )
                return
            self.send_header("Content-Type", "application/x-ndjson")
            self.end_headers()
            for word in reply.split(" "):
                line = {
                    "model": "m",
                    "created_at": "2026-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": word + " "},
                    "done": False,
                }
                self.wfile.write((json.dumps(line) + "\n").encode())
            done = {
                "model": "m",
                "created_at": "2026-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": ""},
                "done": True,
                "done_reason": "stop",
                "total_duration": 1,
                "eval_count": 1,
                "prompt_eval_count": 1,
            }
            self.wfile.write((json.dumps(done) + "\n").encode())

    return Handler


@contextmanager
def serve(handler):
    """Run the handler on a free loopback port; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
