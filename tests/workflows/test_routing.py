"""Selection functions: each decision goes to exactly one known target (or every specialist)."""

from __future__ import annotations

import pytest

from opsagent.contracts.messages import ReviewModeRequest, TriageDecision
from opsagent.contracts.plans import ReviewOutput
from opsagent.workflows.routing import select_execution_path, select_review_outcome, select_triage_targets

EXECUTION_TARGETS = ["reject_query", "clarify", "orchestrator", "aggregate"]


@pytest.mark.parametrize(
    ("route", "target"),
    [("reject", "reject_query"), ("clarify", "clarify"), ("execute", "orchestrator"), ("finalize", "aggregate")],
)
def test_select_execution_path(route, target):
    assert select_execution_path(TriageDecision(route=route, mode="user"), EXECUTION_TARGETS) == [target]


def test_select_execution_path_refuses_a_target_the_group_does_not_have():
    with pytest.raises(ValueError, match="not among the edge group's targets"):
        select_execution_path(TriageDecision(route="clarify", mode="user"), ["reject_query", "orchestrator"])


@pytest.mark.parametrize(("wants_retry", "target"), [(True, "dynamic_triage"), (False, "aggregate")])
def test_select_review_outcome(wants_retry, target):
    request = ReviewModeRequest(review=ReviewOutput(is_complete=not wants_retry), wants_retry=wants_retry)
    assert select_review_outcome(request, ["aggregate", "dynamic_triage"]) == [target]


def test_select_triage_targets():
    targets = ["reject_query", "servicenow", "log_analytics"]
    assert select_triage_targets(TriageDecision(route="reject", mode="triage"), targets) == ["reject_query"]
    assert select_triage_targets(TriageDecision(route="execute", mode="triage"), targets) == ["servicenow", "log_analytics"]
