"""What a run produces for the people asking: progress events and the final answer with metadata."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.evidence import PlanMode, TaskResult, ToolEvidence
from opsagent.contracts.grounding import GroundingReport
from opsagent.contracts.plans import ClarifyOutput, PartGap, PlanStep, QuestionPart, ReviewOutput, Route
from opsagent.contracts.requests import MessageData
from opsagent.contracts.usage import RoleUsage

WorkflowKind = Literal["dynamic", "triage"]
ErrorCode = Literal["timeout", "internal", "planner_failed", "model_unavailable"]


class PlanRecord(BaseModel):
    """A plan as it was made, for the answer's metadata."""

    mode: PlanMode
    steps: list[PlanStep] = Field(default_factory=list)
    reason: str = ""
    confidence: float | None = None


class ReviewRecord(BaseModel):
    """The reviewer's verdicts, the gaps the deterministic check found, and the one retry."""

    verdicts: list[ReviewOutput] = Field(default_factory=list)
    gaps: list[list[PartGap]] = Field(default_factory=list)
    """Per review: the parts without tool-backed evidence (the model may add gaps, never remove these)."""
    retry_used: bool = False
    retry_accepted: bool | None = None
    retry_rejection_reason: str = ""


ProgressKind = Literal[
    "analysis", "plan", "task_started", "task_finished", "review", "replan", "grounding", "clarify", "reject",
    "working",
]


class ProgressEvent(BaseModel):
    """Something a watching user should see while the answer is being built."""

    model_config = ConfigDict(frozen=True)

    kind: ProgressKind
    message: str
    data: dict[str, Any] = Field(default_factory=dict)


class EvidenceSection(BaseModel):
    """One specialist's evidence, compact, for a collapsible section or a card toggle."""

    agent: str
    title: str
    markdown: str


class AnswerMetadata(BaseModel):
    """Everything needed to see how an answer came about."""

    workflow: WorkflowKind
    route: Route | Literal["help", "action", "error"]
    """``help``: a greeting, help or thanks answered without tools; ``action``: a request to act,
    answered with what OpsAgent cannot do, what to do instead and the records."""
    error_code: ErrorCode | None = None
    analysis: QuestionAnalysis | None = None
    parts: list[QuestionPart] = Field(default_factory=list)
    plans: list[PlanRecord] = Field(default_factory=list)
    tasks: list[TaskResult] = Field(default_factory=list)
    review: ReviewRecord | None = None
    grounding: list[GroundingReport] = Field(default_factory=list)
    runbooks: list[str] = Field(default_factory=list)
    clarification: ClarifyOutput | None = None
    lookups: list[ToolEvidence] = Field(default_factory=list)
    """Reads made outside the plan: the searches behind a question back's options."""
    reject_reason: str = ""
    offline_unread: list[str] = Field(default_factory=list)
    """The words the offline demo model could not read, when it asked back instead of guessing (real
    models never set it)."""
    limitations: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    model: str = ""
    provider: str = ""
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    duration_ms: float = 0.0
    usage_by_role: dict[str, RoleUsage] = Field(default_factory=dict)
    """Model calls and tokens per role (agent name), e.g. the planner's largest prompt."""


class Answer(BaseModel):
    """The final answer: the direct answer first, then supporting facts, limitations and compact evidence.

    ``text`` is the whole answer as markdown for plain surfaces; the structured fields let richer
    surfaces (the chat page, Teams cards) lay it out themselves.
    """

    text: str
    summary: str = ""
    facts: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    evidence: list[EvidenceSection] = Field(default_factory=list)
    refs: list[str] = Field(default_factory=list)
    """The ids the answer listed, in the order of the evidence rows (kept with the history)."""
    metadata: AnswerMetadata

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Answer:
        """The answer itself: an answer is never edited once written (changes go through ``model_copy``),
        and MAF deep-copies every output a workflow yields, metadata, evidence rows and all."""
        return self

    def as_turn(self, *, max_chars: int) -> MessageData:
        """The answer as a conversation turn: what the user was told (direct answer and facts), bounded.

        The evidence stays out of the history: it would be re-sent to the planner on every later turn.
        """
        facts = "\n".join(f"- {fact}" for fact in self.facts)
        content = f"{self.summary}\n\n{facts}".strip() if self.summary else self.text
        if len(content) > max_chars:
            content = content[: max_chars - 40].rstrip() + "\n(turn shortened for the history)"
        return MessageData(role="assistant", content=content, refs=tuple(self.refs))
