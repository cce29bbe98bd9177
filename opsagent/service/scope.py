"""What the ASGI layer (``asgi.py``) tells the Flask app about a request, through the ASGI scope.

a2wsgi hands the scope to the WSGI app as ``environ["asgi.scope"]``. Two facts travel that way:
when the request *arrived* (so its deadline runs from arrival, not from when a worker thread
picked it up), and an event that is set when the client has gone away (so a stream can stop).
Without the ASGI layer (tests on a plain WSGI server) arrival is when Flask saw the request and
the client is never reported gone.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from flask import g, request

ARRIVED_AT = "opsagent.arrived_at"
"""Scope key: ``time.monotonic()`` when the request's headers were read."""
CLIENT_GONE = "opsagent.client_gone"
"""Scope key: a ``threading.Event`` set when the client disconnects."""


def _scope() -> dict[str, Any]:
    return request.environ.get("asgi.scope") or {}


def arrived_at() -> float:
    """When this request arrived (monotonic seconds)."""
    arrived = _scope().get(ARRIVED_AT)
    if arrived is None:
        arrived = g.setdefault("arrived_at", time.monotonic())
    return arrived


def request_age() -> float:
    """Seconds since this request arrived."""
    return time.monotonic() - arrived_at()


def client_gone_event() -> threading.Event | None:
    """The event set when the client disconnects, or ``None`` when the server does not say."""
    return _scope().get(CLIENT_GONE)
