"""Server-sent events: the framing both streaming endpoints share."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Response, g, stream_with_context

from opsagent.service.requestlog import REQUEST_ID


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


def sse_response(frames: Iterator[str]) -> Response:
    """A streaming response that proxies must not buffer; the request context lives until the end."""
    body = _with_request_id(frames, g.get("request_id"))
    response = Response(stream_with_context(body), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response
