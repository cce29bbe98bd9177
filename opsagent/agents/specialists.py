"""The specialist registry: the single source for who the planner may plan over.

It feeds the planner prompt's agent list, ``PlanStep`` validation and the orchestrator's agent
lookup. Adding a specialist = a YAML file in ``config/``, a tool factory, and one line here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_framework import FunctionTool

from opsagent.agents.config import AgentConfig, load_agent_config
from opsagent.agents.factory import AgentLimits, ConfiguredAgent, build_agent
from opsagent.backends.base import Backends, Clock
from opsagent.contracts.role_inputs import SpecialistInfo
from opsagent.errors import ConfigError
from opsagent.agents.model_provider import ModelProvider

ToolFactory = Callable[..., list[FunctionTool]]
"""``factory(backends, *, clock, max_rows) -> [FunctionTool, ...]``."""


@dataclass(frozen=True)
class SpecialistSpec:
    """One specialist: its name (as plans use it), its YAML file and where its tools come from."""

    name: str
    config_file: str
    tool_factory: str | ToolFactory
    """``"package.module:function"`` (imported lazily) or the factory itself."""

    def load_tool_factory(self) -> ToolFactory:
        if callable(self.tool_factory):
            return self.tool_factory
        module_name, _, attribute = self.tool_factory.partition(":")
        return getattr(importlib.import_module(module_name), attribute)


SPECIALISTS: tuple[SpecialistSpec, ...] = (
    SpecialistSpec("servicenow", "servicenow_agent.yaml", "opsagent.tools.servicenow:make_servicenow_tools"),
    SpecialistSpec("log_analytics", "log_analytics_agent.yaml", "opsagent.tools.log_analytics:make_log_analytics_tools"),
    SpecialistSpec("service_health", "service_health_agent.yaml", "opsagent.tools.service_health:make_service_health_tools"),
)


def specialist_names(specs: Sequence[SpecialistSpec] = SPECIALISTS) -> tuple[str, ...]:
    return tuple(spec.name for spec in specs)


@dataclass(frozen=True)
class SpecialistProfile:
    """What planners are told about a specialist. Tool names stay out of the planner prompt:
    small models copy tool syntax into task questions when they see it."""

    name: str
    description: str
    tools: tuple[str, ...]

    def as_prompt_line(self) -> str:
        return f"- {self.name}: {self.description}"

    def as_info(self) -> SpecialistInfo:
        return SpecialistInfo(name=self.name, description=self.description, tools=list(self.tools))


def select_tools(config: AgentConfig, available: Sequence[FunctionTool], *, source: Path) -> list[FunctionTool]:
    """The tools a YAML file names, in its order; an unknown name fails start-up with the file's name."""
    by_name = {tool.name: tool for tool in available}
    unknown = [name for name in config.tools if name not in by_name]
    if unknown:
        raise ConfigError(
            f"{source}: tools: unknown tool(s) {', '.join(unknown)}; available: {', '.join(sorted(by_name))}"
        )
    return [by_name[name] for name in config.tools]


def create_specialist_agent(
    spec: SpecialistSpec,
    models: ModelProvider,
    *,
    backends: Backends,
    clock: Clock,
    max_rows: int,
    config_dir: Path,
    limits: AgentLimits = AgentLimits(),
) -> tuple[ConfiguredAgent, SpecialistProfile]:
    """Build one specialist agent from its YAML and its tools, plus its profile for the planner."""
    source = config_dir / spec.config_file
    config = load_agent_config(source)
    if config.role != "specialist":
        raise ConfigError(f"{source}: role: expected 'specialist', got {config.role!r}")
    if config.name != spec.name:
        raise ConfigError(f"{source}: name: expected {spec.name!r} (the registry name), got {config.name!r}")
    tools = select_tools(config, spec.load_tool_factory()(backends, clock=clock, max_rows=max_rows), source=source)
    profile = SpecialistProfile(name=spec.name, description=config.description.strip(),
                                tools=tuple(tool.name for tool in tools))
    return build_agent(config, models, tools=tools, limits=limits), profile


def describe_specialists(profiles: Sequence[SpecialistProfile]) -> str:
    """The planner prompt's list of agents, generated from the registry."""
    return "\n".join(profile.as_prompt_line() for profile in profiles)

