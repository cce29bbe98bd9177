"""Selection functions: each message type goes to exactly one known target (or every specialist)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.grounding import GroundingReport
from opsagent.contracts.messages import (
    ClarifyRequest,
    DraftAnswer,
    ExecutionPlan,
    GroundedAnswer,
    RegenerateRequest,
    Rejection,
    ReplanRequest,
    RunTrail,
)
from opsagent.contracts.plans import ReviewOutput
from opsagent.workflows.routing import (
    select_execution_path,
    select_grounding_outcome,
    select_review_outcome,
    select_triage_targets,
)

TRAIL = RunTrail(workflow="dynamic", question="q",
                 analysis=QuestionAnalysis(question="q", resolved_question="q", now=datetime(2025, 1, 10, tzinfo=UTC)))
REVIEW = ReviewOutput(summary="s")
REPORT = GroundingReport(score=1.0, verdict="pass", attempt=1)
EXECUTION_TARGETS = ["reject_query", "clarify", "orchestrator", "grounding"]


@pytest.mark.parametrize(("message", "target"), [
    (Rejection(trail=TRAIL, reason="no"), "reject_query"),
    (ClarifyRequest(trail=TRAIL), "clarify"),
    (ExecutionPlan(trail=TRAIL, mode="user", steps=[]), "orchestrator"),
    (DraftAnswer(trail=TRAIL, review=REVIEW), "grounding"),
], ids=["reject", "clarify", "execute", "declined-replan"])
def test_select_execution_path(message, target):
    assert select_execution_path(message, EXECUTION_TARGETS) == [target]


def test_select_execution_path_refuses_a_target_the_group_does_not_have():
    with pytest.raises(ValueError, match="not among the edge group's targets"):
        select_execution_path(ClarifyRequest(trail=TRAIL), ["reject_query", "orchestrator"])


@pytest.mark.parametrize(("message", "target"), [
    (ReplanRequest(trail=TRAIL, review=REVIEW), "dynamic_triage"),
    (DraftAnswer(trail=TRAIL, review=REVIEW), "grounding"),
], ids=["retry", "complete"])
def test_select_review_outcome(message, target):
    assert select_review_outcome(message, ["grounding", "dynamic_triage"]) == [target]


@pytest.mark.parametrize(("message", "target"), [
    (GroundedAnswer(trail=TRAIL, review=REVIEW, report=REPORT), "aggregate"),
    (RegenerateRequest(trail=TRAIL, draft=REVIEW, report=REPORT), "review"),
], ids=["publish", "regenerate"])
def test_select_grounding_outcome(message, target):
    assert select_grounding_outcome(message, ["aggregate", "review"]) == [target]


def test_select_triage_targets():
    targets = ["reject_query", "servicenow", "log_analytics"]
    assert select_triage_targets(Rejection(trail=TRAIL, reason="no"), targets) == ["reject_query"]
    plan = ExecutionPlan(trail=TRAIL, mode="triage", steps=[])
    assert select_triage_targets(plan, targets) == ["servicenow", "log_analytics"]
