"""The only place a MAF ``Agent`` is constructed: YAML config + chat client (+ tools) + the settings' limits."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_framework import Agent, FunctionTool

from opsagent.agents.config import AgentConfig
from opsagent.agents.model_provider import ModelProvider
from opsagent.agents.tool_log import ToolLogMiddleware
from opsagent.contracts.evidence import PlanMode
from opsagent.llm.metering import MeteringMiddleware
from opsagent.llm.prompt_budget import PromptBudgetMiddleware
from opsagent.llm.recording import RecordingMiddleware

ToolChoice = Literal["required", "auto"]


@dataclass(frozen=True)
class AgentLimits:
    """What settings change about an agent built from YAML (see ``model_profiles.py``)."""

    max_tokens: int | None = None
    """Replaces the YAML's ``model.max_tokens`` when set."""
    tool_choice: ToolChoice = "required"
    """A specialist's first turn: must call a tool, or may (for servers whose "required" misbehaves)."""
    prompt_budget_tokens: int | None = None
    """Largest prompt one call may send; longer ones lose data rows first (``llm/prompt_budget.py``)."""


@dataclass(frozen=True)
class ConfiguredAgent:
    """A MAF agent together with the YAML it was built from (modes, output models)."""

    agent: Agent
    config: AgentConfig
    models: ModelProvider
    agent_names: tuple[str, ...] = ()
    """The specialists a planner's output may name (sent as an enum to real providers)."""
    tools: tuple[FunctionTool, ...] = field(default=())
    tool_choice: ToolChoice = "required"

    @property
    def name(self) -> str:
        return self.config.name

    def run_options(self, mode: PlanMode | None = None) -> dict[str, Any]:
        """Per-run options: the mode's instructions, the structured output model, and for
        specialists a first turn that must call a tool (MAF relaxes it to "auto" after one round),
        unless the settings chose "auto" for a server whose "required" misbehaves."""
        options: dict[str, Any] = {}
        if self.config.modes:
            options["instructions"] = self.config.instructions_for(mode)
        output_model = self.config.output_model_for(mode)
        if output_model is not None:
            options["response_format"] = self.models.response_format(output_model, agents=self.agent_names)
        if self.tools:
            options["tool_choice"] = self.tool_choice
        return options


def build_agent(
    config: AgentConfig,
    models: ModelProvider,
    *,
    tools: Sequence[FunctionTool] = (),
    agent_names: Collection[str] = (),
    limits: AgentLimits = AgentLimits(),
) -> ConfiguredAgent:
    """Turn one validated YAML config into an agent with metering, the prompt budget, reply recording
    (when a run asks for it) and, for specialists, tool recording on every call."""
    options: dict[str, Any] = {}
    if config.model.temperature is not None:
        options["temperature"] = config.model.temperature
    max_tokens = limits.max_tokens or config.model.max_tokens
    if max_tokens is not None:
        options["max_tokens"] = max_tokens
    if config.model.model is not None:
        options["model"] = config.model.model
    agent = Agent(
        client=models.client_for(config.name),
        # A moded agent gets its instructions per run (run_options); MAF would append, not replace.
        instructions=None if config.modes else config.instructions,
        name=config.name,
        description=config.description,
        tools=list(tools) or None,
        default_options=options,  # type: ignore[arg-type]
        middleware=[
            # Outermost first: the budget trims before the call is metered and recorded as sent.
            PromptBudgetMiddleware(config.name, limits.prompt_budget_tokens),
            MeteringMiddleware(config.name),
            RecordingMiddleware(config.name),
            *([ToolLogMiddleware()] if tools else []),
        ],
    )
    return ConfiguredAgent(agent=agent, config=config, models=models, agent_names=tuple(sorted(agent_names)),
                           tools=tuple(tools), tool_choice=limits.tool_choice)
