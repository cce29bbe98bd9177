"""What OpsAgent offers over MCP: every read-only tool of the catalog as it is, and ``ask_opsagent``.

The tools are the specialists' own MAF ``FunctionTool``s (``SPECIALISTS``), over the app's backends,
each one the tool catalog lists (``tools/catalog.py``): an MCP client sees the same name,
description and JSON schema a specialist model sees (annotated read-only), and MAF validates the
arguments. ``ask_opsagent`` runs a whole workflow (plan, specialists,
review, grounding) and returns the direct answer, the key facts, limitations, compact evidence
and the grounding verdict, as text for the model and as ``structuredContent`` for programs.
Every call runs on the app's loop thread, where the backends' HTTP clients live. Nothing is kept
between calls: ``ask_opsagent`` answers one question, without a conversation.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import mcp.types as types
from agent_framework import FunctionTool
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from opsagent.agents.specialists import SPECIALISTS
from opsagent.tools.catalog import BY_NAME
from opsagent.contracts.requests import MessageData, WorkflowInput
from opsagent.contracts.results import Answer, WorkflowKind
from opsagent.service.admission import RETRY_AFTER_SECONDS
from opsagent.service.errors import answer_failure
from opsagent.service.state import ServiceState
from opsagent.service.validation import text_problem
from opsagent.workflows.runner import answer_chat

logger = logging.getLogger(__name__)

ASK_TOOL = "ask_opsagent"
READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                  open_world_hint=True)
ASK_ANNOTATIONS = types.ToolAnnotations(title="Ask OpsAgent", read_only_hint=True, destructive_hint=False,
                                        idempotent_hint=False, open_world_hint=True)
ASK_DESCRIPTION = (
    "Ask OpsAgent an operations question in plain language (incidents and changes in ServiceNow, Azure Data "
    "Factory pipeline runs, Databricks/Snowflake/Azure health, or several at once). It plans, queries the "
    "systems with the read-only tools, reviews and checks the answer against the data, and returns the direct "
    "answer, key facts, limitations, the evidence per system and the grounding verdict. Slower than a single "
    "tool (seconds to minutes); use it for questions that span systems or need judgement."
)


class AskArguments(BaseModel):
    """The arguments of ``ask_opsagent`` (also its published input schema)."""

    model_config = ConfigDict(extra="forbid", title="ask_opsagent_input")

    question: str = Field(min_length=1, description="The question, as an engineer would ask it, e.g. 'Which "
                          "pipelines failed in the last 24 hours, and is there an open incident for any of them?'")
    workflow: WorkflowKind | None = Field(default=None, description="dynamic (plans in steps, reviews, may re-plan "
                                          "once) or triage (one parallel step); omit for the server's default")


class GroundingSummary(BaseModel):
    verdict: str
    score: float
    checks: int = Field(default=0, description="claims checked; 0 = the answer states nothing about the data")
    said: str = Field(default="", description="the verdict in words, e.g. 'pass (score 0.92)' or 'nothing to check'")


class EvidenceItem(BaseModel):
    agent: str
    title: str
    markdown: str


class AskResult(BaseModel):
    """``ask_opsagent``'s structured result (its published output schema)."""

    answer: str = Field(description="the direct answer, 1-3 sentences")
    facts: list[str]
    limitations: list[str]
    evidence: list[EvidenceItem] = Field(description="each specialist's tool calls with a few rows")
    grounding: GroundingSummary | None = Field(description="the last grounding check; 'block' = parts left out")
    route: str
    workflow: str
    model: str


def ask_result(answer: Answer) -> AskResult:
    meta = answer.metadata
    last = meta.grounding[-1] if meta.grounding else None
    return AskResult(
        answer=answer.summary or answer.text, facts=answer.facts, limitations=answer.limitations,
        evidence=[EvidenceItem(**section.model_dump()) for section in answer.evidence],
        grounding=GroundingSummary(verdict=last.verdict, score=round(last.score, 2), checks=len(last.checks),
                                   said=last.describe()) if last else None,
        route=meta.route, workflow=meta.workflow, model=f"{meta.model} ({meta.provider})")


def ask_text(result: AskResult) -> str:
    """The result as markdown for the calling model: the answer first, the evidence last."""
    parts = [result.answer]
    if result.facts:
        parts.append("\n".join(f"- {fact}" for fact in result.facts))
    if result.limitations:
        parts.append("**Limitations**\n" + "\n".join(f"- {line}" for line in result.limitations))
    parts += [f"**Evidence: {item.title}**\n\n{item.markdown}" for item in result.evidence]
    if result.grounding is not None:
        parts.append(f"Grounding: {result.grounding.said}")
    return "\n\n".join(parts)


def _text_result(text: str, *, is_error: bool = False,
                 structured: dict[str, Any] | None = None) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured,
                                is_error=is_error)


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class McpCatalogue:
    """The tools of one app, and how to call them; built once per app, holds no per-call state."""

    state: ServiceState
    tools: dict[str, FunctionTool]
    default_workflow: WorkflowKind

    @classmethod
    def for_state(cls, state: ServiceState, *, default_workflow: WorkflowKind) -> McpCatalogue:
        runtime = state.runtime
        tools = [tool for spec in SPECIALISTS for tool in spec.load_tool_factory()(
            runtime.backends, clock=runtime.clock, max_rows=runtime.settings.tool_max_rows) if tool.name in BY_NAME]
        return cls(state=state, tools={tool.name: tool for tool in tools}, default_workflow=default_workflow)

    def listing(self) -> list[types.Tool]:
        listed = [types.Tool(name=tool.name, description=tool.description, input_schema=tool.parameters(),
                             annotations=READ_ONLY) for tool in self.tools.values()]
        ask = types.Tool(name=ASK_TOOL, title="Ask OpsAgent", description=ASK_DESCRIPTION,
                         input_schema=AskArguments.model_json_schema(), output_schema=AskResult.model_json_schema(),
                         annotations=ASK_ANNOTATIONS)
        return [*listed, ask]

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Run one call; bad arguments, unknown tools and failures are error results, never exceptions."""
        if name == ASK_TOOL:
            return await self._ask(arguments)
        tool = self.tools.get(name)
        if tool is None:
            return _text_result(f"Unknown tool '{name}'; call tools/list for the {len(self.tools) + 1} tools.",
                                is_error=True)
        try:
            contents = await self.state.loop.run(tool.invoke(arguments=arguments))
        except TypeError as error:  # MAF's argument validation error is a TypeError
            return _text_result(f"Invalid arguments for '{name}': {_first_line(error)}", is_error=True)
        except Exception:
            logger.exception("MCP tool %s failed", name)
            return _text_result(f"'{name}' failed; the error has been logged.", is_error=True)
        text = "\n".join(content.text or "" for content in contents if content.type == "text")
        return _text_result(text, structured=_json_object(text))

    async def _ask(self, arguments: dict[str, Any]) -> types.CallToolResult:
        settings = self.state.settings
        try:
            ask = AskArguments.model_validate(arguments)
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "arguments"
            return _text_result(f"Invalid arguments for '{ASK_TOOL}': {where}: {first['msg']}", is_error=True)
        problem = text_problem(ask.question)
        if problem is None and len(ask.question) > settings.max_message_chars:
            problem = f"has {len(ask.question)} characters; the limit is {settings.max_message_chars}"
        if problem is not None:
            return _text_result(f"Invalid arguments for '{ASK_TOOL}': question {problem}.", is_error=True)
        slot = self.state.admission.try_enter()
        if slot is None:
            return _text_result(f"OpsAgent is answering as many questions as it can ({self.state.admission.limit} at "
                                f"once); please retry in {RETRY_AFTER_SECONDS} s.", is_error=True)
        with slot:
            chat = WorkflowInput(messages=[MessageData(role="user", content=ask.question)])
            answer, _ = await self.state.loop.run(answer_chat(
                self.state.runtime, chat, workflow=ask.workflow or self.default_workflow,
                deadline_seconds=settings.request_timeout_seconds))
        result = ask_result(answer)
        logger.info("mcp answer", extra={"route": answer.metadata.route, "llm_calls": answer.metadata.llm_calls})
        return _text_result(ask_text(result), is_error=answer_failure(answer) is not None,
                            structured=result.model_dump(mode="json"))


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip() and "errors.pydantic.dev" not in line]
    return " ".join(lines[1:] if len(lines) > 1 else lines)
