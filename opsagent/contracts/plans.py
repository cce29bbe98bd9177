"""What the LLM roles return: plans, triage decisions, review verdicts, clarifications.

``PlanStep.agent`` must name a registered specialist. The registry is passed as validation
context, never looked up globally: ``PlanStep.model_validate(data, context={"agents": {...}})``.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic.json_schema import SkipJsonSchema

Route = Literal["reject", "clarify", "execute"]
AGENTS_CONTEXT_KEY = "agents"


def registered_agents(info: ValidationInfo) -> Collection[str]:
    """The specialist names a plan may use, from the validation context."""
    context = info.context if isinstance(info.context, dict) else {}
    if AGENTS_CONTEXT_KEY not in context:
        raise ValueError("plans are validated against a specialist registry: pass context={'agents': [...]}")
    return context[AGENTS_CONTEXT_KEY]


def check_registered_agent(value: str, info: ValidationInfo) -> str:
    agents = registered_agents(info)
    if value not in agents:
        raise ValueError(f"unknown agent {value!r}; registered: {', '.join(sorted(agents))}")
    return value


class QuestionPart(BaseModel):
    """One thing the user asked, in their words; every task says which part it covers."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(description="short id such as 'p1'")
    text: str = Field(description="the part of the question, in the user's words")


class PartGap(BaseModel):
    """A part of the question without a successful, tool-backed result (found by code, not a model)."""

    part: str
    text: str
    reason: str
    retryable: bool = True
    """False when asking again cannot help (not authorised, no such record, bad arguments)."""

    def describe(self) -> str:
        return f"{self.part} \"{self.text}\": {self.reason}"


class PlanStep(BaseModel):
    """One task of a plan. Tasks with the same ``step`` run in parallel; step N sees all of N-1."""

    model_config = ConfigDict(extra="ignore")

    step: int = Field(ge=1, description="1-based step number; equal numbers run in parallel")
    agent: str = Field(description="name of a registered specialist")
    question: str = Field(min_length=1, description="a specific question for that specialist")
    part: str = Field(default="", description="id of the question part this task covers")

    _agent_is_registered = field_validator("agent")(check_registered_agent)

    @property
    def part_ids(self) -> list[str]:
        """The parts this task covers (a merged triage task may cover several: "p1,p2")."""
        return [item.strip() for item in self.part.split(",") if item.strip()]


class UserModeOutput(BaseModel):
    """Dynamic triage in user mode: reject, ask back, or a step-based plan."""

    model_config = ConfigDict(extra="ignore")

    should_reject: bool = False
    reject_reason: str = ""
    clarify: bool = False
    parts: list[QuestionPart] = Field(default_factory=list)
    plan: list[PlanStep] = Field(default_factory=list)
    plan_reason: str = ""
    confidence: float = Field(default=1.0, ge=0.0, le=1.0,
                              description="how sure the planner is that it understood the question")
    offline_unread: SkipJsonSchema[list[str]] = Field(default_factory=list)
    """Set only by the offline rules model: the words it could not read (never in a real model's schema)."""


class ReviewModeOutput(BaseModel):
    """Dynamic triage in review mode: take the reviewer's advice (with a plan for the gap) or not."""

    model_config = ConfigDict(extra="ignore")

    accept_review: bool = False
    new_plan: list[PlanStep] = Field(default_factory=list)
    rejection_reason: str = ""


class ReviewOutput(BaseModel):
    """The reviewer's verdict and, in the same call, the answer written from the evidence."""

    model_config = ConfigDict(extra="ignore")

    is_complete: bool = True
    summary: str = Field(default="", description="the direct answer to the question in 1-3 sentences, from the evidence only")
    key_facts: list[str] = Field(default_factory=list, description="only the facts that support the answer, with their ids")
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
    part: str = ""

    _agent_is_registered = field_validator("agent")(check_registered_agent)


class TriageOutput(BaseModel):
    """The default triage agent: which specialists to ask (in parallel), or a refusal."""

    model_config = ConfigDict(extra="ignore")

    should_reject: bool = False
    reject_reason: str = ""
    parts: list[QuestionPart] = Field(default_factory=list)
    tasks: list[TriageTask] = Field(default_factory=list)
    reason: str = ""


OUTPUT_MODELS: dict[str, type[BaseModel]] = {
    model.__name__: model
    for model in (UserModeOutput, ReviewModeOutput, ReviewOutput, ClarifyOutput, TriageOutput)
}
"""Output models an agent YAML may name (``output_model:``)."""
