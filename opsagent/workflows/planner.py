"""The dynamic workflow's planner: ``dynamic_triage`` (user and review mode) and ``parse_triage_output``.

``dynamic_triage`` only asks the model; ``parse_triage_output`` repairs and validates the reply
and sends the next message (see ``decisions.py``), so a bad reply is handled in one place.
"""

from __future__ import annotations

from collections.abc import Collection

from agent_framework import Executor, WorkflowContext, handler

from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.messages import (
    ClarifyRequest,
    DraftAnswer,
    ExecutionPlan,
    PlannerReply,
    PlanningRequest,
    Rejection,
    ReplanRequest,
)
from opsagent.contracts.results import ProgressEvent
from opsagent.contracts.role_inputs import PlannerInput, ReplanInput, SpecialistInfo
from opsagent.workflows.decisions import decide_review_mode, decide_user_mode
from opsagent.workflows.ids import DYNAMIC_TRIAGE, PARSE_TRIAGE_OUTPUT
from opsagent.workflows.progress import decision_made
from opsagent.workflows.prompts import planner_messages, replan_messages
from opsagent.workflows.role_call import ask_for_reply


class DynamicTriageExecutor(Executor):
    """Two handlers, one per mode: the first plan, and the one re-plan after an incomplete review."""

    def __init__(self, agent: ConfiguredAgent, *, specialists: list[SpecialistInfo], max_tasks: int,
                 timeout_seconds: float) -> None:
        super().__init__(id=DYNAMIC_TRIAGE)
        self.agent = agent
        self.specialists = specialists
        self.max_tasks = max_tasks
        self.timeout_seconds = timeout_seconds

    @handler
    async def plan_user_request(self, request: PlanningRequest, ctx: WorkflowContext[PlannerReply]) -> None:
        trail = request.trail
        role_input = PlannerInput(mode="user", question=trail.question, history=trail.history, analysis=trail.analysis,
                                  specialists=self.specialists, max_tasks=self.max_tasks)
        text, error = await ask_for_reply(self.agent, planner_messages(role_input), mode="user",
                                          timeout_seconds=self.timeout_seconds)
        await ctx.send_message(PlannerReply(trail=trail, mode="user", text=text, error=error))

    @handler
    async def plan_review_request(self, request: ReplanRequest, ctx: WorkflowContext[PlannerReply]) -> None:
        trail = request.trail
        role_input = ReplanInput(question=trail.question, analysis=trail.analysis, parts=trail.parts,
                                 results=trail.results, review=request.review, gaps=request.gaps,
                                 specialists=self.specialists, max_tasks=self.max_tasks)
        text, error = await ask_for_reply(self.agent, replan_messages(role_input), mode="review",
                                          timeout_seconds=self.timeout_seconds)
        await ctx.send_message(PlannerReply(trail=trail, mode="review", text=text, error=error))


class ParseTriageOutputExecutor(Executor):
    def __init__(self, *, agents: Collection[str], max_tasks: int, min_confidence: float,
                 max_steps: int | None = None) -> None:
        super().__init__(id=PARSE_TRIAGE_OUTPUT)
        self.agents = frozenset(agents)
        self.max_tasks = max_tasks
        self.max_steps = max_steps
        self.min_confidence = min_confidence

    @handler
    async def parse(
        self, reply: PlannerReply,
        ctx: WorkflowContext[Rejection | ClarifyRequest | ExecutionPlan | DraftAnswer, ProgressEvent],
    ) -> None:
        if reply.mode == "review":
            decision = decide_review_mode(reply, agents=self.agents, max_tasks=self.max_tasks, max_steps=self.max_steps)
        else:
            decision = decide_user_mode(reply, agents=self.agents, max_tasks=self.max_tasks,
                                        min_confidence=self.min_confidence, max_steps=self.max_steps)
        event = decision_made(decision)
        if event is not None:
            await ctx.yield_output(event)
        await ctx.send_message(decision)
