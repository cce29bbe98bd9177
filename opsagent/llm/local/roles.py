"""One responder per agent role: read the role's input, apply its rules, return text or tool calls.

The role comes from the agent's YAML (``config.role``), never from guessing the prompt; the
dynamic triage agent's mode comes from the run's ``response_format`` (``ReviewModeOutput`` =
review mode), as MAF hands it over.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from agent_framework import Content, Message

from opsagent.agents.config import AgentConfig
from opsagent.contracts.plans import ReviewModeOutput
from opsagent.llm.local import answers
from opsagent.llm.local.clarifier import clarify_output
from opsagent.llm.local.inputs import conversation, last_user_text, review_input, specialist_input
from opsagent.llm.local.knowledge import SpecialistHints, load_knowledge
from opsagent.llm.local.planner import decide, triage_output, user_mode_output
from opsagent.llm.local.replan import review_mode_output
from opsagent.llm.local.reviewer import review_output
from opsagent.llm.local.tool_calls import plan_calls

Reply = str | list[Content]
_MAX_TASKS = re.compile(r"At most (\d+) tasks")


class Responder(Protocol):
    def reply(self, messages: Sequence[Message], options: Mapping[str, Any]) -> Reply: ...


def _json(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)


class PlannerResponder:
    """dynamic_triage (both modes), triage, review and clarify: the roles that read the registry."""

    def __init__(self, config: AgentConfig, config_dir: Path | None, specialists: Sequence[AgentConfig] | None) -> None:
        self.role = config.role
        self.knowledge = load_knowledge(config, config_dir, specialists)
        self.fixer = self.knowledge.typo_fixer()
        found = _MAX_TASKS.search(" ".join([config.instructions or ""] + [m.instructions for m in (config.modes or {}).values()]))
        self.max_tasks = int(found.group(1)) if found else 8

    def reply(self, messages: Sequence[Message], options: Mapping[str, Any]) -> Reply:
        if self.role == "review":
            return _json(review_output(review_input(last_user_text(messages)), self.knowledge, self.fixer))
        if self.role == "dynamic_triage" and options.get("response_format") is ReviewModeOutput:
            return _json(review_mode_output(review_input(last_user_text(messages)), self.knowledge, self.fixer))
        question, history = conversation(messages)
        if self.role == "clarify":
            return _json(clarify_output(question, history, self.knowledge, self.fixer))
        decision = decide(question, history, self.knowledge, self.fixer, self.max_tasks)
        return _json(triage_output(decision) if self.role == "triage" else user_mode_output(decision))


class SpecialistResponder:
    """A specialist: tool calls on the first turn, a grounded answer once the results are back."""

    def __init__(self, config: AgentConfig) -> None:
        self.hints = SpecialistHints.from_config(config)

    def reply(self, messages: Sequence[Message], options: Mapping[str, Any]) -> Reply:
        task = last_user_text(messages)
        outcomes = tool_outcomes(messages)
        if outcomes:
            return answers.answer(specialist_input(task).task, outcomes)
        tools = {tool.name: _properties(tool) for tool in options.get("tools") or () if getattr(tool, "name", None)}
        calls = plan_calls(specialist_input(task), self.hints, tools)
        if not calls:
            return "I have no tool that can answer this task, so I cannot report any data for it."
        return [Content.from_function_call(call_id=f"local_{index}", name=call.name, arguments=call.arguments)
                for index, call in enumerate(calls, start=1)]


def _properties(tool: Any) -> dict[str, Any]:
    try:
        return dict(tool.parameters().get("properties", {}))
    except (AttributeError, TypeError):
        return {}


def tool_outcomes(messages: Sequence[Message]) -> list[answers.CallOutcome]:
    """The function calls made since the last user message, each with its result."""
    start = max((index for index, m in enumerate(messages) if str(m.role) == "user"), default=-1) + 1
    calls: dict[str, tuple[str, dict]] = {}
    results: dict[str, str] = {}
    for message in messages[start:]:
        for content in message.contents:
            if content.type == "function_call":
                calls[content.call_id or ""] = (content.name or "?", _arguments(content.arguments))
            elif content.type == "function_result":
                results[content.call_id or ""] = answers.result_text(content.result) or str(content.exception or "")
    return [answers.CallOutcome(name, args, results.get(call_id, "Error: no result returned."))
            for call_id, (name, args) in calls.items()]


def _arguments(raw: Any) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def make_responder(config: AgentConfig, config_dir: Path | None = None,
                   specialists: Sequence[AgentConfig] | None = None) -> Responder:
    if config.role == "specialist":
        return SpecialistResponder(config)
    return PlannerResponder(config, config_dir, specialists)
