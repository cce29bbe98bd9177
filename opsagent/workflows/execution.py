"""Running one specialist task: bounded in time, every tool call kept as evidence, never raising.

Shared by the orchestrator (dynamic workflow) and the specialist executors (triage workflow).
A task is ``ok`` only when a tool answered. A reply with no successful tool call is
``unsupported`` (the model answered from thin air) or ``failed`` (every call failed); a function
call the model wrote as text is recognised, executed and noted, never shown as the answer; its result goes
back to the model like a native call's, so it can correct a bad argument (a bounded number of rounds).
"""

from __future__ import annotations

import asyncio
import logging
import time

from typing import Any

from agent_framework import AgentResponse, Content, Message

from opsagent.agents.factory import ConfiguredAgent
from opsagent.agents.tool_log import ToolLog, output_text, tool_log
from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.repair import text_function_calls
from opsagent.contracts.role_inputs import SpecialistInput
from opsagent.llm.failures import describe_model_failure
from opsagent.llm.metering import metered
from opsagent.workflows.prompts import specialist_messages

logger = logging.getLogger(__name__)

MAX_RESPONSE_CHARS = 4_000
"""A specialist's own words are kept up to this length (the evidence carries the data)."""
TOOL_LIMIT_TEXT = "Function invocation limit reached"
"""How MAF's reply starts when the tool loop hit its bounds before a final answer."""
MAX_RECOVERED_CALLS = 4
"""Calls written as text that one reply may make."""
MAX_TEXT_CALL_ROUNDS = 2
"""Rounds of calls written as text whose results the model sees (a native tool loop has its own bound)."""


def bounded(text: str, limit: int = MAX_RESPONSE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


async def run_task(agent: ConfiguredAgent, role_input: SpecialistInput, *, timeout_seconds: float) -> TaskResult:
    """Ask one specialist one question; never raises (cancellation aside)."""
    with metered(nested=True) as meter, tool_log() as log:
        result = await _run_task(agent, role_input, log, timeout_seconds=timeout_seconds)
    return result.model_copy(update={"llm_calls": meter.llm_calls})


async def _run_task(agent: ConfiguredAgent, role_input: SpecialistInput, log: ToolLog, *,
                    timeout_seconds: float) -> TaskResult:
    started = time.perf_counter()
    task = role_input.task
    base = {"step": task.step, "agent": task.agent, "question": task.question, "part": task.part,
            "mode": role_input.mode}

    def finish(**fields: object) -> TaskResult:
        return TaskResult(**base, evidence=list(log.evidence), duration_ms=round((time.perf_counter() - started) * 1000, 1),
                          **fields)

    try:
        async with asyncio.timeout(timeout_seconds):
            text, notes = await _converse(agent, specialist_messages(role_input), log)
    except TimeoutError:  # the calls that finished are kept: they are evidence all the same
        return finish(status="timeout", error=f"no answer within {timeout_seconds:g} s")
    except asyncio.CancelledError:
        raise
    except Exception as error:  # a model or framework failure is a failed task, not a failed workflow
        logger.warning("task %s/%s failed: %s", task.agent, task.step, type(error).__name__, exc_info=True)
        return finish(status="failed", error=describe_model_failure(error))
    return finish(**_classify(text, log.evidence), notes=notes)


def _classify(text: str, evidence: list[ToolEvidence]) -> dict[str, object]:
    """Status, response and error of a finished run, from what its tools returned."""
    answered = [item for item in evidence if item.answered]
    if text.startswith(TOOL_LIMIT_TEXT):
        return {"status": "failed", "error": "the specialist kept calling tools and reached the tool-call limit",
                "response": ""}
    if not evidence:
        return {"status": "unsupported", "error": "the specialist answered without fetching any data",
                "response": bounded(text)}
    if not answered:
        return {"status": "failed", "error": f"every tool call failed: {evidence[0].message}", "response": bounded(text)}
    if not text:
        text = " ".join(item.message for item in answered if item.message)
    return {"status": "ok", "response": bounded(text)}


async def _converse(agent: ConfiguredAgent, messages: list[Message], log: ToolLog) -> tuple[str, list[str]]:
    """The specialist's reply and notes. Calls it writes as text (small models often do) are run, recorded as
    evidence and shown back to it as a tool round, so it can read the result or correct an argument; a reply
    that is still a call after the last round is run and is not an answer ("")."""
    notes: list[str] = []
    for round_number in range(MAX_TEXT_CALL_ROUNDS + 1):
        response: AgentResponse = await agent.agent.run(messages, options=agent.run_options())
        text = (response.text or "").strip()
        if any(not item.recovered for item in log.evidence):  # it calls tools natively: its text is its answer
            return text, notes
        calls = text_function_calls(text, {tool.name for tool in agent.tools})[:MAX_RECOVERED_CALLS]
        if not calls:
            return text, notes
        outputs = [await _run_text_call(agent, name, arguments, log) for name, arguments in calls]
        notes.append(f"recovered {len(calls)} tool call(s) the model wrote as text: {', '.join(name for name, _ in calls)}")
        ids = [f"text_call_{round_number + 1}_{index}" for index in range(1, len(calls) + 1)]
        messages = [*messages,
                    Message("assistant", [Content.from_function_call(call_id=call_id, name=name, arguments=arguments)
                                          for call_id, (name, arguments) in zip(ids, calls)]),
                    Message("tool", [Content.from_function_result(call_id=call_id, result=output)
                                     for call_id, output in zip(ids, outputs)])]
    return "", notes


async def _run_text_call(agent: ConfiguredAgent, name: str, arguments: dict[str, Any], log: ToolLog) -> str:
    """Execute one call the model wrote as text; bad arguments are a failed call's evidence, as MAF reports them."""
    tool = next(tool for tool in agent.tools if tool.name == name)
    try:
        output = output_text(await tool.invoke(arguments=arguments))
    except Exception as error:
        output = f"Error: {type(error).__name__}: the arguments did not fit {name}"
    log.record(name, arguments, output, recovered=True)
    return output
