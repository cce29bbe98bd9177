"""Selection functions of the multi-selection edge groups: pure functions from message to targets.

Routing lives here, on the edges, rather than in ``if`` chains inside executors. Each message type
has one destination, so the type of what an executor sent says where it goes.
"""

from __future__ import annotations

from typing import Any

from opsagent.contracts.messages import (
    ClarifyRequest,
    DirectReply,
    DraftAnswer,
    ExecutionPlan,
    GroundedAnswer,
    PlanningRequest,
    RegenerateRequest,
    Rejection,
    ReplanRequest,
)
from opsagent.workflows.ids import (
    AGGREGATE,
    CLARIFY,
    DYNAMIC_TRIAGE,
    GROUNDING,
    ORCHESTRATOR,
    REJECT_QUERY,
    REVIEW,
    TRIAGE,
)

DESTINATIONS: dict[type, str] = {
    Rejection: REJECT_QUERY,
    DirectReply: REJECT_QUERY,
    ClarifyRequest: CLARIFY,
    ExecutionPlan: ORCHESTRATOR,
    DraftAnswer: GROUNDING,
    ReplanRequest: DYNAMIC_TRIAGE,
    RegenerateRequest: REVIEW,
    GroundedAnswer: AGGREGATE,
}


def _checked(targets: list[str], target_ids: list[str]) -> list[str]:
    unknown = [target for target in targets if target not in target_ids]
    if unknown:
        raise ValueError(f"selection {unknown} is not among the edge group's targets {target_ids}")
    return targets


def _destination(message: Any, target_ids: list[str]) -> list[str]:
    return _checked([DESTINATIONS[type(message)]], target_ids)


def select_intake_outcome(message: PlanningRequest | DirectReply | ClarifyRequest | Rejection,
                          target_ids: list[str]) -> list[str]:
    """After intake: plan (the dynamic or the triage planner), reply directly, decline, or ask back."""
    if isinstance(message, PlanningRequest):
        return _checked([target for target in target_ids if target in (DYNAMIC_TRIAGE, TRIAGE)], target_ids)
    return _destination(message, target_ids)


def select_execution_path(message: Rejection | ClarifyRequest | ExecutionPlan | DraftAnswer,
                          target_ids: list[str]) -> list[str]:
    """After planning: reject / clarify / execute; a declined re-plan goes straight to grounding."""
    return _destination(message, target_ids)


def select_review_outcome(message: ReplanRequest | DraftAnswer, target_ids: list[str]) -> list[str]:
    """complete (or retry used) → grounding; a fillable gap → back to the planner in review mode, once."""
    return _destination(message, target_ids)


def select_grounding_outcome(message: GroundedAnswer | RegenerateRequest, target_ids: list[str]) -> list[str]:
    """pass / block → aggregate; regenerate → back to the review, once."""
    return _destination(message, target_ids)


def select_triage_targets(message: Rejection | ExecutionPlan, target_ids: list[str]) -> list[str]:
    """Default workflow: refuse, or fan out to every specialist (those not chosen report "skipped").

    Every specialist gets the plan because the fan-in to the review waits for all of them.
    """
    if isinstance(message, Rejection):
        return _checked([REJECT_QUERY], target_ids)
    return [target for target in target_ids if target != REJECT_QUERY]
