"""Loopback HTTP fakes for the real backend clients: scripted replies per path, every request recorded.

The server is a real ``http.server`` on 127.0.0.1 (port 0) in a daemon thread, so clients go
through their full transport stack (httpx, aiohttp via azure-core) with no internet.
``ManualTime`` stands in for the retry helper's clock and sleep so retries never really wait.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from azure.core.credentials import AccessToken


@dataclass(frozen=True)
class Reply:
    """One scripted response. ``body`` that is not bytes/str is sent as JSON."""

    status: int = 200
    body: Any = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0

    def encoded(self) -> tuple[bytes, dict[str, str]]:
        headers = dict(self.headers)
        if isinstance(self.body, bytes):
            return self.body, headers
        if isinstance(self.body, str):
            headers.setdefault("Content-Type", "text/plain; charset=utf-8")
            return self.body.encode(), headers
        headers.setdefault("Content-Type", "application/json")
        return json.dumps(self.body).encode(), headers


def json_reply(body: Any, status: int = 200, **headers: str) -> Reply:
    return Reply(status=status, body=body, headers={k.replace("_", "-"): v for k, v in headers.items()})


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    raw_query: str = ""
    """The query string as sent (still URL-encoded)."""

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None

    def json(self) -> Any:
        return json.loads(self.body)

    def form(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(self.body.decode()).items()}


class FakeServer:
    """Serves queued replies per ``(method, path)``; the last reply of a queue repeats."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._routes: dict[tuple[str, str], list[Reply]] = defaultdict(list)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.01,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, method: str, path: str, *replies: Reply) -> None:
        with self._lock:
            self._routes[(method.upper(), path)].extend(replies)

    def calls(self, path: str) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread.is_alive():  # shutdown() would block forever on a server never started
            self._server.shutdown()
        self._server.server_close()

    def _next_reply(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            queue = self._routes.get((recorded.method, recorded.path))
            if not queue:
                return Reply(status=418, body={"error": f"unscripted {recorded.method} {recorded.path}"})
            return queue.pop(0) if len(queue) > 1 else queue[0]


def _make_handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            recorded = Recorded(
                method=self.command, path=parts.path, query=parse_qs(parts.query),
                headers={k.lower(): v for k, v in self.headers.items()}, body=body, raw_query=parts.query,
            )
            reply = server._next_reply(recorded)
            if reply.delay:
                time.sleep(reply.delay)
            payload, headers = reply.encoded()
            self.send_response(reply.status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = _handle

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            return

    return Handler


class ManualTime:
    """A monotonic clock that only moves when the retry helper "sleeps"."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class FakeCredential:
    """An async Azure credential that hands out a fixed token and records nothing secret."""

    async def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        return AccessToken("fake-token", 4_102_444_800)

    async def close(self) -> None:
        return None
