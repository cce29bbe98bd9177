"""Progress events a watching user sees while an answer is built (streamed as they happen)."""

from __future__ import annotations

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.evidence import TaskResult
from opsagent.contracts.grounding import GroundingReport
from opsagent.contracts.messages import ClarifyRequest, DraftAnswer, ExecutionPlan, Rejection
from opsagent.contracts.plans import PartGap, PlanStep, ReviewOutput
from opsagent.contracts.results import ProgressEvent


def question_analysed(analysis: QuestionAnalysis) -> ProgressEvent | None:
    """Only when intake understood something worth showing (windows, corrections, runbooks, gaps)."""
    facts = [f"{window.text} = {window.as_range()}" for window in analysis.times]
    facts += [note for note in analysis.notes]
    facts += [f"runbook: {runbook.title}" for runbook in analysis.runbooks]
    facts += [f"unresolved: {item.text}" for item in analysis.unresolved]
    if analysis.follow_up is not None:
        facts.insert(0, f"follow-up: {analysis.resolved_question}")
    if not facts:
        return None
    return ProgressEvent(kind="analysis", message="Understood: " + "; ".join(facts),
                         data={"analysis": analysis.model_dump(mode="json")})


def decision_made(decision: Rejection | ClarifyRequest | ExecutionPlan | DraftAnswer) -> ProgressEvent | None:
    if isinstance(decision, ExecutionPlan):
        steps = sorted({task.step for task in decision.steps})
        agents = sorted({task.agent for task in decision.steps})
        label = "Re-plan" if decision.mode == "review" else "Plan"
        return ProgressEvent(
            kind="replan" if decision.mode == "review" else "plan",
            message=f"{label}: {len(decision.steps)} task(s) in {len(steps)} step(s) — {', '.join(agents)}",
            data={"mode": decision.mode, "plan": [task.model_dump() for task in decision.steps],
                  "parts": [part.model_dump() for part in decision.trail.parts],
                  "reason": decision.trail.plans[-1].reason if decision.trail.plans else ""},
        )
    if isinstance(decision, Rejection) and decision.failure is None:
        return ProgressEvent(kind="reject", message="Route: reject", data={"reason": decision.reason})
    if isinstance(decision, ClarifyRequest):
        return ProgressEvent(kind="clarify", message="Route: clarify", data={"reason": decision.reason})
    return None  # a planner failure is said by the answer itself; a declined re-plan by the review


def task_started(task: PlanStep) -> ProgressEvent:
    return ProgressEvent(
        kind="task_started",
        message=f"Step {task.step}: asking {task.agent}",
        data={"step": task.step, "agent": task.agent, "question": task.question, "part": task.part},
    )


def task_finished(result: TaskResult) -> ProgressEvent:
    return ProgressEvent(
        kind="task_finished",
        message=f"Step {result.step}: {result.agent} {result.status} in {result.duration_ms / 1000:.2f} s",
        data={"step": result.step, "agent": result.agent, "status": result.status, "duration_ms": result.duration_ms,
              "tools": [item.tool for item in result.evidence], "result": result.model_dump(mode="json")},
    )


def review_given(review: ReviewOutput, *, gaps: list[PartGap], wants_retry: bool, rewrite: bool = False) -> ProgressEvent:
    verdict = "complete" if review.is_complete else "incomplete"
    follow = " — asking the planner to fill the gap" if wants_retry else ""
    label = "Review (rewrite)" if rewrite else "Review"
    return ProgressEvent(kind="review", message=f"{label}: {verdict}{follow}",
                         data={"review": review.model_dump(), "gaps": [gap.model_dump() for gap in gaps],
                               "wants_retry": wants_retry})


def grounding_checked(report: GroundingReport) -> ProgressEvent:
    failed = len(report.failures)
    detail = f", {failed} unbacked claim(s)" if failed else ""
    return ProgressEvent(kind="grounding", message=f"Grounding: {report.describe()}{detail}",
                         data={"report": report.model_dump()})
