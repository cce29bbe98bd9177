"""LoopThread: the one long-lived asyncio loop that runs every workflow of this process.

Flask views are synchronous; workflows, chat clients and aiohttp/httpx sessions are async and
belong to the loop that created them. So each process owns one loop on a daemon thread, started
lazily on first use: in each server worker process (uvicorn spawns them; a forked child gets a
fresh loop too).
Views hand coroutines over with ``submit`` (wait for a result) or ``stream`` (bridge an async
iterator to a sync generator for streaming responses); async code on another loop (the MCP
endpoint, on uvicorn's) awaits ``run``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import os
import queue
import threading
import time
from collections.abc import AsyncIterable, Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

_ITEM, _ERROR, _END = "item", "error", "end"


class LoopTimeout(TimeoutError):
    """Work handed to the loop did not finish in time; it has been cancelled."""


async def _with_context(coro: Coroutine[Any, Any, T], values: list[tuple[contextvars.ContextVar, Any]]) -> T:
    """Run ``coro`` with the caller's values of selected context variables (e.g. the request id)."""
    for var, value in values:
        var.set(value)
    return await coro


class LoopThread:
    """One asyncio loop on a daemon thread, (re)started lazily in the process that uses it."""

    def __init__(self, *, name: str = "opsagent-loop", propagate: tuple[contextvars.ContextVar, ...] = ()) -> None:
        self._name = name
        self._propagate = propagate
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pid = 0

    @property
    def is_running(self) -> bool:
        return self._loop is not None and self._pid == os.getpid() and self._loop.is_running()

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        """The loop of this process; a forked child (whose copy has no thread) gets a fresh one."""
        with self._lock:
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                started = threading.Event()
                loop.call_soon(started.set)
                thread = threading.Thread(target=loop.run_forever, name=self._name, daemon=True)
                thread.start()
                started.wait()
                self._loop, self._thread, self._pid = loop, thread, os.getpid()
            return self._loop

    def _schedule(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        values = [(var, var.get()) for var in self._propagate if var.get(None) is not None]
        return asyncio.run_coroutine_threadsafe(_with_context(coro, values), self._ensure_loop())

    def start_soon(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run ``coro`` on the loop without waiting for it (background work such as start-up recovery)."""
        return self._schedule(coro)

    def submit(self, coro: Coroutine[Any, Any, T], *, timeout: float | None) -> T:
        """Run ``coro`` on the loop and wait for its result.

        Raises:
            LoopTimeout: after ``timeout`` seconds; the work is cancelled first.
        """
        future = self._schedule(coro)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise LoopTimeout(f"no result within {timeout:g} s") from None

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on this loop from code running on another loop (e.g. an ASGI app on uvicorn's).

        Workflows, tools and their HTTP clients belong to this loop, so they must run here. The
        caller's context variables listed in ``propagate`` go along; exceptions come back, and
        cancelling the caller (a timeout, a client that left) cancels the work.
        """
        return await asyncio.wrap_future(self._schedule(coro))

    def stream(self, items: AsyncIterable[T], *, timeout: float | None) -> Iterator[T]:
        """Yield the items of an async iterable as they arrive, from a synchronous generator.

        Closing the generator early (a client went away) cancels the async side, which cancels
        the work behind it. ``timeout`` bounds the whole stream (a safety net: the runner has its
        own, politer deadline).
        """
        handoff: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()

        async def pump() -> None:
            try:
                async for item in items:
                    handoff.put((_ITEM, item))
            except Exception as error:  # handed to the consumer thread, which re-raises it
                handoff.put((_ERROR, error))
            finally:
                handoff.put((_END, None))

        future = self._schedule(pump())
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            yield from _drain(handoff, deadline, timeout)
        finally:
            future.cancel()

    def close(self, final: Coroutine[Any, Any, Any] | None = None, *, timeout: float = 10.0) -> None:
        """Run ``final`` (e.g. closing HTTP pools) on the loop, then stop the loop and its thread."""
        with self._lock:
            loop, thread, pid = self._loop, self._thread, self._pid
            self._loop = self._thread = None
        if loop is None or pid != os.getpid():  # never started here: nothing async is bound to a loop yet
            if final is not None:
                asyncio.run(final)
            return
        for step in (final, _cancel_pending()):
            if step is not None:
                try:
                    asyncio.run_coroutine_threadsafe(step, loop).result(timeout)
                except concurrent.futures.TimeoutError:
                    pass
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout)
        if not loop.is_running():
            loop.close()


async def _cancel_pending() -> None:
    """Cancel what is still running (e.g. a Teams follow-up) so nothing dies silently at exit."""
    current = asyncio.current_task()
    pending = [task for task in asyncio.all_tasks() if task is not current]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


def _drain(handoff: queue.SimpleQueue[tuple[str, Any]], deadline: float | None, timeout: float | None) -> Iterator[Any]:
    while True:
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            kind, value = handoff.get(timeout=remaining)
        except queue.Empty:
            raise LoopTimeout(f"stream did not finish within {timeout:g} s") from None
        if kind == _END:
            return
        if kind == _ERROR:
            raise value
        yield value
