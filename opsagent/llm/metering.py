"""Per-request counting of model calls and tokens.

Agents and chat clients are shared between requests, so the counts cannot live on them. Each
request opens a ``UsageMeter`` in a context variable; asyncio tasks the workflow starts inherit
the context, so the chat middleware on every agent adds to the meter of the request it serves.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from agent_framework import ChatContext, ChatMiddleware, Message

_current_meter: contextvars.ContextVar[UsageMeter | None] = contextvars.ContextVar("opsagent_meter", default=None)

CHARS_PER_TOKEN = 4
"""Rough estimate used when a provider reports no token counts (the local model)."""


@dataclass
class UsageMeter:
    """Model calls and tokens of one request (or of one task within it)."""

    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    parent: UsageMeter | None = None
    """A task's meter also counts into its request's meter."""

    def record(self, *, input_tokens: int, output_tokens: int) -> None:
        self.llm_calls += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        if self.parent is not None:
            self.parent.record(input_tokens=input_tokens, output_tokens=output_tokens)


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


def estimate_tokens(messages: Sequence[Message], instructions: str = "") -> int:
    chars = len(instructions) + sum(len(message.text or "") for message in messages)
    return max(1, chars // CHARS_PER_TOKEN)


class MeteringMiddleware(ChatMiddleware):
    """Chat middleware that adds each model call of an agent to the current request's meter."""

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        await call_next()
        meter = _current_meter.get()
        if meter is None:
            return
        usage = getattr(context.result, "usage_details", None) or {}
        input_tokens = usage.get("input_token_count") or estimate_tokens(
            context.messages, str((context.options or {}).get("instructions") or "")
        )
        output_tokens = usage.get("output_token_count") or 0
        if not output_tokens and not context.stream and context.result is not None:
            output_tokens = estimate_tokens(context.result.messages)
        meter.record(input_tokens=input_tokens, output_tokens=output_tokens)
