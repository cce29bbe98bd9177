"""The default (triage) workflow's own executors: the one-call ``triage`` and a fan-out executor per specialist."""

from __future__ import annotations

from collections.abc import Collection

from agent_framework import Executor, WorkflowContext, handler

from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.evidence import TaskResult
from opsagent.contracts.messages import ExecutionPlan, PlannerReply, PlanningRequest, Rejection, SpecialistOutcome
from opsagent.contracts.results import ProgressEvent
from opsagent.contracts.role_inputs import PlannerInput, SpecialistInfo, SpecialistInput
from opsagent.intake import task_analysis
from opsagent.workflows.decisions import decide_triage
from opsagent.workflows.execution import run_task
from opsagent.workflows.ids import TRIAGE
from opsagent.workflows.progress import decision_made, task_finished, task_started
from opsagent.workflows.prompts import planner_messages
from opsagent.workflows.role_call import ask_for_reply


class TriageExecutor(Executor):
    """One call that picks specialists (or refuses), parsed in place."""

    def __init__(self, agent: ConfiguredAgent, *, specialists: list[SpecialistInfo], agents: Collection[str],
                 max_tasks: int, timeout_seconds: float) -> None:
        super().__init__(id=TRIAGE)
        self.agent = agent
        self.specialists = specialists
        self.agents = frozenset(agents)
        self.max_tasks = max_tasks
        self.timeout_seconds = timeout_seconds

    @handler
    async def triage(self, request: PlanningRequest, ctx: WorkflowContext[Rejection | ExecutionPlan, ProgressEvent]) -> None:
        trail = request.trail
        role_input = PlannerInput(mode="triage", question=trail.question, history=trail.history,
                                  analysis=trail.analysis, specialists=self.specialists, max_tasks=self.max_tasks)
        text, error = await ask_for_reply(self.agent, planner_messages(role_input), timeout_seconds=self.timeout_seconds)
        decision = decide_triage(PlannerReply(trail=trail, mode="triage", text=text, error=error),
                                 agents=self.agents, max_tasks=self.max_tasks)
        event = decision_made(decision)
        if event is not None:
            await ctx.yield_output(event)
        await ctx.send_message(decision)


class SpecialistTaskExecutor(Executor):
    """Runs its specialist's task of the triage plan; a specialist not chosen answers "skipped" at
    once, because the fan-in to the review waits for every source."""

    def __init__(self, agent: ConfiguredAgent, *, task_timeout_seconds: float) -> None:
        super().__init__(id=agent.name)
        self.agent = agent
        self.task_timeout_seconds = task_timeout_seconds

    @handler
    async def answer(self, plan: ExecutionPlan, ctx: WorkflowContext[SpecialistOutcome, ProgressEvent]) -> None:
        task = next((task for task in plan.steps if task.agent == self.agent.name), None)
        if task is None:
            skipped = TaskResult(agent=self.agent.name, question="", status="skipped", mode="triage")
            await ctx.send_message(SpecialistOutcome(trail=plan.trail, result=skipped))
            return
        await ctx.yield_output(task_started(task))
        role_input = SpecialistInput(agent=task.agent, task=task, mode="triage", question=plan.trail.question,
                                     analysis=task_analysis(plan.trail.analysis, task.question))
        result = await run_task(self.agent, role_input, timeout_seconds=self.task_timeout_seconds)
        await ctx.yield_output(task_finished(result))
        await ctx.send_message(SpecialistOutcome(trail=plan.trail, result=result))
