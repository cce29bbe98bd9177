"""The default workflow's specialist executors: one per registered specialist, fanned out by triage.

Each receives the triage decision; a specialist that was not chosen answers "skipped" at once,
because the fan-in to ``aggregate`` waits for every source.
"""

from __future__ import annotations

from agent_framework import Executor, WorkflowContext, handler

from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.messages import TriageDecision
from opsagent.contracts.results import ProgressEvent, TaskResult
from opsagent.workflows.execution import run_task
from opsagent.workflows.progress import task_finished, task_started


class SpecialistTaskExecutor(Executor):
    def __init__(self, agent: ConfiguredAgent, *, task_timeout_seconds: float) -> None:
        super().__init__(id=agent.name)
        self.agent = agent
        self.task_timeout_seconds = task_timeout_seconds

    @handler
    async def answer(self, decision: TriageDecision, ctx: WorkflowContext[TaskResult, ProgressEvent]) -> None:
        task = next((task for task in decision.plan if task.agent == self.agent.name), None)
        if task is None:
            await ctx.send_message(TaskResult(agent=self.agent.name, question="", status="skipped", mode="triage"))
            return
        await ctx.yield_output(task_started(task))
        result = await run_task(self.agent, task, timeout_seconds=self.task_timeout_seconds, mode="triage")
        await ctx.yield_output(task_finished(result))
        await ctx.send_message(result)
