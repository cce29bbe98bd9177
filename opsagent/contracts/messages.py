"""Messages passed between the executors of a workflow (the edges of the DESIGN diagram)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from opsagent.contracts.plans import PlanStep, ReviewOutput
from opsagent.contracts.requests import MessageData
from opsagent.contracts.results import PlanMode

DecisionRoute = Literal["reject", "clarify", "execute", "finalize"]
"""``finalize``: the review-mode planner declined the review; aggregate what we have."""


class UserModeRequest(BaseModel):
    """Triage input in user mode: the question and the conversation before it."""

    query: str
    history: list[MessageData] = Field(default_factory=list)


class ReviewModeRequest(BaseModel):
    """The reviewer's verdict on the results so far.

    It is the review-mode request to the dynamic triage when a retry is wanted, and the input of
    ``aggregate`` when the answer is complete (or the one retry is used up).
    """

    review: ReviewOutput
    wants_retry: bool = False


class TriageReply(BaseModel):
    """What the triage model said, unparsed; ``error`` when the call itself failed."""

    mode: PlanMode
    text: str = ""
    error: str | None = None


class TriageDecision(BaseModel):
    """A validated decision: where the question goes next, and the plan when it is executed."""

    route: DecisionRoute
    mode: PlanMode
    plan: list[PlanStep] = Field(default_factory=list)
    reason: str = ""
    failure: Literal["model_unavailable", "planner_failed"] | None = None
    """Set when the decision is a fallback: the planner's model call failed, or it said nothing usable."""


class ExecutionReport(BaseModel):
    """A plan has run; its results (with every earlier one) are in the run ledger."""
