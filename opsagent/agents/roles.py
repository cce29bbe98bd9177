"""Factories for the non-specialist roles: triage (both kinds), review and clarify.

Instructions may use ``{specialists}`` (the registry's agent list) and ``{max_tasks}``; they are
filled in here so a prompt always matches the registry it plans over.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from opsagent.agents.config import AgentConfig, AgentRole, ModeConfig, load_agent_config
from opsagent.agents.factory import AgentLimits, ConfiguredAgent, build_agent
from opsagent.errors import ConfigError
from opsagent.agents.model_provider import ModelProvider


def _fill(text: str, variables: dict[str, str]) -> str:
    for key, value in variables.items():
        text = text.replace("{" + key + "}", value)
    return text


def _load_role(config_dir: Path, file_name: str, role: AgentRole, variables: dict[str, str]) -> AgentConfig:
    source = config_dir / file_name
    config = load_agent_config(source)
    if config.role != role:
        raise ConfigError(f"{source}: role: expected {role!r}, got {config.role!r}")
    modes = None
    if config.modes:
        modes = {
            name: ModeConfig(instructions=_fill(mode.instructions, variables), output_model=mode.output_model)
            for name, mode in config.modes.items()
        }
    instructions = _fill(config.instructions, variables) if config.instructions else None
    return config.model_copy(update={"instructions": instructions, "modes": modes})


def create_dynamic_triage_agent(
    models: ModelProvider, *, config_dir: Path, specialists: str, agent_names: Collection[str], max_tasks: int,
    limits: AgentLimits = AgentLimits(),
) -> ConfiguredAgent:
    """The step-based planner; its user_mode/review_mode instructions are chosen per run."""
    variables = {"specialists": specialists, "max_tasks": str(max_tasks)}
    config = _load_role(config_dir, "dynamic_triage_agent.yaml", "dynamic_triage", variables)
    return build_agent(config, models, agent_names=agent_names, limits=limits)


def create_triage_agent(
    models: ModelProvider, *, config_dir: Path, specialists: str, agent_names: Collection[str], max_tasks: int,
    limits: AgentLimits = AgentLimits(),
) -> ConfiguredAgent:
    """The single-step triage of the default workflow: which specialists, one question each."""
    variables = {"specialists": specialists, "max_tasks": str(max_tasks)}
    config = _load_role(config_dir, "triage_agent.yaml", "triage", variables)
    return build_agent(config, models, agent_names=agent_names, limits=limits)


def create_review_agent(models: ModelProvider, *, config_dir: Path, specialists: str,
                        limits: AgentLimits = AgentLimits()) -> ConfiguredAgent:
    """Checks the results cover every part of the question; may ask for one retry."""
    config = _load_role(config_dir, "review_agent.yaml", "review", {"specialists": specialists})
    return build_agent(config, models, limits=limits)


def create_clarify_agent(models: ModelProvider, *, config_dir: Path, specialists: str,
                         limits: AgentLimits = AgentLimits()) -> ConfiguredAgent:
    """Asks back politely, offering concrete interpretations."""
    config = _load_role(config_dir, "clarify_agent.yaml", "clarify", {"specialists": specialists})
    return build_agent(config, models, limits=limits)
