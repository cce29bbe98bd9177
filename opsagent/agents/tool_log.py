"""Every tool call of a specialist task, recorded as evidence the moment it returns.

Agents are shared between requests, so the log of the task being run lives in a context variable
(asyncio tasks MAF starts for parallel calls inherit it). Recording as calls return, rather than
reading the agent's reply afterwards, keeps the evidence of a task that times out half-way. An
identical call repeated within one task is answered from the log instead of hitting the backend
again: small models loop on the same call, and each repeat grows the prompt.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from agent_framework import FunctionInvocationContext, FunctionMiddleware
from pydantic import BaseModel

from opsagent.contracts.evidence import ToolEvidence
from opsagent.contracts.tool_result import ToolResult

_current_log: contextvars.ContextVar[ToolLog | None] = contextvars.ContextVar("opsagent_tool_log", default=None)


def output_text(value: Any) -> str:
    """A function result as text (MAF hands back strings, lists of contents or plain objects)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(output_text(getattr(item, "text", None) or getattr(item, "result", None) or item)
                       for item in value)
    return json.dumps(value, default=str) if value is not None else ""


def plain_arguments(arguments: Any) -> dict[str, Any]:
    """Tool arguments as a plain dict, whatever form MAF hands them in."""
    if isinstance(arguments, BaseModel):
        return arguments.model_dump(exclude_none=True)
    if isinstance(arguments, dict):
        return {key: value for key, value in arguments.items() if value is not None}
    if isinstance(arguments, str) and arguments.strip():
        try:
            parsed = json.loads(arguments)
        except json.JSONDecodeError:
            return {"_raw": arguments}
        return parsed if isinstance(parsed, dict) else {"_raw": arguments}
    return {}


def _call_key(tool: str, arguments: dict[str, Any]) -> str:
    return f"{tool}:{json.dumps(arguments, sort_keys=True, default=str)}"


@dataclass
class ToolLog:
    """The tool calls of one task, in the order they returned."""

    evidence: list[ToolEvidence] = field(default_factory=list)
    _outputs: dict[str, str] = field(default_factory=dict)

    def record(self, tool: str, arguments: dict[str, Any], output: str, *, recovered: bool = False) -> ToolEvidence:
        item = ToolEvidence.from_output(tool, arguments, output, call_id=f"call_{len(self.evidence) + 1}")
        item.recovered = recovered
        self.evidence.append(item)
        self._outputs.setdefault(_call_key(tool, arguments), output)
        return item

    def earlier_output(self, tool: str, arguments: dict[str, Any]) -> str | None:
        return self._outputs.get(_call_key(tool, arguments))

    def record_repeat(self, tool: str, arguments: dict[str, Any], output: str) -> None:
        item = ToolEvidence.from_output(tool, arguments, output, call_id=f"call_{len(self.evidence) + 1}")
        item.repeated = True
        self.evidence.append(item)


@contextmanager
def tool_log() -> Iterator[ToolLog]:
    """Record the tool calls made inside the block (and the tasks it starts) into a new log."""
    log = ToolLog()
    token = _current_log.set(log)
    try:
        yield log
    finally:
        _current_log.reset(token)


REPEAT_NOTE = "This exact call was already made in this task; its result is repeated here. Do not call it again."


def repeated_output(output: str) -> str:
    """The earlier output with a note telling the model to stop repeating itself (still an envelope)."""
    envelope = ToolResult.from_text(output)
    if envelope is None:
        return f"{output}\n({REPEAT_NOTE})"
    return envelope.model_copy(update={"warnings": [*envelope.warnings, REPEAT_NOTE]}).to_text()


class ToolLogMiddleware(FunctionMiddleware):
    """Function middleware that records each call into the current task's log and answers repeats."""

    async def process(self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]) -> None:
        log = _current_log.get()
        if log is None:  # a tool called outside a task (a test, a direct invoke): nothing to record
            await call_next()
            return
        name = context.function.name
        arguments = plain_arguments(context.arguments)
        earlier = log.earlier_output(name, arguments)
        if earlier is not None:
            log.record_repeat(name, arguments, earlier)
            context.result = repeated_output(earlier)
            return
        try:
            await call_next()
        except Exception as error:  # MAF turns it into an error result for the model; keep it as evidence
            log.record(name, arguments, f"Error: {type(error).__name__}")
            raise
        log.record(name, arguments, output_text(context.result))
