"""Server-sent events: the framing both streaming endpoints share."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, g, stream_with_context

from opsagent.service.requestlog import REQUEST_ID
from opsagent.service.scope import client_gone_event


def sse_event(data: Any, event: str | None = None) -> str:
    """One SSE frame; ``data`` is JSON-encoded unless it is already a string (e.g. ``[DONE]``)."""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n"


def _with_request_id(frames: Iterator[str], request_id: str | None) -> Iterator[str]:
    """Flask tears the request down before the body streams; keep its id on the stream's log lines."""
    previous = REQUEST_ID.get()
    REQUEST_ID.set(request_id)
    try:
        yield from frames
    finally:
        REQUEST_ID.set(previous)  # set, not reset: a generator may be closed from another context


def _until_client_gone(frames: Iterator[str], gone: threading.Event | None) -> Iterator[str]:
    """Stop at the first frame after the client left: closing ``frames`` cancels the work behind it."""
    try:
        for frame in frames:
            if gone is not None and gone.is_set():
                return
            yield frame
    finally:
        close = getattr(frames, "close", None)
        if close is not None:
            close()


def sse_response(frames: Iterator[str], *, on_close: Callable[[], None] | None = None) -> Response:
    """A streaming response that proxies must not buffer; the request context lives until the end.

    ``on_close`` runs when the server closes the response, even one never read (e.g. to free an
    admission slot); a client that went away ends the stream at its next frame.
    """
    body = _with_request_id(_until_client_gone(frames, client_gone_event()), g.get("request_id"))
    response = Response(stream_with_context(body), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    if on_close is not None:
        response.call_on_close(on_close)
    return response
