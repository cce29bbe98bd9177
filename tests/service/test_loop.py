"""LoopThread: one loop per process, results and streams across threads, cancellation on timeout/close."""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
from collections.abc import AsyncIterator, Iterator

import pytest

from opsagent.service.loop import LoopThread, LoopTimeout

TRACE: contextvars.ContextVar[str | None] = contextvars.ContextVar("trace", default=None)


@pytest.fixture
def loop_thread() -> Iterator[LoopThread]:
    loop = LoopThread(propagate=(TRACE,))
    yield loop
    loop.close()


def test_loop_runs_every_job_on_one_background_loop(loop_thread: LoopThread) -> None:
    async def where() -> tuple[int, int]:
        return threading.get_ident(), id(asyncio.get_running_loop())

    first, second = loop_thread.submit(where(), timeout=5), loop_thread.submit(where(), timeout=5)
    assert first == second and first[0] != threading.get_ident()


def test_loop_passes_selected_context_variables(loop_thread: LoopThread) -> None:
    async def read() -> str | None:
        return TRACE.get()

    token = TRACE.set("req-7")
    try:
        assert loop_thread.submit(read(), timeout=5) == "req-7"
    finally:
        TRACE.reset(token)


def test_loop_timeout_cancels_the_work(loop_thread: LoopThread) -> None:
    cancelled = threading.Event()

    async def forever() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(LoopTimeout, match="0.1 s"):
        loop_thread.submit(forever(), timeout=0.1)
    assert cancelled.wait(5)


def test_loop_stream_yields_as_items_arrive_and_closing_cancels(loop_thread: LoopThread) -> None:
    finished = threading.Event()

    async def ticks() -> AsyncIterator[int]:
        try:
            for n in range(1000):
                yield n
                await asyncio.sleep(0.01)
        finally:
            finished.set()

    stream = loop_thread.stream(ticks(), timeout=10)
    assert [next(stream) for _ in range(3)] == [0, 1, 2]
    stream.close()  # the client went away
    assert finished.wait(5)


def test_loop_stream_reraises_the_producers_error(loop_thread: LoopThread) -> None:
    async def failing() -> AsyncIterator[int]:
        yield 1
        raise ValueError("producer broke")

    with pytest.raises(ValueError, match="producer broke"):
        list(loop_thread.stream(failing(), timeout=5))


def test_loop_restarts_in_a_forked_child(monkeypatch: pytest.MonkeyPatch) -> None:
    """A forked worker inherits the object but not the thread: a new pid must get a new loop."""
    async def loop_id() -> int:
        return id(asyncio.get_running_loop())

    loop_thread = LoopThread()
    parent = loop_thread.submit(loop_id(), timeout=5)
    inherited, inherited_thread = loop_thread._loop, loop_thread._thread
    with monkeypatch.context() as patched:
        patched.setattr("opsagent.service.loop.os.getpid", lambda: -1)
        child = loop_thread.submit(loop_id(), timeout=5)
        loop_thread.close()  # the "child's" loop
    assert child != parent
    parent_copy = LoopThread()  # stop the "parent's" loop the same way
    parent_copy._loop, parent_copy._thread, parent_copy._pid = inherited, inherited_thread, os.getpid()
    parent_copy.close()
    assert inherited.is_closed()


def test_loop_close_runs_the_final_step_and_cancels_leftovers() -> None:
    loop = LoopThread()
    steps: list[str] = []

    async def leftover() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            steps.append("leftover cancelled")
            raise

    async def start_leftover() -> None:
        asyncio.get_running_loop().create_task(leftover())
        await asyncio.sleep(0)

    async def final() -> None:
        steps.append("final")

    loop.submit(start_leftover(), timeout=5)
    loop.close(final())
    assert steps == ["final", "leftover cancelled"] and not loop.is_running


def test_loop_close_before_first_use_still_runs_the_final_step() -> None:
    steps: list[str] = []

    async def final() -> None:
        steps.append("final")

    LoopThread().close(final())
    assert steps == ["final"]


def test_loop_run_awaits_work_on_the_loop_from_another_loop(loop_thread: LoopThread) -> None:
    """``run`` is how async callers on uvicorn's loop reach the loop thread: result, errors, context and
    cancellation all cross over."""
    started, cancelled = threading.Event(), threading.Event()

    async def where() -> tuple[int, str | None]:
        return threading.get_ident(), TRACE.get()

    async def fails() -> None:
        raise ValueError("backend failed")

    async def forever() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def caller() -> tuple[int, str | None]:
        TRACE.set("req-9")
        found = await loop_thread.run(where())
        with pytest.raises(ValueError, match="backend failed"):
            await loop_thread.run(fails())
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(loop_thread.run(forever()), timeout=0.2)
        return found

    thread, trace = asyncio.run(caller())
    assert thread != threading.get_ident() and trace == "req-9"
    assert started.is_set() and cancelled.wait(5)
