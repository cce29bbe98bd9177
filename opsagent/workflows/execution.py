"""Running one specialist task: bounded in time, failures turned into results, tool calls traced.

Shared by the orchestrator (dynamic workflow) and the specialist executors (triage workflow).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Sequence
from typing import Any

from agent_framework import AgentResponse, Message

from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.plans import PlanStep
from opsagent.contracts.results import PlanMode, ToolCallRecord, TaskResult
from opsagent.llm.failures import describe_model_failure
from opsagent.llm.metering import metered
from opsagent.tools.envelope import ToolResult
from opsagent.workflows.prompts import task_message

logger = logging.getLogger(__name__)

TOOL_RESULT_EXCERPT_CHARS = 16_000
"""How much of each tool output a result keeps (for grounding checks and limitations)."""

FRAMEWORK_TOOL_ERROR_PREFIX = "Error:"
"""MAF reports a raising tool or unparsable arguments to the model as "Error: …"."""


def _stringify(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # MAF may hand back a list of contents
        return "".join(_stringify(getattr(item, "text", item)) for item in value)
    return json.dumps(value, default=str) if value is not None else ""


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw.strip():
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError:
            return {"_raw": raw}
        return parsed if isinstance(parsed, dict) else {"_raw": raw}
    return {}


def trace_tool_calls(messages: Sequence[Message]) -> list[ToolCallRecord]:
    """Pair each function call in an agent run with its result, in call order."""
    calls: dict[str, ToolCallRecord] = {}
    for message in messages:
        for content in message.contents:
            if content.type == "function_call":
                calls[content.call_id or str(len(calls))] = ToolCallRecord(
                    name=content.name or "?", arguments=_arguments(content.arguments)
                )
            elif content.type == "function_result" and content.call_id in calls:
                text = _stringify(content.result)
                envelope = ToolResult.from_text(text)
                is_error = (envelope.status == "error") if envelope else text.startswith(FRAMEWORK_TOOL_ERROR_PREFIX)
                record = calls[content.call_id]
                record.result = text[:TOOL_RESULT_EXCERPT_CHARS]
                record.is_error = is_error or content.exception is not None
    return list(calls.values())


async def run_task(
    agent: ConfiguredAgent,
    task: PlanStep,
    *,
    previous: Sequence[TaskResult] = (),
    timeout_seconds: float,
    mode: PlanMode,
) -> TaskResult:
    """Ask one specialist one question; never raises (cancellation aside)."""
    with metered(nested=True) as meter:
        result = await _run_task(agent, task, previous=previous, timeout_seconds=timeout_seconds, mode=mode)
    return result.model_copy(update={"llm_calls": meter.llm_calls})


async def _run_task(
    agent: ConfiguredAgent,
    task: PlanStep,
    *,
    previous: Sequence[TaskResult],
    timeout_seconds: float,
    mode: PlanMode,
) -> TaskResult:
    started = time.perf_counter()
    base = {"step": task.step, "agent": task.agent, "question": task.question, "mode": mode}

    def elapsed_ms() -> float:
        return round((time.perf_counter() - started) * 1000, 1)

    try:
        async with asyncio.timeout(timeout_seconds):
            response: AgentResponse = await agent.agent.run(task_message(task.question, previous))
    except TimeoutError:
        return TaskResult(
            **base, status="timeout", error=f"no answer within {timeout_seconds:g} s", duration_ms=elapsed_ms()
        )
    except asyncio.CancelledError:
        raise
    except Exception as error:  # a model or framework failure is a failed task, not a failed workflow
        logger.warning("task %s/%s failed: %s", task.agent, task.step, type(error).__name__, exc_info=True)
        return TaskResult(**base, status="failed", error=describe_model_failure(error), duration_ms=elapsed_ms())
    text = (response.text or "").strip()
    tool_calls = trace_tool_calls(response.messages)
    if not text:
        return TaskResult(
            **base, status="failed", error="the specialist returned an empty answer",
            tool_calls=tool_calls, duration_ms=elapsed_ms(),
        )
    return TaskResult(**base, status="ok", response=text, tool_calls=tool_calls, duration_ms=elapsed_ms())
