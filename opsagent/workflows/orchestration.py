"""orchestrator: run a plan step by step; the tasks of one step run concurrently.

Step N receives every result of step N-1. A failed or timed-out task is a result that says so;
the step and the workflow go on. Results of a review-mode plan are added to the earlier ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from itertools import groupby

from agent_framework import Executor, WorkflowContext, handler

from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.evidence import TaskResult
from opsagent.contracts.messages import ExecutionPlan, ExecutionReport
from opsagent.contracts.plans import PlanStep
from opsagent.contracts.results import ProgressEvent
from opsagent.contracts.role_inputs import SpecialistInput
from opsagent.intake import task_analysis
from opsagent.workflows.execution import run_task
from opsagent.workflows.ids import ORCHESTRATOR
from opsagent.workflows.progress import task_finished, task_started


class OrchestratorExecutor(Executor):
    def __init__(self, specialists: Mapping[str, ConfiguredAgent], *, task_timeout_seconds: float) -> None:
        super().__init__(id=ORCHESTRATOR)
        self.specialists = specialists
        self.task_timeout_seconds = task_timeout_seconds

    async def _run_one(self, task: PlanStep, plan: ExecutionPlan, previous: list[TaskResult],
                       ctx: WorkflowContext[ExecutionReport, ProgressEvent]) -> TaskResult:
        await ctx.yield_output(task_started(task))
        agent = self.specialists.get(task.agent)
        if agent is None:  # plans are validated against the registry; this guards a custom registry
            result = TaskResult(step=task.step, agent=task.agent, question=task.question, part=task.part,
                                mode=plan.mode, status="failed", error=f"no specialist named {task.agent!r}")
        else:
            role_input = SpecialistInput(agent=task.agent, task=task, mode=plan.mode, question=plan.trail.question,
                                         analysis=task_analysis(plan.trail.analysis, task.question), previous=previous)
            result = await run_task(agent, role_input, timeout_seconds=self.task_timeout_seconds)
        await ctx.yield_output(task_finished(result))
        return result

    @handler
    async def run_plan(self, plan: ExecutionPlan, ctx: WorkflowContext[ExecutionReport, ProgressEvent]) -> None:
        results: list[TaskResult] = []
        previous: list[TaskResult] = []
        for _, step_tasks in groupby(sorted(plan.steps, key=lambda task: task.step), key=lambda task: task.step):
            step_results = await asyncio.gather(*(self._run_one(task, plan, previous, ctx) for task in step_tasks))
            results.extend(step_results)
            previous = list(step_results)
        await ctx.send_message(ExecutionReport(trail=plan.trail.extended(results=results), can_retry=plan.mode == "user"))
