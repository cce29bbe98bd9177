"""store_query: the entry of both workflows. Records the question and history, starts triage."""

from __future__ import annotations

from agent_framework import Executor, WorkflowContext, handler

from opsagent.contracts.messages import UserModeRequest
from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.results import WorkflowKind
from opsagent.workflows.ids import STORE_QUERY
from opsagent.workflows.ledger import RunLedger, write_ledger


class StoreQueryExecutor(Executor):
    def __init__(self, workflow: WorkflowKind) -> None:
        super().__init__(id=STORE_QUERY)
        self.workflow = workflow

    @handler
    async def store(self, request: WorkflowInput, ctx: WorkflowContext[UserModeRequest]) -> None:
        ledger = RunLedger(workflow=self.workflow, query=request.query, history=request.history)
        write_ledger(ctx, ledger)
        await ctx.send_message(UserModeRequest(query=ledger.query, history=ledger.history))
