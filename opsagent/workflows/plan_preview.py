"""The user-mode triage decision on its own, without executing anything.

``python -m opsagent plan`` and the accuracy tests use it to look inside the planner.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from opsagent.contracts.plans import PlanStep
from opsagent.contracts.requests import WorkflowInput
from opsagent.runtime import Runtime
from opsagent.workflows.decision import decide_user_mode
from opsagent.workflows.prompts import conversation_messages
from opsagent.workflows.role_call import ask_planner


class PlanPreview(BaseModel):
    """One line of ``opsagent plan`` output. Keep it stable: scripts and benchmarks read it."""

    route: Literal["reject", "clarify", "execute"]
    plan: list[PlanStep] = Field(default_factory=list)
    plan_reason: str = ""
    reject_reason: str = ""


async def preview_plan(runtime: Runtime, chat: WorkflowInput) -> PlanPreview:
    reply = await ask_planner(
        runtime.agents.dynamic_triage, conversation_messages(chat.query, chat.history), mode="user_mode",
        plan_mode="user", timeout_seconds=runtime.settings.task_timeout_seconds,
    )
    decision, _ = decide_user_mode(reply, agents=runtime.specialist_names, max_tasks=runtime.settings.max_plan_tasks)
    route = decision.route  # user mode decides reject, clarify or execute only
    return PlanPreview(
        route=route,
        plan=decision.plan,
        plan_reason=decision.reason if route != "reject" else "",
        reject_reason=decision.reason if route == "reject" else "",
    )
