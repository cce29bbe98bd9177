"""Running a chat through a workflow: progress as it happens, then one ``Answer``. Never raises.

Every surface (HTTP API, OpenAI API, Teams, CLI, evals, benchmarks) goes through ``stream_chat``
or ``answer_chat``. A fresh workflow is built per call; the run happens in its own task so the
per-request usage meter lives in that task's context and a deadline can cancel the work cleanly.
While nothing happens for ``PROGRESS_KEEPALIVE_SECONDS`` the stream says what is still running.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable

from agent_framework import Workflow

from opsagent.contracts.evidence import TaskResult
from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.results import Answer, AnswerMetadata, ProgressEvent, WorkflowKind
from opsagent.llm.metering import UsageMeter, metered
from opsagent.runtime import Runtime
from opsagent.workflows.activity import RunActivity
from opsagent.workflows.dynamic_workflow import create_dynamic_workflow
from opsagent.workflows.triage_workflow import create_triage_workflow

logger = logging.getLogger(__name__)

WORKFLOW_FACTORIES: dict[WorkflowKind, Callable[[Runtime], Workflow]] = {
    "dynamic": create_dynamic_workflow,
    "triage": create_triage_workflow,
}

StreamItem = ProgressEvent | Answer
_DONE = object()
CANCEL_GRACE_SECONDS = 2.0
"""How long a timed-out run may take to unwind (so its cut-off model calls are metered) before answering."""


def _error_answer(workflow: WorkflowKind, code: str, text: str) -> Answer:
    return Answer(text=text, summary=text, metadata=AnswerMetadata(workflow=workflow, route="error", error_code=code))


def _timeout_answer(workflow: WorkflowKind, deadline_seconds: float, finished: list[TaskResult]) -> Answer:
    """The deadline passed: say so, and keep what finished before it (plan, tasks, their evidence)."""
    text = f"Sorry — no answer within {deadline_seconds:g} s."
    done = [result for result in finished if result.evidence]
    if done:
        lines = [f"- {result.agent}: {result.question} → {result.status}"
                 + "".join(f"\n  - {item.tool}: {item.message}" for item in result.evidence) for result in done]
        text += " What finished before the deadline (not reviewed or checked):\n\n" + "\n".join(lines)
    else:
        text += " Please try again."
    limitation = f"The request deadline ({deadline_seconds:g} s) passed before the answer was reviewed."
    metadata = AnswerMetadata(workflow=workflow, route="error", error_code="timeout", tasks=finished,
                              limitations=[limitation])
    return Answer(text=text, summary=text.split("\n", 1)[0], limitations=[limitation], metadata=metadata)


def _finish(answer: Answer, runtime: Runtime, meter: UsageMeter, started: float) -> Answer:
    metadata = answer.metadata.model_copy(
        update={
            "model": runtime.models.model,
            "provider": runtime.models.provider,
            "llm_calls": meter.llm_calls,
            "input_tokens": meter.input_tokens,
            "output_tokens": meter.output_tokens,
            "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            "usage_by_role": meter.usage_by_role(),
        }
    )
    return answer.model_copy(update={"metadata": metadata})


async def _drive(
    runtime: Runtime,
    chat: WorkflowInput,
    workflow: WorkflowKind,
    queue: asyncio.Queue[object],
    *,
    meter: UsageMeter,
    started: float,
) -> None:
    with metered(meter):
        answer: Answer | None = None
        try:
            stream = WORKFLOW_FACTORIES[workflow](runtime).run(chat, stream=True)
            async for event in stream:
                if event.type == "intermediate" and isinstance(event.data, ProgressEvent):
                    await queue.put(event.data)
                elif event.type == "output" and isinstance(event.data, Answer):
                    answer = event.data
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug or framework failure: log it with its traceback, answer cleanly
            logger.exception("workflow %s failed", workflow)
            answer = _error_answer(workflow, "internal", "Sorry — something went wrong while answering. It has been logged.")
        if answer is None:
            answer = _error_answer(workflow, "internal", "Sorry — the workflow ended without an answer. It has been logged.")
            logger.error("workflow %s ended without output", workflow)
        await queue.put(_finish(answer, runtime, meter, started))
    await queue.put(_DONE)


async def stream_chat(
    runtime: Runtime,
    chat: WorkflowInput,
    *,
    workflow: WorkflowKind = "dynamic",
    deadline_seconds: float | None = None,
) -> AsyncIterator[StreamItem]:
    """Yield progress events as they happen, then exactly one ``Answer``.

    On the deadline the work is cancelled and the answer keeps what finished. If the consumer
    stops early (a client went away), the work is cancelled too. After each quiet spell of
    ``PROGRESS_KEEPALIVE_SECONDS`` a ``working`` event says what is still running.
    """
    started = time.perf_counter()
    deadline = None if deadline_seconds is None else started + deadline_seconds
    keepalive = runtime.settings.progress_keepalive_seconds
    queue: asyncio.Queue[object] = asyncio.Queue()
    meter = UsageMeter()  # shared with the run's task, so a timeout answer still reports the calls made
    task = asyncio.create_task(_drive(runtime, chat, workflow, queue, meter=meter, started=started))
    finished: list[TaskResult] = []
    activity = RunActivity()
    last_item = started
    try:
        while True:
            now = time.perf_counter()
            wait = _next_wait(now, deadline=deadline, keepalive_at=last_item + keepalive if keepalive > 0 else None)
            try:
                item = await asyncio.wait_for(queue.get(), timeout=wait)
            except TimeoutError:
                if deadline is not None and time.perf_counter() >= deadline:
                    await _cancel(task)  # let cut-off calls reach the meter before it is read
                    yield _finish(_timeout_answer(workflow, deadline_seconds or 0.0, finished), runtime, meter, started)
                    return
                last_item = time.perf_counter()
                yield activity.keepalive(last_item - started)
                continue
            if item is _DONE:
                return
            last_item = time.perf_counter()
            if isinstance(item, ProgressEvent):
                activity.observe(item)
                if item.kind == "task_finished" and "result" in item.data:
                    finished.append(TaskResult.model_validate(item.data["result"]))
            yield item  # type: ignore[misc]
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def _next_wait(now: float, *, deadline: float | None, keepalive_at: float | None) -> float | None:
    """Seconds to wait for the next item: until the deadline or the next keep-alive, whichever is first."""
    moments = [moment for moment in (deadline, keepalive_at) if moment is not None]
    return max(0.0, min(moments) - now) if moments else None


async def _cancel(task: asyncio.Task[None]) -> None:
    """Cancel the run and give it a moment to unwind; a run that ignores cancellation is left behind."""
    task.cancel()
    await asyncio.wait({task}, timeout=CANCEL_GRACE_SECONDS)


async def answer_chat(
    runtime: Runtime,
    chat: WorkflowInput,
    *,
    workflow: WorkflowKind = "dynamic",
    deadline_seconds: float | None = None,
) -> tuple[Answer, list[ProgressEvent]]:
    """Run to the end; returns the answer and the progress events seen on the way."""
    events: list[ProgressEvent] = []
    async for item in stream_chat(runtime, chat, workflow=workflow, deadline_seconds=deadline_seconds):
        if isinstance(item, Answer):
            return item, events
        events.append(item)
    raise AssertionError("stream_chat always ends with an Answer")  # pragma: no cover
