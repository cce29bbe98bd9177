"""dynamic_triage: the planner. Two handlers, one per mode; emits the model's raw reply.

Parsing and validation happen in ``parse_triage_output`` so a bad reply is handled in one place.
"""

from __future__ import annotations

from collections.abc import Collection

from agent_framework import Executor, WorkflowContext, handler

from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.messages import ReviewModeRequest, TriageDecision, TriageReply, UserModeRequest
from opsagent.contracts.results import ProgressEvent
from opsagent.workflows.decision import decide_triage, publish_decision
from opsagent.workflows.ids import DYNAMIC_TRIAGE, TRIAGE
from opsagent.workflows.ledger import read_ledger
from opsagent.workflows.prompts import conversation_messages, review_mode_message
from opsagent.workflows.role_call import ask_planner


class DynamicTriageExecutor(Executor):
    def __init__(self, agent: ConfiguredAgent, *, timeout_seconds: float) -> None:
        super().__init__(id=DYNAMIC_TRIAGE)
        self.agent = agent
        self.timeout_seconds = timeout_seconds

    @handler
    async def plan_user_request(self, request: UserModeRequest, ctx: WorkflowContext[TriageReply]) -> None:
        messages = conversation_messages(request.query, request.history)
        reply = await ask_planner(self.agent, messages, mode="user_mode", plan_mode="user", timeout_seconds=self.timeout_seconds)
        await ctx.send_message(reply)

    @handler
    async def plan_review_request(self, request: ReviewModeRequest, ctx: WorkflowContext[TriageReply]) -> None:
        ledger = read_ledger(ctx)
        message = review_mode_message(ledger.query, ledger.results, request.review)
        reply = await ask_planner(self.agent, message, mode="review_mode", plan_mode="review", timeout_seconds=self.timeout_seconds)
        await ctx.send_message(reply)


class TriageExecutor(Executor):
    """The default workflow's triage: one call that picks specialists (or refuses), parsed in place."""

    def __init__(self, agent: ConfiguredAgent, *, agents: Collection[str], max_tasks: int, timeout_seconds: float) -> None:
        super().__init__(id=TRIAGE)
        self.agent = agent
        self.agents = frozenset(agents)
        self.max_tasks = max_tasks
        self.timeout_seconds = timeout_seconds

    @handler
    async def triage(self, request: UserModeRequest, ctx: WorkflowContext[TriageDecision, ProgressEvent]) -> None:
        reply = await ask_planner(
            self.agent, conversation_messages(request.query, request.history), mode=None, plan_mode="triage",
            timeout_seconds=self.timeout_seconds,
        )
        decision, notes = decide_triage(reply, agents=self.agents, max_tasks=self.max_tasks)
        await publish_decision(ctx, decision, notes)
