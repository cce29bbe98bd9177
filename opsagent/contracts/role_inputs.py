"""What each LLM role is asked, as data: the typed seam between the workflow and the models.

The workflow renders each input as prompt text for real models (``workflows/prompts.py``) and
attaches the same input, typed, to the last message it sends (``attach_role_input``). Real chat
clients ignore the attachment; the offline rules model reads only it (``read_role_input``), so
rewording a prompt can never change what the offline model understands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, Field, TypeAdapter

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.evidence import PlanMode, TaskResult
from opsagent.contracts.plans import PartGap, PlanStep, QuestionPart, ReviewOutput
from opsagent.contracts.requests import MessageData

ROLE_INPUT_KEY = "opsagent.role_input"


class SpecialistInfo(BaseModel):
    """A registered specialist as planners see it."""

    name: str
    description: str
    tools: list[str] = Field(default_factory=list)


class PlannerInput(BaseModel):
    """Triage: reject, ask back, or plan (user mode of the dynamic planner, or the default triage)."""

    role: Literal["planner"] = "planner"
    mode: Literal["user", "triage"]
    question: str
    history: list[MessageData] = Field(default_factory=list)
    analysis: QuestionAnalysis
    specialists: list[SpecialistInfo]
    max_tasks: int


class ReplanInput(BaseModel):
    """The dynamic planner in review mode: a plan for the gaps the review found, or a reason not to."""

    role: Literal["replan"] = "replan"
    question: str
    analysis: QuestionAnalysis
    parts: list[QuestionPart] = Field(default_factory=list)
    results: list[TaskResult]
    review: ReviewOutput
    gaps: list[PartGap] = Field(default_factory=list)
    specialists: list[SpecialistInfo]
    max_tasks: int


class SpecialistInput(BaseModel):
    """One task for one specialist, with every result of the previous step."""

    role: Literal["specialist"] = "specialist"
    agent: str
    task: PlanStep
    mode: PlanMode = "user"
    question: str
    """The user's whole question, for context."""
    analysis: QuestionAnalysis
    previous: list[TaskResult] = Field(default_factory=list)


class ReviewInput(BaseModel):
    """Review the results and write the answer from the evidence."""

    role: Literal["review"] = "review"
    question: str
    analysis: QuestionAnalysis
    parts: list[QuestionPart] = Field(default_factory=list)
    results: list[TaskResult]
    gaps: list[PartGap] = Field(default_factory=list)
    """Parts the deterministic coverage check found without tool-backed evidence."""
    can_retry: bool = False
    feedback: list[str] = Field(default_factory=list)
    """Why the previous summary failed the grounding check (regenerate), as concrete sentences."""
    previous_summary: str = ""


class ClarifyInput(BaseModel):
    """Ask the user back, offering concrete candidates taken from the data where there are some."""

    role: Literal["clarify"] = "clarify"
    question: str
    history: list[MessageData] = Field(default_factory=list)
    analysis: QuestionAnalysis
    reason: str = ""
    candidates: list[str] = Field(default_factory=list)
    candidates_label: str = ""
    """What the candidates are ("changes awaiting approval"), for the question back."""
    unread: list[str] = Field(default_factory=list)
    """The words the offline model's planner could not read (empty for real models)."""
    specialists: list[SpecialistInfo]


RoleInput = Annotated[
    PlannerInput | ReplanInput | SpecialistInput | ReviewInput | ClarifyInput, Field(discriminator="role")
]
_ROLE_INPUT: TypeAdapter[RoleInput] = TypeAdapter(RoleInput)


class _HasProperties(Protocol):
    additional_properties: Any


def attach_role_input(message: _HasProperties, role_input: BaseModel) -> None:
    """Attach ``role_input`` to a MAF ``Message`` (real clients do not send additional properties)."""
    if message.additional_properties is None:
        message.additional_properties = {}
    message.additional_properties[ROLE_INPUT_KEY] = role_input


def read_role_input(messages: Sequence[_HasProperties]) -> RoleInput | None:
    """The role input attached to the latest user message that carries one."""
    for message in reversed(messages):
        value = (message.additional_properties or {}).get(ROLE_INPUT_KEY)
        if value is not None:
            return value if isinstance(value, BaseModel) else _ROLE_INPUT.validate_python(value)
    return None
