"""The user-mode triage decision on its own, without executing anything.

``python -m opsagent plan`` and the accuracy tests use it to look inside the planner.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from opsagent.contracts.messages import ClarifyRequest, DirectReply, ExecutionPlan, PlannerReply, Rejection, RunTrail
from opsagent.contracts.plans import PlanStep, QuestionPart
from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.role_inputs import PlannerInput
from opsagent.runtime import Runtime
from opsagent.workflows.decisions import decide_user_mode
from opsagent.workflows.intake import route_by_intent
from opsagent.workflows.prompts import planner_messages
from opsagent.workflows.role_call import ask_for_reply


class PlanPreview(BaseModel):
    """One line of ``opsagent plan`` output. Keep it stable: scripts and benchmarks read it."""

    route: Literal["reject", "clarify", "execute", "action", "help", "error"]
    parts: list[QuestionPart] = Field(default_factory=list)
    plan: list[PlanStep] = Field(default_factory=list)
    plan_reason: str = ""
    reject_reason: str = ""
    runbooks: list[str] = Field(default_factory=list)


async def preview_plan(runtime: Runtime, chat: WorkflowInput) -> PlanPreview:
    settings = runtime.settings
    analysis = await runtime.intake.analyse(chat.query, chat.history)
    trail = RunTrail(workflow="dynamic", question=chat.query, history=chat.history, analysis=analysis)
    runbooks = [runbook.name for runbook in analysis.runbooks]
    routed = route_by_intent(trail)  # what intake decides before any planner
    if isinstance(routed, DirectReply):
        return PlanPreview(route="help", runbooks=runbooks)
    if isinstance(routed, ClarifyRequest):
        return PlanPreview(route="clarify", plan_reason=routed.reason, runbooks=runbooks)
    role_input = PlannerInput(mode="user", question=chat.query, history=chat.history, analysis=analysis,
                              specialists=runtime.specialist_infos, max_tasks=settings.max_plan_tasks)
    text, error = await ask_for_reply(runtime.agents.dynamic_triage, planner_messages(role_input), mode="user",
                                      timeout_seconds=settings.task_timeout_seconds)
    decision = decide_user_mode(PlannerReply(trail=trail, mode="user", text=text, error=error),
                                agents=runtime.specialist_names, max_tasks=settings.max_plan_tasks,
                                min_confidence=settings.planner_min_confidence, max_steps=settings.max_plan_steps)
    acting = analysis.action is not None
    if isinstance(decision, ExecutionPlan):
        return PlanPreview(route="action" if acting else "execute", parts=decision.trail.parts, plan=decision.steps, runbooks=runbooks,
                           plan_reason=decision.trail.plans[-1].reason)
    if isinstance(decision, ClarifyRequest):
        return PlanPreview(route="clarify", plan_reason=decision.reason, runbooks=runbooks)
    assert isinstance(decision, Rejection)
    route = "error" if decision.failure else "action" if acting else "reject"
    return PlanPreview(route=route, reject_reason=decision.reason, runbooks=runbooks)
