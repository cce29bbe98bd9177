"""What execution produces: task results, progress events, and the final answer with its metadata."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from opsagent.contracts.plans import ClarifyOutput, PlanStep, ReviewOutput, Route

TaskStatus = Literal["ok", "failed", "timeout", "skipped"]
PlanMode = Literal["user", "review", "triage"]
WorkflowKind = Literal["dynamic", "triage"]


class ToolCallRecord(BaseModel):
    """One function call a specialist made, with (a bounded excerpt of) what the tool returned."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: str = ""
    is_error: bool = False


class TaskResult(BaseModel):
    """The outcome of one planned task. A failure is a result too: the workflow goes on."""

    step: int = 1
    agent: str
    question: str
    status: TaskStatus
    response: str = ""
    error: str | None = None
    duration_ms: float = 0.0
    llm_calls: int = 0
    mode: PlanMode = "user"
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)

    @property
    def succeeded(self) -> bool:
        return self.status == "ok"


class PlanRecord(BaseModel):
    """A plan as it was made, for the answer's metadata."""

    mode: PlanMode
    steps: list[PlanStep] = Field(default_factory=list)
    reason: str = ""


class ReviewRecord(BaseModel):
    """The reviewer's verdicts and whether the one allowed retry was used."""

    verdicts: list[ReviewOutput] = Field(default_factory=list)
    retry_used: bool = False
    retry_accepted: bool | None = None
    retry_rejection_reason: str = ""


ProgressKind = Literal[
    "plan",
    "task_started",
    "task_finished",
    "review",
    "replan",
    "clarify",
    "reject",
]


class ProgressEvent(BaseModel):
    """Something a watching user should see while the answer is being built."""

    model_config = ConfigDict(frozen=True)

    kind: ProgressKind
    message: str
    data: dict[str, Any] = Field(default_factory=dict)


class AnswerMetadata(BaseModel):
    """Everything needed to see how an answer came about."""

    workflow: WorkflowKind
    route: Route | Literal["error"]
    error_code: Literal["timeout", "internal", "planner_failed", "model_unavailable"] | None = None
    plans: list[PlanRecord] = Field(default_factory=list)
    tasks: list[TaskResult] = Field(default_factory=list)
    review: ReviewRecord | None = None
    clarification: ClarifyOutput | None = None
    reject_reason: str = ""
    limitations: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    model: str = ""
    provider: str = ""
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    duration_ms: float = 0.0


class Answer(BaseModel):
    """The final answer: markdown text for a person plus structured metadata."""

    text: str
    metadata: AnswerMetadata
