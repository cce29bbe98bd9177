"""reject_query: a direct answer that declines (out of scope, a write request) or explains a planner failure."""

from __future__ import annotations

from agent_framework import Executor, WorkflowContext, handler
from typing_extensions import Never

from opsagent.contracts.messages import Rejection
from opsagent.contracts.results import Answer
from opsagent.workflows.answer import build_metadata
from opsagent.workflows.ids import REJECT_QUERY

CAPABILITIES = (
    "I can look up ServiceNow incidents and change requests, Azure Data Factory pipeline runs, and the "
    "health of Databricks, Snowflake and Azure."
)


class RejectQueryExecutor(Executor):
    def __init__(self) -> None:
        super().__init__(id=REJECT_QUERY)

    @handler
    async def reject(self, rejection: Rejection, ctx: WorkflowContext[Never, Answer]) -> None:
        if rejection.failure is not None:
            text = f"{rejection.reason} Please try again, or rephrase the question."
            metadata = build_metadata(rejection.trail, route="error", error_code=rejection.failure,
                                      reject_reason=rejection.reason)
        else:
            text = f"{rejection.reason} {CAPABILITIES}"
            metadata = build_metadata(rejection.trail, route="reject", reject_reason=rejection.reason)
        await ctx.yield_output(Answer(text=text, summary=text, metadata=metadata))
