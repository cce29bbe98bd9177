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
}


def failure_status(answer: Answer) -> int | None:
    """504 for a missed deadline, 500 for an internal failure, None for an answer to deliver."""
    return {"timeout": 504, "internal": 500}.get(answer.metadata.error_code or "")


def failure_code(status: int) -> str:
    return "timeout" if status == 504 else "internal_error"


class AnswerFailedError(OpsAgentError):
    """The workflow answered with an error (deadline or internal failure) where HTTP needs a status."""

    def __init__(self, answer: Answer) -> None:
        super().__init__(answer.text)
        self.answer = answer

    @property
    def status(self) -> int:
        return failure_status(self.answer) or 500


def error_body(status: int, code: str, message: str, param: str | None = None) -> dict:
    """The JSON error body for the current request's surface (OpenAI style under ``/v1``)."""
    if request.path.startswith("/v1/"):
        kind = "invalid_request_error" if status < 500 else "server_error"
        return {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return {"error": {"code": code, "message": message, "param": param}, "request_id": current_request_id()}


def _respond(status: int, code: str, message: str, param: str | None = None) -> tuple[Response, int]:
    return jsonify(error_body(status, code, message, param)), status


def _request_error(error: RequestError) -> tuple[Response, int]:
    return _respond(error.status, error.code, error.message, error.param)


def _answer_failed(error: AnswerFailedError) -> tuple[Response, int]:
    return _respond(error.status, failure_code(error.status), error.answer.text)


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
    app.register_error_handler(AnswerFailedError, _answer_failed)
    app.register_error_handler(LoopTimeout, _loop_timeout)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)
