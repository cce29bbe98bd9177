"""store_query: the entry of both workflows. Analyses the question, then hands it to the planner."""

from __future__ import annotations

from agent_framework import Executor, WorkflowContext, handler

from opsagent.contracts.messages import PlanningRequest, RunTrail
from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.results import ProgressEvent, WorkflowKind
from opsagent.intake import QuestionAnalyzer
from opsagent.workflows.ids import STORE_QUERY
from opsagent.workflows.progress import question_analysed


class StoreQueryExecutor(Executor):
    def __init__(self, workflow: WorkflowKind, analyzer: QuestionAnalyzer) -> None:
        super().__init__(id=STORE_QUERY)
        self.workflow = workflow
        self.analyzer = analyzer

    @handler
    async def store(self, request: WorkflowInput, ctx: WorkflowContext[PlanningRequest, ProgressEvent]) -> None:
        analysis = await self.analyzer.analyse(request.query, request.history)
        trail = RunTrail(workflow=self.workflow, question=request.query, history=request.history, analysis=analysis)
        event = question_analysed(analysis)
        if event is not None:
            await ctx.yield_output(event)
        await ctx.send_message(PlanningRequest(trail=trail))
