"""Recording what each role's model really replied, for the real-model evaluation and test fixtures.

Off unless a run opens ``recording()``: then every model call of every agent in that run (the
context is inherited by the tasks the workflow starts) appends one ``RecordedReply`` with the
raw reply text and function calls, exactly as the client got them. Nothing is recorded
otherwise, so production requests pay one context-variable read per call.
"""

from __future__ import annotations

import contextvars
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from agent_framework import ChatContext, ChatMiddleware
from pydantic import BaseModel, Field

from opsagent.llm.metering import is_cut_off

_current_recorder: contextvars.ContextVar[ReplyRecorder | None] = contextvars.ContextVar(
    "opsagent_reply_recorder", default=None)
PROMPT_EXCERPT_CHARS = 400


class RecordedCall(BaseModel):
    name: str
    arguments: Any = None


class RecordedReply(BaseModel):
    """One model call: who asked, with which output contract, and what came back (verbatim)."""

    role: str
    response_format: str = ""
    """The structured output asked for (``UserModeOutput``…); empty for free text."""
    tool_choice: str = ""
    tools: list[str] = Field(default_factory=list)
    prompt_excerpt: str = ""
    """The start of the last user message (the question or task), to tell calls apart."""
    text: str = ""
    function_calls: list[RecordedCall] = Field(default_factory=list)
    finish_reason: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    error: str = ""


class ReplyRecorder(BaseModel):
    replies: list[RecordedReply] = Field(default_factory=list)


@contextmanager
def recording() -> Iterator[ReplyRecorder]:
    """Record every model call made inside the block (and in the tasks it starts)."""
    recorder = ReplyRecorder()
    token = _current_recorder.set(recorder)
    try:
        yield recorder
    finally:
        _current_recorder.reset(token)


def _format_name(response_format: Any) -> str:
    if isinstance(response_format, dict):
        return str((response_format.get("json_schema") or {}).get("name") or response_format.get("type") or "")
    return getattr(response_format, "__name__", "") if response_format is not None else ""


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def _request_fields(role: str, context: ChatContext) -> dict[str, Any]:
    options = dict(context.options or {})
    last_user = next((message.text or "" for message in reversed(context.messages) if message.role == "user"), "")
    tools = [getattr(tool, "name", str(tool)) for tool in options.get("tools") or []]
    return {
        "role": role,
        "response_format": _format_name(options.get("response_format")),
        "tool_choice": str(options.get("tool_choice") or "") if tools else "",
        "tools": tools,
        "prompt_excerpt": last_user[:PROMPT_EXCERPT_CHARS],
    }


class RecordingMiddleware(ChatMiddleware):
    """Chat middleware that appends each call of an agent (``role``) to the run's recorder, if any."""

    def __init__(self, role: str) -> None:
        self.role = role

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        recorder = _current_recorder.get()
        if recorder is None or context.stream:
            await call_next()
            return
        started = time.perf_counter()
        fields = _request_fields(self.role, context)
        try:
            await call_next()
        except BaseException as error:
            kind = "cut off" if is_cut_off(error) else "failed"
            recorder.replies.append(RecordedReply(**fields, seconds=round(time.perf_counter() - started, 1),
                                                  error=f"{kind}: {type(error).__name__}"))
            raise
        result = context.result
        contents = [content for message in getattr(result, "messages", []) for content in message.contents]
        usage = getattr(result, "usage_details", None) or {}
        recorder.replies.append(RecordedReply(
            **fields,
            text="".join(content.text or "" for content in contents if content.type == "text"),
            function_calls=[RecordedCall(name=content.name or "", arguments=_arguments(content.arguments))
                            for content in contents if content.type == "function_call"],
            finish_reason=str(getattr(result, "finish_reason", "") or ""),
            input_tokens=usage.get("input_token_count") or 0,
            output_tokens=usage.get("output_token_count") or 0,
            seconds=round(time.perf_counter() - started, 1),
        ))
