"""What the LLM roles return: plans, triage decisions, review verdicts, clarifications.

``PlanStep.agent`` is checked against the specialist registry. Callers that plan over another
set of specialists (tests, a runtime with a custom registry) pass it as validation context:
``PlanStep.model_validate(data, context={"agents": {...}})``.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

Route = Literal["reject", "clarify", "execute"]


def known_agents(info: ValidationInfo | None) -> Collection[str]:
    """The specialist names a plan may use: from validation context, else the default registry."""
    if info is not None and isinstance(info.context, dict) and "agents" in info.context:
        return info.context["agents"]
    from opsagent.agents.specialists import specialist_names  # lazy: contracts sit below agents

    return specialist_names()


def check_registered_agent(value: str, info: ValidationInfo) -> str:
    agents = known_agents(info)
    if value not in agents:
        raise ValueError(f"unknown agent {value!r}; registered: {', '.join(sorted(agents))}")
    return value


class PlanStep(BaseModel):
    """One task of a plan. Tasks with the same ``step`` run in parallel; step N sees all of N-1."""

    model_config = ConfigDict(extra="ignore")

    step: int = Field(ge=1, description="1-based step number; equal numbers run in parallel")
    agent: str = Field(description="name of a registered specialist")
    question: str = Field(min_length=1, description="a specific question for that specialist")

    _agent_is_registered = field_validator("agent")(check_registered_agent)


class UserModeOutput(BaseModel):
    """Dynamic triage in user mode: reject, ask back, or a step-based plan."""

    model_config = ConfigDict(extra="ignore")

    should_reject: bool = False
    reject_reason: str = ""
    clarify: bool = False
    plan: list[PlanStep] = Field(default_factory=list)
    plan_reason: str = ""


class ReviewModeOutput(BaseModel):
    """Dynamic triage in review mode: take the reviewer's advice (with a plan for the gap) or not."""

    model_config = ConfigDict(extra="ignore")

    accept_review: bool = False
    new_plan: list[PlanStep] = Field(default_factory=list)
    rejection_reason: str = ""


class ReviewOutput(BaseModel):
    """The reviewer's verdict on the results gathered so far."""

    model_config = ConfigDict(extra="ignore")

    is_complete: bool = True
    summary: str = ""
    missing_aspects: list[str] = Field(default_factory=list)
    suggested_approach: str = ""
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)


class ClarifyOutput(BaseModel):
    """A polite question back, with concrete readings of what the user may have meant."""

    model_config = ConfigDict(extra="ignore")

    clarification_request: str = Field(min_length=1)
    possible_interpretations: list[str] = Field(default_factory=list)


class TriageTask(BaseModel):
    """One specialist and its question, in the default (single-step) triage workflow."""

    model_config = ConfigDict(extra="ignore")

    agent: str
    question: str = Field(min_length=1)

    _agent_is_registered = field_validator("agent")(check_registered_agent)


class TriageOutput(BaseModel):
    """The default triage agent: which specialists to ask (in parallel), or a refusal."""

    model_config = ConfigDict(extra="ignore")

    should_reject: bool = False
    reject_reason: str = ""
    tasks: list[TriageTask] = Field(default_factory=list)
    reason: str = ""


OUTPUT_MODELS: dict[str, type[BaseModel]] = {
    model.__name__: model
    for model in (UserModeOutput, ReviewModeOutput, ReviewOutput, ClarifyOutput, TriageOutput)
}
"""Output models an agent YAML may name (``output_model:``)."""
