"""A loopback server that speaks Chat Completions, for the evals' lying model and the tests' scripted models.

Each POST's JSON body is recorded (``server.requests``) and answered by ``server.respond(body)``, which returns
an HTTP status and a JSON payload; ``completion`` builds the payload of one reply.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Respond = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]


def completion(message: dict[str, Any], finish_reason: str, *, model: str = "fake-model",
               prompt_tokens: int = 100, completion_tokens: int = 20) -> dict[str, Any]:
    """One Chat Completions reply: the assistant ``message`` and why it stopped, with usage counts."""
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


class ChatCompletionsHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(  # type: ignore[attr-defined]
            {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
        status, payload = self.server.respond(body)  # type: ignore[attr-defined]
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def chat_completions_server(respond: Respond | None = None) -> Iterator[ThreadingHTTPServer]:
    """The server on 127.0.0.1 (a free port) in a daemon thread; set ``server.respond`` before the first call."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), ChatCompletionsHandler)
    server.daemon_threads = True  # a reply that hangs must not hold up the teardown
    server.requests = []  # type: ignore[attr-defined]
    server.respond = respond  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
