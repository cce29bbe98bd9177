"""From a planner's reply to the next message: pure functions, shared by both workflows and the CLI.

Repairs what is safe (``contracts/repair.py``); a reply that stays unusable becomes a clear
fallback (an explanatory refusal in user mode, "keep what we have" in review mode). A plan the
planner is not sure about (confidence below the threshold) becomes a question back.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TypeVar

from opsagent.contracts.messages import (
    ClarifyRequest,
    DraftAnswer,
    ExecutionPlan,
    PlannerReply,
    Rejection,
    RunTrail,
)
from opsagent.contracts.plans import PlanStep, QuestionPart, ReviewModeOutput, TriageOutput, UserModeOutput
from opsagent.contracts.repair import parse_model_output
from opsagent.contracts.results import PlanRecord
from opsagent.workflows.parts import map_onto_asks, missed_asks, onto_parts

DEFAULT_REJECT_REASON = "That request is outside what OpsAgent can help with."
PlanOutputT = TypeVar("PlanOutputT", UserModeOutput, TriageOutput)
UserDecision = Rejection | ClarifyRequest | ExecutionPlan
ReviewDecision = ExecutionPlan | DraftAnswer


def _planner_failed(trail: RunTrail, reason: str, *, model_error: bool = False) -> Rejection:
    return Rejection(trail=trail, reason=f"I could not work out a plan for this question: {reason}.",
                     failure="model_unavailable" if model_error else "planner_failed")


def _parts_for(plan: list[PlanStep], parts: list[QuestionPart], question: str) -> list[QuestionPart]:
    """The plan's parts; a plan without any is one part, the whole question, covered by every task."""
    known = {part.id for part in parts}
    if parts and all(task.part_ids and set(task.part_ids) <= known for task in plan):
        return parts
    return [QuestionPart(id="p1", text=question)] if not parts else [*parts, QuestionPart(id="p0", text=question)]


def _onto_parts(plan: list[PlanStep], planner_parts: list[QuestionPart],
                trail: RunTrail) -> tuple[list[PlanStep], list[QuestionPart]]:
    """The question's own asks as the parts, the tasks mapped onto them (``parts.py``); without asks,
    the planner's parts (or the whole question as one)."""
    mapped = map_onto_asks(plan, planner_parts, trail.analysis)
    if mapped is not None:
        return mapped
    parts = _parts_for(plan, planner_parts, trail.analysis.resolved_question)
    return _with_parts(plan, parts), [*parts, *missed_asks(plan, planner_parts, trail.analysis)]


def _with_parts(plan: list[PlanStep], parts: list[QuestionPart]) -> list[PlanStep]:
    known = {part.id for part in parts}
    fallback = "p1" if len(parts) == 1 else "p0"
    return [task if task.part_ids and set(task.part_ids) <= known else task.model_copy(update={"part": fallback})
            for task in plan]


def _parse_first_plan(reply: PlannerReply, model: type[PlanOutputT], *, agents: Collection[str],
                      max_tasks: int, max_steps: int | None = None) -> tuple[RunTrail, PlanOutputT | Rejection]:
    """The reply parsed and repaired, or the refusal it amounts to (a failed call, nothing usable, a refusal)."""
    trail = reply.trail
    if reply.error:
        return trail, _planner_failed(trail, reply.error, model_error=True)
    parsed = parse_model_output(reply.text, model, agents=agents, max_tasks=max_tasks, max_steps=max_steps)
    trail = trail.extended(notes=parsed.notes)
    output = parsed.value
    if output is None:
        return trail, _planner_failed(trail, parsed.error or "unreadable reply")
    if output.should_reject:
        return trail, Rejection(trail=trail, reason=output.reject_reason or DEFAULT_REJECT_REASON)
    return trail, output


def decide_user_mode(reply: PlannerReply, *, agents: Collection[str], max_tasks: int,
                     min_confidence: float, max_steps: int | None = None) -> UserDecision:
    """The first plan: reject, ask back, or execute."""
    trail, output = _parse_first_plan(reply, UserModeOutput, agents=agents, max_tasks=max_tasks, max_steps=max_steps)
    if isinstance(output, Rejection):
        return output
    if output.clarify:
        return ClarifyRequest(trail=trail, reason=output.plan_reason, offline_unread=output.offline_unread)
    if not output.plan:
        return _planner_failed(trail, "the plan had no usable tasks")
    if output.confidence < min_confidence:
        reason = f"the planner was not sure it understood the question (confidence {output.confidence:.2f})"
        return ClarifyRequest(trail=trail.extended(notes=[reason]), reason=output.plan_reason or reason)
    plan, parts = _onto_parts(output.plan, output.parts, trail)
    record = PlanRecord(mode="user", steps=plan, reason=output.plan_reason, confidence=output.confidence)
    return ExecutionPlan(trail=trail.extended(plans=[record], parts=parts), mode="user", steps=plan)


def decide_review_mode(reply: PlannerReply, *, agents: Collection[str], max_tasks: int,
                       max_steps: int | None = None) -> ReviewDecision:
    """The re-plan: tasks for the gaps, or finalize with the answer the reviewer already wrote."""
    trail = reply.trail

    def finalize(reason: str) -> DraftAnswer:
        declined = trail.extended(retry_accepted=False, retry_rejection_reason=reason)
        return DraftAnswer(trail=declined, review=trail.reviews[-1])

    if reply.error:
        return finalize(f"re-planning failed: {reply.error}")
    parsed = parse_model_output(reply.text, ReviewModeOutput, agents=agents, max_tasks=max_tasks, max_steps=max_steps)
    trail = trail.extended(notes=parsed.notes)
    output = parsed.value
    if output is None:
        return finalize(f"re-planning failed: {parsed.error}")
    if not output.accept_review:
        return finalize(output.rejection_reason or "the planner declined the review")
    if not output.new_plan:
        return finalize("the review was accepted without a usable plan")
    plan = onto_parts(output.new_plan, trail.parts)
    record = PlanRecord(mode="review", steps=plan)
    return ExecutionPlan(trail=trail.extended(plans=[record], retry_accepted=True), mode="review", steps=plan)


def decide_triage(reply: PlannerReply, *, agents: Collection[str], max_tasks: int) -> Rejection | ExecutionPlan:
    """The default workflow's triage: one step, every chosen specialist in parallel."""
    trail, output = _parse_first_plan(reply, TriageOutput, agents=agents, max_tasks=max_tasks)
    if isinstance(output, Rejection):
        return output
    plan, merged = one_task_per_specialist(output)
    if not plan:
        return _planner_failed(trail, "no specialist was chosen")
    plan, parts = _onto_parts(plan, output.parts, trail)
    record = PlanRecord(mode="triage", steps=plan, reason=output.reason)
    return ExecutionPlan(trail=trail.extended(plans=[record], parts=parts, notes=merged), mode="triage", steps=plan)


def one_task_per_specialist(output: TriageOutput) -> tuple[list[PlanStep], list[str]]:
    """The triage workflow has one executor per specialist: several asks for one become one task."""
    asks: dict[str, list[tuple[str, str]]] = {}
    for task in output.tasks:
        asks.setdefault(task.agent, []).append((task.question, task.part))
    notes = [f"merged {len(items)} questions for {agent} into one task" for agent, items in asks.items() if len(items) > 1]
    plan = [PlanStep.model_validate({"step": 1, "agent": agent, "question": " ".join(q for q, _ in items),
                                     "part": ",".join(dict.fromkeys(p for _, p in items if p))},
                                    context={"agents": {agent}})
            for agent, items in asks.items()]
    return plan, notes
