"""Request ids and structured (JSON-lines) logs.

Every request gets an id: a sane incoming ``X-Request-ID`` is kept (so a proxy's id flows
through), anything else is replaced. The id lives in a context variable that the loop thread
inherits per submitted job, so workflow logs carry it too. One INFO line per request says what
happened (method, path, status, timing, route, model calls) and never the prompt or a secret.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

from flask import Flask, Response, g, request

from opsagent.redaction import RedactingFilter
from opsagent.service.scope import arrived_at, request_age

REQUEST_ID: ContextVar[str | None] = ContextVar("opsagent_request_id", default=None)
REQUEST_ID_HEADER = "X-Request-ID"
_SANE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
_RESERVED = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}

logger = logging.getLogger("opsagent.service")


def current_request_id() -> str:
    return REQUEST_ID.get() or "-"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request id and any ``extra=``."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
            "request_id": getattr(record, "request_id", None) or REQUEST_ID.get(),
        }
        entry.update({k: v for k, v in vars(record).items() if k not in _RESERVED and k != "request_id"})
        if record.exc_text:  # already rendered (and redacted) by the RedactingFilter
            entry["exc"] = record.exc_text
        elif record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure_logging(level: str, *, secrets: Iterable[str] = ()) -> None:
    """JSON lines on stderr for the whole process (called by the servers, not by ``create_app``).

    Every record passes the ``RedactingFilter`` (``secrets`` are the configured secret values).
    httpx logs each request URL at INFO, and backend URLs carry words from the user's question,
    so httpx and httpcore (and their ``2`` forks the openai SDK uses) log from WARNING up,
    whatever ``level`` says.
    """
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RedactingFilter(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("httpx", "httpcore", "httpx2", "httpcore2"):
        logging.getLogger(name).setLevel(logging.WARNING)
    if level != "DEBUG":  # MAF narrates every superstep at INFO; keep our one line per request readable
        logging.getLogger("agent_framework").setLevel(logging.WARNING)


def _begin_request() -> None:
    incoming = request.headers.get(REQUEST_ID_HEADER, "")
    request_id = incoming if _SANE_ID.match(incoming) else uuid.uuid4().hex
    g.request_id = request_id
    g.token = REQUEST_ID.set(request_id)
    arrived_at()  # fixes the arrival time (the ASGI layer's, else now) for the duration and the deadline


def _end_request(response: Response) -> Response:
    response.headers[REQUEST_ID_HEADER] = g.get("request_id", "-")
    summary = {"request_id": g.get("request_id"), "method": request.method, "path": request.path, "status": response.status_code,
               "duration_ms": round(request_age() * 1000, 1)}
    summary.update(g.get("log_fields", {}))
    logger.info("%s %s %s", request.method, request.path, response.status_code, extra=summary)
    return response


def _reset_context(_error: BaseException | None) -> None:
    token = g.pop("token", None)
    if token is not None:
        REQUEST_ID.reset(token)


def add_log_fields(**fields: Any) -> None:
    """Attach safe facts (route, llm_calls, tokens) to this request's log line."""
    g.setdefault("log_fields", {}).update(fields)


def register_request_logging(app: Flask) -> None:
    app.before_request(_begin_request)
    app.after_request(_end_request)
    app.teardown_request(_reset_context)
