"""Latency simulation: a model that takes time per call (and per generated token) and slow backends.

Wraps the real local model and demo backends, so every benchmark runs the real workflows and tools
with only the waiting added.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field, replace
from typing import Any

from agent_framework import ChatContext, ChatMiddleware, SupportsChatGetResponse

from opsagent.backends.base import Backends
from opsagent.errors import BackendUnavailableError
from opsagent.llm.metering import CHARS_PER_TOKEN
from opsagent.llm.providers import LocalModelProvider


class LatencyMiddleware(ChatMiddleware):
    """Sleeps like a remote model: a fixed time per call, plus output tokens at a generation rate."""

    def __init__(self, seconds_per_call: float, tokens_per_second: float | None = None) -> None:
        self.seconds_per_call = seconds_per_call
        self.tokens_per_second = tokens_per_second

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        await asyncio.sleep(self.seconds_per_call)
        await call_next()
        if self.tokens_per_second and context.result is not None and not context.stream:
            chars = sum(len(message.text or "") for message in context.result.messages)
            await asyncio.sleep(chars / CHARS_PER_TOKEN / self.tokens_per_second)


@dataclass
class SlowModelProvider:
    """The local model, slowed down to a remote model's pace."""

    seconds_per_call: float
    inner: LocalModelProvider
    tokens_per_second: float | None = None
    provider: str = "local+latency"
    model: str = "local-rules"

    def response_format(self, model: type, *, agents: Collection[str] = ()) -> type:
        return self.inner.response_format(model, agents=agents)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def client_for(self, role: str) -> SupportsChatGetResponse:
        client = self.inner.client_for(role)
        if not any(isinstance(m, LatencyMiddleware) for m in client.chat_middleware):  # type: ignore[attr-defined]
            client.chat_middleware.append(LatencyMiddleware(self.seconds_per_call, self.tokens_per_second))  # type: ignore[attr-defined]
        return client


class SlowBackend:
    """Adds a fixed delay to every call of a backend."""

    def __init__(self, inner: Any, seconds: float) -> None:
        self.kind = getattr(inner, "kind", "slow")
        self._inner = inner
        self._seconds = seconds

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._inner, name)
        if not callable(target):
            return target

        async def slowed(*args: Any, **kwargs: Any) -> Any:
            await asyncio.sleep(self._seconds)
            return await target(*args, **kwargs)

        return slowed


class FlakyMethod:
    """Makes one backend method fail on every other call (1st, 3rd, …): a transient outage that a
    retry fixes, so the review-retry path runs once per question."""

    def __init__(self, inner: Any, method: str) -> None:
        self.kind = getattr(inner, "kind", "flaky")
        self._inner = inner
        self._method = method
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._inner, name)
        if name != self._method:
            return target

        async def flaky(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.calls % 2 == 1:
                raise BackendUnavailableError("status page unavailable (HTTP 503) after retries", backend="Snowflake status",
                                              status_code=503)
            return await target(*args, **kwargs)

        return flaky


def slow_backends(backends: Backends, seconds: float) -> Backends:
    return replace(
        backends,
        servicenow=SlowBackend(backends.servicenow, seconds),
        pipelines=SlowBackend(backends.pipelines, seconds),
        health=SlowBackend(backends.health, seconds),
    )
