"""The one place where failures become HTTP responses.

``/v1/*`` gets OpenAI's error object (``{"error": {"message", "type", "param", "code"}}``) so
OpenAI SDKs raise their usual exceptions; every other path gets
``{"error": {"code", "message", "param"}, "request_id"}``. Views never catch exceptions
themselves. An unexpected exception is a bug: it is logged with the request id and answered
with a 500 that carries no exception text.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from opsagent.contracts.results import Answer
from opsagent.errors import OpsAgentError, RequestError
from opsagent.service.admission import OverloadedError
from opsagent.service.loop import LoopTimeout
from opsagent.service.requestlog import current_request_id

logger = logging.getLogger(__name__)

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    413: "request_too_large",
    415: "unsupported_media_type",
    503: "unavailable",
}


# The answer error codes HTTP reports as failures: (status, error code on the wire). Other error
# answers (e.g. ``planner_failed``) are delivered as answers.
_ANSWER_FAILURES: dict[str, tuple[int, str]] = {
    "timeout": (504, "timeout"),  # the request deadline passed; the work was cancelled
    "model_unavailable": (502, "model_unavailable"),  # the model provider failed (auth, rate limit, outage)
    "internal": (500, "internal_error"),  # a bug; logged with its traceback
}


def answer_failure(answer: Answer) -> tuple[int, str] | None:
    """(HTTP status, error code) for a failed answer, ``None`` for an answer to deliver."""
    return _ANSWER_FAILURES.get(answer.metadata.error_code or "")


class AnswerFailedError(OpsAgentError):
    """The workflow answered with a failure (see ``answer_failure``) where HTTP needs a status."""

    def __init__(self, answer: Answer) -> None:
        super().__init__(answer.text)
        self.answer = answer
        self.status, self.code = answer_failure(answer) or (500, "internal_error")


def error_payload(path: str, status: int, code: str, message: str, param: str | None = None, *,
                  request_id: str | None) -> dict:
    """The JSON error body for a request to ``path`` (OpenAI style under ``/v1``); also used by the
    ASGI layer, which answers some requests (413, 408) before Flask sees them."""
    if path.startswith("/v1/"):
        kind = "invalid_request_error" if status < 500 else "server_error"
        return {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return {"error": {"code": code, "message": message, "param": param}, "request_id": request_id}


def error_body(status: int, code: str, message: str, param: str | None = None) -> dict:
    """The JSON error body for the current request's surface (OpenAI style under ``/v1``)."""
    return error_payload(request.path, status, code, message, param, request_id=current_request_id())


def answer_error_body(answer: Answer) -> dict | None:
    """The error body for a failed answer (an SSE ``error`` event or frame), ``None`` for an answer to deliver."""
    failure = answer_failure(answer)
    return None if failure is None else error_body(*failure, answer.text)


def _respond(status: int, code: str, message: str, param: str | None = None) -> tuple[Response, int]:
    return jsonify(error_body(status, code, message, param)), status


def _request_error(error: RequestError) -> tuple[Response, int]:
    return _respond(error.status, error.code, error.message, error.param)


def _overloaded(error: OverloadedError) -> tuple[Response, int]:
    response, status = _respond(error.status, error.code, error.message)
    response.headers["Retry-After"] = str(error.retry_after)
    return response, status


def _answer_failed(error: AnswerFailedError) -> tuple[Response, int]:
    return _respond(error.status, error.code, error.answer.text)


def _loop_timeout(_error: LoopTimeout) -> tuple[Response, int]:
    logger.warning("request hit the service's safety-net timeout")
    return _respond(504, "timeout", "No answer in time; the work was cancelled. Please try again.")


def _http_error(error: HTTPException) -> tuple[Response, int]:
    status = error.code or 500
    message = {413: "The request body is too large.", 404: f"No such endpoint: {request.path}."}.get(
        status, error.description or error.name
    )
    return _respond(status, _HTTP_CODES.get(status, "http_error"), message)


def _unexpected(error: Exception) -> tuple[Response, int]:
    logger.exception("unhandled %s (a bug)", type(error).__name__)
    return _respond(500, "internal_error", f"Internal error; it has been logged (request id {current_request_id()}).")


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(RequestError, _request_error)
    app.register_error_handler(OverloadedError, _overloaded)
    app.register_error_handler(AnswerFailedError, _answer_failed)
    app.register_error_handler(LoopTimeout, _loop_timeout)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)
