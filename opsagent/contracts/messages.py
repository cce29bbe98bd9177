"""Messages on the edges of the workflows: each is a type, so MAF's build-time checks see the flow.

Every message carries the ``RunTrail``: what the run has gathered so far (question, analysis,
plans, results, verdicts). Executors never edit a trail in place; they pass on an extended copy
(``RunTrail.extended``). Workflow state keeps only the loop counters.

    WorkflowInput ─▶ PlanningRequest ─▶ PlannerReply ─▶ Rejection | ClarifyRequest | ExecutionPlan | DraftAnswer
    ExecutionPlan ─▶ ExecutionReport (dynamic) / SpecialistOutcome (triage, fanned in)
    ExecutionReport ─▶ ReplanRequest (back to the planner, once) | DraftAnswer
    DraftAnswer ─▶ GroundedAnswer | RegenerateRequest (back to review, once)
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.evidence import PlanMode, TaskResult
from opsagent.contracts.grounding import GroundingReport
from opsagent.contracts.plans import PartGap, PlanStep, QuestionPart, ReviewOutput
from opsagent.contracts.requests import MessageData
from opsagent.contracts.results import ErrorCode, PlanRecord, WorkflowKind


class RunTrail(BaseModel):
    """What one run has learnt so far. Immutable by convention: extend, never mutate."""

    workflow: WorkflowKind
    question: str
    history: list[MessageData] = Field(default_factory=list)
    analysis: QuestionAnalysis
    parts: list[QuestionPart] = Field(default_factory=list)
    plans: list[PlanRecord] = Field(default_factory=list)
    results: list[TaskResult] = Field(default_factory=list)
    reviews: list[ReviewOutput] = Field(default_factory=list)
    gaps: list[list[PartGap]] = Field(default_factory=list)
    retry_accepted: bool | None = None
    retry_rejection_reason: str = ""
    groundings: list[GroundingReport] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    def extended(self, **additions: Any) -> RunTrail:
        """A copy with list fields appended to and scalar fields replaced."""
        update: dict[str, Any] = {}
        for name, value in additions.items():
            current = getattr(self, name)
            update[name] = [*current, *value] if isinstance(current, list) else value
        return self.model_copy(update=update)

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> RunTrail:
        """The trail itself: trails are never edited in place (see ``extended``), and MAF deep-copies
        every message for its events; copying every row fetched at every edge was most of a run's CPU."""
        return self


class PlanningRequest(BaseModel):
    """store_query → planner: the question, its history and the intake analysis (in the trail)."""

    trail: RunTrail


class DirectReply(BaseModel):
    """store_query → reject_query: a greeting, a request for help or thanks, answered without tools."""

    trail: RunTrail
    kind: Literal["greeting", "help", "thanks"]


class PlannerReply(BaseModel):
    """What a planner model said, unparsed; ``error`` when the call itself failed."""

    trail: RunTrail
    mode: PlanMode
    text: str = ""
    error: str | None = None


class Rejection(BaseModel):
    """Decline the question (out of scope, a write request) or explain a planner failure."""

    trail: RunTrail
    reason: str
    failure: ErrorCode | None = None


class ClarifyRequest(BaseModel):
    """Ask the user back: the question cannot be resolved (or the planner is not sure enough)."""

    trail: RunTrail
    reason: str = ""
    offline_unread: list[str] = Field(default_factory=list)
    """The words the offline model could not read (the planner's decision), carried to the answer's metadata."""


class ExecutionPlan(BaseModel):
    """A validated plan to run (the first plan, a review-mode re-plan, or the triage fan-out)."""

    trail: RunTrail
    mode: PlanMode
    steps: list[PlanStep]


class SpecialistOutcome(BaseModel):
    """Triage workflow: one specialist's result (or "skipped"), fanned in to the review."""

    trail: RunTrail
    result: TaskResult


class ExecutionReport(BaseModel):
    """A plan has run; the trail holds its results after every earlier one."""

    trail: RunTrail
    can_retry: bool


class ReplanRequest(BaseModel):
    """review → planner (review mode): the verdict and gaps; the review's draft answer waits in the trail."""

    trail: RunTrail
    review: ReviewOutput
    gaps: list[PartGap] = Field(default_factory=list)


class DraftAnswer(BaseModel):
    """The answer as the reviewer wrote it, before the grounding check."""

    trail: RunTrail
    review: ReviewOutput


class RegenerateRequest(BaseModel):
    """grounding → review: the draft failed some checks; write it again with this feedback (once)."""

    trail: RunTrail
    draft: ReviewOutput
    report: GroundingReport


class GroundedAnswer(BaseModel):
    """grounding → aggregate: the draft with its verdict; ``blocked`` answers show evidence instead."""

    trail: RunTrail
    review: ReviewOutput
    report: GroundingReport
    kind: Literal["pass", "partial", "block"] = "pass"
