"""The only place a MAF ``Agent`` is constructed: YAML config + chat client (+ tools)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_framework import Agent, FunctionTool
from pydantic import BaseModel

from opsagent.agents.config import AgentConfig, TriageMode
from opsagent.llm.metering import MeteringMiddleware
from opsagent.llm.providers import ModelProvider


@dataclass(frozen=True)
class ConfiguredAgent:
    """A MAF agent together with the YAML it was built from (modes, output models)."""

    agent: Agent
    config: AgentConfig
    wire_format: Callable[[type[BaseModel]], Any]
    """How the provider wants a structured-output model sent (see ``ModelProvider.response_format``)."""

    @property
    def name(self) -> str:
        return self.config.name

    def run_options(self, mode: TriageMode | None = None) -> dict[str, Any]:
        """Per-run options: the mode's instructions and the structured output model, if any."""
        options: dict[str, Any] = {}
        if mode is not None:
            options["instructions"] = self.config.instructions_for(mode)
        output_model: type[BaseModel] | None = self.config.output_model_for(mode)
        if output_model is not None:
            options["response_format"] = self.wire_format(output_model)
        return options


def build_agent(
    config: AgentConfig,
    models: ModelProvider,
    *,
    tools: Sequence[FunctionTool] = (),
    instructions: str | None = None,
) -> ConfiguredAgent:
    """Turn one validated YAML config into an agent with metering on every model call."""
    options: dict[str, Any] = {}
    if config.model.temperature is not None:
        options["temperature"] = config.model.temperature
    if config.model.max_tokens is not None:
        options["max_tokens"] = config.model.max_tokens
    if config.model.model is not None:
        options["model"] = config.model.model
    agent = Agent(
        client=models.client_for(config),
        # A moded agent gets its instructions per run (run_options); MAF would append, not replace.
        instructions=instructions if instructions is not None else (None if config.modes else config.instructions),
        name=config.name,
        description=config.description,
        tools=list(tools) or None,
        default_options=options,  # type: ignore[arg-type]
        middleware=[MeteringMiddleware()],
    )
    return ConfiguredAgent(agent=agent, config=config, wire_format=models.response_format)
