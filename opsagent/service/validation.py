"""Turning a raw HTTP body into a validated request, or into one clear 4xx ``RequestError``.

Messages name the offending parameter the way OpenAI does (``messages[2].content``) and say
what to change. Size limits come from settings: message count, characters per message.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from flask import request
from pydantic import BaseModel, ValidationError

from opsagent.contracts.requests import MessageData
from opsagent.errors import RequestError
from opsagent.settings import Settings

BodyT = TypeVar("BodyT", bound=BaseModel)


def _param_path(loc: tuple[Any, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _error_from_validation(error: ValidationError) -> RequestError:
    first = error.errors(include_url=False)[0]
    ctx = first.get("ctx") or {}
    param = ctx.get("param") or _param_path(tuple(first["loc"])) or None
    kind = first["type"]
    if kind == "extra_forbidden":
        return RequestError(400, "unsupported_parameter", f"Unrecognized parameter '{param}'.", param=param)
    if kind == "missing":
        return RequestError(400, "missing_parameter", f"Missing required parameter '{param}'.", param=param)
    if kind == "unsupported_parameter":
        return RequestError(400, "unsupported_parameter", f"{first['msg']}.", param=param)
    return RequestError(400, "invalid_type" if "type" in kind else "invalid_value",
                        f"Invalid '{param}': {first['msg']}.", param=param)


def json_object_body(not_an_object: str = "The request body must be a JSON object.") -> dict[str, Any]:
    """The request's body parsed as a JSON object.

    Raises:
        RequestError: 400 ``invalid_json`` for a body that is not JSON (including nesting too deep
            to parse) or not an object.
    """
    raw = request.get_data(cache=True)  # over MAX_CONTENT_LENGTH this raises a 413 first
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: e.g. "[" * 50000
        raise RequestError(400, "invalid_json", "The request body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise RequestError(400, "invalid_json", not_an_object)
    return data


def text_problem(text: str) -> str | None:
    """Why ``text`` is not plain UTF-8 text (a NUL or a lone surrogate), or ``None`` when it is."""
    if "\x00" in text:
        return "contains a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8 text (it holds a lone surrogate)"
    return None


def check_text(text: str, param: str) -> None:
    """Raises: RequestError 400 ``invalid_value`` naming ``param`` when ``text_problem`` finds one."""
    if (problem := text_problem(text)) is not None:
        raise RequestError(400, "invalid_value", f"'{param}' {problem}.", param=param)


def parse_body(model: type[BodyT]) -> BodyT:
    """The request's JSON body validated as ``model``.

    Raises:
        RequestError: 400 for a non-JSON body, a non-object, or a body that fails validation.
    """
    data = json_object_body()
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise _error_from_validation(error) from None


def check_messages(messages: list[MessageData], settings: Settings) -> None:
    """Refuse empty, oversized, non-text (NUL, lone surrogate) or too many messages, and a conversation
    not ending with the user.

    Raises:
        RequestError: 400 naming the message and the limit.
    """
    if not messages:
        raise RequestError(400, "empty_messages", "'messages' must hold at least one message.", param="messages")
    if len(messages) > settings.max_messages:
        raise RequestError(400, "too_many_messages", f"'messages' holds {len(messages)} messages; the limit is "
                           f"{settings.max_messages}. Drop older turns.", param="messages")
    for index, message in enumerate(messages):
        param = f"messages[{index}].content"
        if not message.content.strip():
            raise RequestError(400, "empty_message", f"'{param}' is empty.", param=param)
        if len(message.content) > settings.max_message_chars:
            raise RequestError(400, "message_too_long", f"'{param}' has {len(message.content)} characters; the "
                               f"limit is {settings.max_message_chars}.", param=param)
        check_text(message.content, param)
    if messages[-1].role != "user":
        raise RequestError(400, "last_message_not_user", "The last message must come from the user (role 'user'), "
                           f"not '{messages[-1].role}'.", param=f"messages[{len(messages) - 1}].role")
