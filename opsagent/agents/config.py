"""Agent YAML files: the shape of one LLM-backed role, validated at start-up.

A typo in a YAML file (missing field, unknown output model, unknown mode) is a ``ConfigError`` that
names the file and the field when the runtime is built, never a surprise at the first request.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from opsagent.contracts.evidence import PlanMode
from opsagent.contracts.plans import OUTPUT_MODELS
from opsagent.errors import ConfigError

AgentRole = Literal["dynamic_triage", "triage", "review", "clarify", "specialist"]
TriageMode = Literal["user_mode", "review_mode"]
MODE_SECTIONS: dict[PlanMode, TriageMode] = {"user": "user_mode", "review": "review_mode"}
"""The YAML section holding the dynamic planner's instructions for each plan mode."""


def _check_output_model(value: str | None) -> str | None:
    if value is not None and value not in OUTPUT_MODELS:
        raise ValueError(f"unknown output model {value!r}; known: {', '.join(sorted(OUTPUT_MODELS))}")
    return value


class ModeConfig(BaseModel):
    """Instructions and output model for one mode of the dynamic triage agent."""

    model_config = ConfigDict(extra="forbid")

    instructions: str = Field(min_length=1)
    output_model: str

    _known_output_model = field_validator("output_model")(_check_output_model)


class ModelOverrides(BaseModel):
    """Per-agent model options; unset values fall back to the provider's defaults."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    temperature: float | None = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, ge=1)


class AgentConfig(BaseModel):
    """One ``config/<name>_agent.yaml`` file."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    role: AgentRole
    description: str = Field(min_length=1)
    title: str | None = None
    """How answers head this specialist's part (default: its name)."""
    instructions: str | None = None
    modes: dict[TriageMode, ModeConfig] | None = None
    tools: list[str] = Field(default_factory=list)
    output_model: str | None = None
    model: ModelOverrides = Field(default_factory=ModelOverrides)

    _known_output_model = field_validator("output_model")(_check_output_model)

    @model_validator(mode="after")
    def _instructions_match_role(self) -> AgentConfig:
        if self.role == "dynamic_triage":
            missing = {"user_mode", "review_mode"} - set(self.modes or {})
            if missing:
                raise ValueError(f"a dynamic_triage agent needs modes: {', '.join(sorted(missing))}")
        elif not self.instructions:
            raise ValueError("field 'instructions' is required")
        if self.role != "specialist" and self.tools:
            raise ValueError(f"only specialists have tools; a {self.role} agent lists {self.tools}")
        return self

    def _mode(self, mode: PlanMode | None) -> ModeConfig | None:
        section = MODE_SECTIONS.get(mode) if mode is not None else None
        return self.modes[section] if self.modes and section is not None else None

    def instructions_for(self, mode: PlanMode | None = None) -> str:
        """The instructions to run with: the mode's for dynamic triage, else the agent's own."""
        moded = self._mode(mode)
        return moded.instructions if moded else self.instructions or ""

    def output_model_for(self, mode: PlanMode | None = None) -> type[BaseModel] | None:
        moded = self._mode(mode)
        name = moded.output_model if moded else self.output_model
        return OUTPUT_MODELS[name] if name else None


def load_agent_config(path: Path) -> AgentConfig:
    """Read and validate one agent YAML file.

    Raises:
        ConfigError: "<file>: <field>: <problem>", for a missing file, bad YAML or a bad field.
    """
    if not path.is_file():
        raise ConfigError(f"{path}: agent config file not found")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML ({error})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of fields, got {type(data).__name__}")
    try:
        return AgentConfig.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(file)"
        problem = "field is required" if first["type"] == "missing" else first["msg"]
        raise ConfigError(f"{path}: {where}: {problem}") from None
