"""Tiny local HTTP servers that speak the OpenAI chat and embeddings APIs and the Ollama chat API,
and a few that misbehave the way real servers and proxies do (hang, drop, garble, leak)."""

import json
import socket
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar


class QuietHandler(BaseHTTPRequestHandler):
    """Records nothing to stderr; reads JSON request bodies."""

    def log_message(self, *args):
        pass

    def json_body(self) -> dict:
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))


def openai_handler(reply: str, status: int = 200):
    """An OpenAI-compatible server streaming `reply` word by word, or failing with `status`."""

    class Handler(QuietHandler):
        requests: ClassVar[list[dict]] = []

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
                self.wfile.write(chunk_line(word))
            self.wfile.write(chunk_line(None, finish_reason="stop") + b"data: [DONE]\n\n")

    return Handler


def ollama_handler(reply: str, models: tuple[str, ...] = ("qwen2.5:1.5b",)):
    """Ollama with `models` pulled (listed by GET /api/tags) answering every chat with `reply`."""

    class Handler(QuietHandler):
        requests: ClassVar[list[dict]] = []

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps({"models": [{"name": m} for m in models]}).encode())

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


def embeddings_handler(embed, busy_first: int = 0, pause_s: float = 0.0):
    """An OpenAI-compatible /embeddings server answering with `embed(texts)` (in reverse index
    order, which the API allows); the first `busy_first` requests get 503. It records each
    request and the most requests it held at once."""

    class Handler(QuietHandler):
        requests: ClassVar[list[dict]] = []
        lock = threading.Lock()
        in_flight = most_in_flight = 0

        def do_POST(self):
            body = self.json_body()
            with Handler.lock:
                Handler.requests.append({"path": self.path, "body": body})
                Handler.in_flight += 1
                Handler.most_in_flight = max(Handler.most_in_flight, Handler.in_flight)
                busy = len(Handler.requests) <= busy_first
            threading.Event().wait(pause_s)  # time for other requests to arrive
            rows = [
                {"object": "embedding", "index": i, "embedding": vector}
                for i, vector in enumerate(embed(body["input"]))
            ]
            reply = {"object": "list", "data": rows[::-1], "model": body["model"]}
            self.send_response(503 if busy else 200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": "busy"}' if busy else json.dumps(reply).encode())
            with Handler.lock:
                Handler.in_flight -= 1

    return Handler


def chunk_line(word: str | None, finish_reason: str | None = None) -> bytes:
    """One OpenAI streaming event carrying `word`; the last one carries the finish reason."""
    delta = {"content": word + " "} if word is not None else {}
    chunk = {
        "id": "x",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    return f"data: {json.dumps(chunk)}\n\n".encode()


def echo_auth_handler(status: int):
    """An OpenAI-compatible server that rejects every request and, like some careless
    proxies, quotes the request's Authorization header back in its error body."""

    class Handler(QuietHandler):
        def do_POST(self):
            self.json_body()
            body = {"error": {"message": f"bad credentials: {self.headers.get('Authorization')}"}}
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(body).encode())

    return Handler


def raw_handler(body: bytes, content_type: str):
    """A server that answers every POST with 200 and `body`, whatever was asked."""

    class Handler(QuietHandler):
        def do_POST(self):
            self.json_body()
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.end_headers()
            self.wfile.write(body)

    return Handler


def hanging_handler():
    """A server that accepts the request and never answers (until the test ends)."""

    class Handler(QuietHandler):
        release = threading.Event()
        requests = 0

        def do_POST(self):
            self.json_body()
            Handler.requests += 1
            Handler.release.wait(60)

    return Handler


def endless_handler(delay_s: float):
    """A server that streams words every `delay_s` seconds and never finishes, whatever
    max_tokens says (until the test ends or the client hangs up)."""

    class Handler(QuietHandler):
        release = threading.Event()

        def do_POST(self):
            self.json_body()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                while not Handler.release.wait(delay_s):
                    self.wfile.write(chunk_line("more"))
                    self.wfile.flush()
            except OSError:  # the client hung up: what we want
                pass

    return Handler


def cut_off_handler(words: list[str], chunked: bool):
    """A server that streams a few words of an answer, then drops the connection: mid-chunk
    when `chunked` (HTTP/1.1, as vLLM or llama.cpp send), else by just closing (HTTP/1.0)."""

    class Handler(QuietHandler):
        protocol_version = "HTTP/1.1" if chunked else "HTTP/1.0"

        def do_POST(self):
            self.json_body()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for word in words:
                line = chunk_line(word)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line) if chunked else line)
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)

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
        if release := getattr(handler, "release", None):
            release.set()  # let hanging requests end so their threads do
        server.shutdown()
        server.server_close()
