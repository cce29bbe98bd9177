"""Per-request counting of model calls and tokens, in total and per role.

Agents and chat clients are shared between requests, so the counts cannot live on them. Each
request opens a ``UsageMeter`` in a context variable; asyncio tasks the workflow starts inherit
the context, so the chat middleware on every agent adds to the meter of the request it serves.
A call cut off by a timeout or a cancellation still counts: its prompt was sent (and processed,
on a self-hosted server), it just never answered.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import openai
from agent_framework import ChatContext, ChatMiddleware, Content, Message

from opsagent.contracts.usage import RoleUsage

_current_meter: contextvars.ContextVar[UsageMeter | None] = contextvars.ContextVar("opsagent_meter", default=None)

CHARS_PER_TOKEN = 4
"""Rough estimate used when a provider reports no token counts (the local model)."""
TRIMMED_METADATA_KEY = "opsagent_prompt_trimmed"
"""Set in a call's ``ChatContext.metadata`` by the prompt budget when it cut the prompt."""


@dataclass
class UsageMeter:
    """Model calls and tokens of one request (or of one task within it)."""

    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    parent: UsageMeter | None = None
    """A task's meter also counts into its request's meter."""
    roles: dict[str, RoleUsage] = field(default_factory=dict)

    def record(self, *, input_tokens: int, output_tokens: int, role: str = "", cut_off: bool = False,
               trimmed: bool = False) -> None:
        self.llm_calls += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        if role:
            self.roles.setdefault(role, RoleUsage()).add(input_tokens=input_tokens, output_tokens=output_tokens,
                                                         cut_off=cut_off, trimmed=trimmed)
        if self.parent is not None:
            self.parent.record(input_tokens=input_tokens, output_tokens=output_tokens, role=role, cut_off=cut_off,
                               trimmed=trimmed)

    def usage_by_role(self) -> dict[str, RoleUsage]:
        """A copy for an answer's metadata (the meter may still count a call being cancelled)."""
        return {role: usage.model_copy(deep=True) for role, usage in sorted(self.roles.items())}


@contextmanager
def metered(meter: UsageMeter | None = None, *, nested: bool = False) -> Iterator[UsageMeter]:
    """Make ``meter`` (or a new one) count the code, and the tasks it starts, inside the block.

    With ``nested=True`` the new meter counts into the one already open (a task inside a request).
    """
    meter = meter or UsageMeter(parent=_current_meter.get() if nested else None)
    token = _current_meter.set(meter)
    try:
        yield meter
    finally:
        _current_meter.reset(token)


def _chars(content: Content) -> int:
    """A content's size as the model reads it: text, a tool's result, or a call's arguments."""
    value = getattr(content, "text", None) or getattr(content, "result", None) or getattr(content, "arguments", None)
    return len(value if isinstance(value, str) else json.dumps(value, default=str) if value else "")


def estimate_tokens(messages: Sequence[Message], instructions: str = "") -> int:
    chars = len(instructions) + sum(_chars(content) for message in messages for content in message.contents)
    return max(1, chars // CHARS_PER_TOKEN)


def tool_schema_tokens(options: Mapping[str, Any]) -> int:
    """The tool definitions count against the context too (about 1,100 tokens for three tools)."""
    chars = 0
    for tool in options.get("tools") or []:
        parameters = tool.parameters() if callable(getattr(tool, "parameters", None)) else {}
        chars += len(getattr(tool, "name", "")) + len(getattr(tool, "description", "") or "") + len(json.dumps(parameters))
    return chars // CHARS_PER_TOKEN


def prompt_tokens(messages: Sequence[Message], options: Mapping[str, Any]) -> int:
    """Estimated prompt of one call: instructions, messages (tool results included) and tool definitions."""
    return estimate_tokens(messages, str(options.get("instructions") or "")) + tool_schema_tokens(options)


def _prompt_estimate(context: ChatContext) -> int:
    return prompt_tokens(context.messages, context.options or {})


def is_cut_off(error: BaseException) -> bool:
    """A cancellation or a timeout, here or anywhere down its chain of causes."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, asyncio.CancelledError | TimeoutError | openai.APITimeoutError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


class MeteringMiddleware(ChatMiddleware):
    """Chat middleware that adds each model call of an agent (``role``) to the current request's meter."""

    def __init__(self, role: str = "") -> None:
        self.role = role

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        trimmed = bool(context.metadata.get(TRIMMED_METADATA_KEY))
        try:
            await call_next()
        except BaseException as error:
            meter = _current_meter.get()
            if meter is not None and is_cut_off(error):
                meter.record(input_tokens=_prompt_estimate(context), output_tokens=0, role=self.role, cut_off=True,
                             trimmed=trimmed)
            raise
        meter = _current_meter.get()
        if meter is None:
            return
        usage = getattr(context.result, "usage_details", None) or {}
        input_tokens = usage.get("input_token_count") or _prompt_estimate(context)
        output_tokens = usage.get("output_token_count") or 0
        if not output_tokens and not context.stream and context.result is not None:
            output_tokens = estimate_tokens(context.result.messages)
        meter.record(input_tokens=input_tokens, output_tokens=output_tokens, role=self.role, trimmed=trimmed)
