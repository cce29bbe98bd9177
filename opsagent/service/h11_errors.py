"""uvicorn's h11 protocol, answering requests it cannot parse in the service's JSON error shape.

uvicorn answers a malformed request itself, before any app runs, with a plain-text 400. This
subclass keeps uvicorn's behaviour (answer, then close) and changes only the answer: 431 when the
header section is over h11's 16 KB limit, 414 when the request line alone is, 400 otherwise, each
with a JSON body like the app's (no request id: the request was never read far enough to have one).
"""

from __future__ import annotations

import json

import h11
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
from uvicorn.protocols.http.h11_impl import STATUS_PHRASES, H11Protocol

from opsagent.service.edges import raw_security_headers
from opsagent.service.errors import error_payload

_REFUSALS = {
    400: ("bad_request", "The request could not be parsed as HTTP/1.1."),
    414: ("uri_too_long", "The request line is too long."),
    431: ("headers_too_large", "The request headers are too large (16 KB at most)."),
}


class JsonErrorH11Protocol(H11Protocol):
    """``H11Protocol`` whose refusals of unparseable requests are JSON (see the module docstring)."""

    def _refusal_status(self) -> int:
        pending, _closed = self.conn.trailing_data
        limit = self.config.h11_max_incomplete_event_size or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        if len(pending) <= limit:
            return 400
        return 431 if b"\r\n" in pending else 414

    def send_400_response(self, msg: str) -> None:
        status = self._refusal_status()
        code, message = _REFUSALS[status]
        body = json.dumps(error_payload("", status, code, message, request_id=None)).encode()
        headers = [(b"content-type", b"application/json"), (b"connection", b"close"), *raw_security_headers()]
        for event in (h11.Response(status_code=status, headers=headers, reason=STATUS_PHRASES[status]),
                      h11.Data(data=body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()
