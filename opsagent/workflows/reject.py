"""reject_query: a direct answer that declines, with the reason (or why planning failed)."""

from __future__ import annotations

from agent_framework import Executor, WorkflowContext, handler
from typing_extensions import Never

from opsagent.contracts.messages import TriageDecision
from opsagent.contracts.results import Answer
from opsagent.workflows.answer import build_metadata
from opsagent.workflows.ids import REJECT_QUERY
from opsagent.workflows.ledger import read_ledger

CAPABILITIES = (
    "I can look up ServiceNow incidents and change requests, Azure Data Factory pipeline runs, "
    "and the health of Databricks, Snowflake and Azure."
)


class RejectQueryExecutor(Executor):
    def __init__(self) -> None:
        super().__init__(id=REJECT_QUERY)

    @handler
    async def reject(self, decision: TriageDecision, ctx: WorkflowContext[Never, Answer]) -> None:
        ledger = read_ledger(ctx)
        if decision.failure is not None:
            text = f"{decision.reason} Please try again, or rephrase the question."
            metadata = build_metadata(ledger, route="error", error_code=decision.failure, reject_reason=decision.reason)
        else:
            text = f"{decision.reason} {CAPABILITIES}"
            metadata = build_metadata(ledger, route="reject", reject_reason=decision.reason)
        await ctx.yield_output(Answer(text=text, metadata=metadata))
