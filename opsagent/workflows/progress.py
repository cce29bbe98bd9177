"""Progress events a watching user sees while an answer is built (streamed as they happen)."""

from __future__ import annotations

from opsagent.contracts.messages import TriageDecision
from opsagent.contracts.plans import PlanStep, ReviewOutput
from opsagent.contracts.results import ProgressEvent, TaskResult


def plan_chosen(decision: TriageDecision) -> ProgressEvent:
    steps = sorted({task.step for task in decision.plan})
    agents = sorted({task.agent for task in decision.plan})
    label = "Re-plan" if decision.mode == "review" else "Plan"
    return ProgressEvent(
        kind="plan" if decision.mode != "review" else "replan",
        message=f"{label}: {len(decision.plan)} task(s) in {len(steps)} step(s) — {', '.join(agents)}",
        data={"mode": decision.mode, "plan": [task.model_dump() for task in decision.plan], "reason": decision.reason},
    )


def route_chosen(decision: TriageDecision) -> ProgressEvent:
    kind = "reject" if decision.route == "reject" else "clarify"
    return ProgressEvent(kind=kind, message=f"Route: {decision.route}", data={"reason": decision.reason})


def task_started(task: PlanStep) -> ProgressEvent:
    return ProgressEvent(
        kind="task_started",
        message=f"Step {task.step}: asking {task.agent}",
        data={"step": task.step, "agent": task.agent, "question": task.question},
    )


def task_finished(result: TaskResult) -> ProgressEvent:
    return ProgressEvent(
        kind="task_finished",
        message=f"Step {result.step}: {result.agent} {result.status} in {result.duration_ms / 1000:.2f} s",
        data={
            "step": result.step,
            "agent": result.agent,
            "status": result.status,
            "duration_ms": result.duration_ms,
            "tools": [call.name for call in result.tool_calls],
        },
    )


def review_given(review: ReviewOutput, *, wants_retry: bool) -> ProgressEvent:
    verdict = "complete" if review.is_complete else "incomplete"
    follow = " — asking the planner to fill the gap" if wants_retry else ""
    return ProgressEvent(
        kind="review",
        message=f"Review: {verdict}{follow}",
        data={"review": review.model_dump(), "wants_retry": wants_retry},
    )
