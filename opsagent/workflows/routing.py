"""Selection functions of the multi-selection edge groups: pure functions from message to targets.

Routing lives here, on the edges, rather than in ``if`` chains inside executors.
"""

from __future__ import annotations

from opsagent.contracts.messages import ReviewModeRequest, TriageDecision
from opsagent.workflows.ids import AGGREGATE, CLARIFY, DYNAMIC_TRIAGE, ORCHESTRATOR, REJECT_QUERY

EXECUTION_TARGETS = {
    "reject": REJECT_QUERY,
    "clarify": CLARIFY,
    "execute": ORCHESTRATOR,
    "finalize": AGGREGATE,
}


def _checked(targets: list[str], target_ids: list[str]) -> list[str]:
    unknown = [target for target in targets if target not in target_ids]
    if unknown:
        raise ValueError(f"selection {unknown} is not among the edge group's targets {target_ids}")
    return targets


def select_execution_path(decision: TriageDecision, target_ids: list[str]) -> list[str]:
    """reject / clarify / execute after planning; ``finalize`` when the review-mode planner declines."""
    return _checked([EXECUTION_TARGETS[decision.route]], target_ids)


def select_review_outcome(request: ReviewModeRequest, target_ids: list[str]) -> list[str]:
    """complete -> aggregate; retry -> back to the planner in review mode (at most once)."""
    return _checked([DYNAMIC_TRIAGE if request.wants_retry else AGGREGATE], target_ids)


def select_triage_targets(decision: TriageDecision, target_ids: list[str]) -> list[str]:
    """Default workflow: refuse, or fan out to every specialist (those not chosen report "skipped").

    Every specialist gets the decision because the fan-in to ``aggregate`` waits for all of them.
    """
    if decision.route != "execute":
        return _checked([REJECT_QUERY], target_ids)
    return [target for target in target_ids if target != REJECT_QUERY]
