"""ASGI middleware: read the whole request body on the I/O loop before the WSGI app gets a thread.

a2wsgi hands the body to Flask as a stream that the *worker thread* pulls from the socket, so a
client that sends its body slowly would hold a thread for as long as it likes. Here the body is
read on uvicorn's asyncio loop first, bounded by ``MAX_REQUEST_BYTES`` (413, at once when the
``Content-Length`` says so) and ``REQUEST_READ_TIMEOUT_SECONDS`` (408), then replayed to the app
in one message. Afterwards the client's disconnect is watched, and reported to the app through
the scope (``scope.CLIENT_GONE``) so a stream to a client that left can stop.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from opsagent.service.edges import raw_security_headers
from opsagent.service.errors import error_payload
from opsagent.service.scope import CLIENT_GONE

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SANE_REQUEST_ID = re.compile(rb"^[A-Za-z0-9._:-]{1,64}$")


class _BodyTooLarge(Exception):
    pass


class _ClientGone(Exception):
    pass


class BufferedBody:
    """Wraps an ASGI app so that it only ever sees complete, bounded request bodies."""

    def __init__(self, app: ASGIApp, *, max_bytes: int, read_timeout: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.read_timeout = read_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await send_json_error(scope, send, 413, "request_too_large", "The request body is too large.")
            return
        try:
            async with asyncio.timeout(self.read_timeout):
                body = await _read_body(receive, self.max_bytes)
        except _BodyTooLarge:
            await send_json_error(scope, send, 413, "request_too_large", "The request body is too large.")
            return
        except TimeoutError:
            await send_json_error(scope, send, 408, "request_timeout",
                                 f"The request body did not arrive within {self.read_timeout:g} s.")
            return
        except _ClientGone:
            return
        await self._call_with_body(scope, receive, send, body)

    async def _call_with_body(self, scope: Scope, receive: Receive, send: Send, body: bytes) -> None:
        gone = threading.Event()  # read by the app's worker thread
        gone_here = asyncio.Event()
        scope[CLIENT_GONE] = gone
        watcher = asyncio.create_task(_watch_disconnect(receive, gone, gone_here))
        pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

        async def replay() -> Message:
            if pending:
                return pending.pop()
            await gone_here.wait()
            return {"type": "http.disconnect"}

        try:
            await self.app(scope, replay, send)
        finally:
            watcher.cancel()


async def _read_body(receive: Receive, limit: int) -> bytes:
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _ClientGone
        body.extend(message.get("body", b""))
        if len(body) > limit:
            raise _BodyTooLarge
        if not message.get("more_body", False):
            return bytes(body)


async def _watch_disconnect(receive: Receive, gone: threading.Event, gone_here: asyncio.Event) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    gone.set()
    gone_here.set()


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1").strip()
    return None


async def send_json_error(scope: Scope, send: Send, status: int, code: str, message: str, *,
                          headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """Answer in the service's JSON error shape before the app has run (no Flask request exists)."""
    incoming = next((value for key, value in scope.get("headers", []) if key == b"x-request-id"), b"")
    request_id = incoming.decode() if SANE_REQUEST_ID.match(incoming) else uuid.uuid4().hex
    payload = error_payload(scope.get("path", ""), status, code, message, request_id=request_id)
    body = json.dumps(payload).encode()
    sent = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"x-request-id", request_id.encode()), *raw_security_headers(), *(headers or [])]
    if status in (408, 413):
        sent.append((b"connection", b"close"))  # the rest of the body is not read
    await send({"type": "http.response.start", "status": status, "headers": sent})
    await send({"type": "http.response.body", "body": body})
