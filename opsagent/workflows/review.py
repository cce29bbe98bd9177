"""review: is every part of the question answered? May send the question back once.

The retry counter lives in the run ledger (workflow state): after one retry the answer is final
whatever the reviewer says, and what is still missing becomes a limitation of the answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_framework import Executor, WorkflowContext, handler

from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.messages import ExecutionReport, ReviewModeRequest
from opsagent.contracts.plans import ReviewOutput
from opsagent.contracts.repair import parse_model_output
from opsagent.contracts.results import ProgressEvent, TaskResult
from opsagent.workflows.ids import REVIEW
from opsagent.workflows.ledger import read_ledger, write_ledger
from opsagent.workflows.progress import review_given
from opsagent.workflows.prompts import review_message
from opsagent.workflows.role_call import ask_for_reply


class ReviewExecutor(Executor):
    def __init__(self, agent: ConfiguredAgent, *, timeout_seconds: float) -> None:
        super().__init__(id=REVIEW)
        self.agent = agent
        self.timeout_seconds = timeout_seconds

    async def _review(self, query: str, results: Sequence[TaskResult]) -> tuple[ReviewOutput, str | None]:
        text, error = await ask_for_reply(
            self.agent, review_message(query, results), mode=None, timeout_seconds=self.timeout_seconds
        )
        if error is None:
            parsed = parse_model_output(text, ReviewOutput)
            if parsed.value is not None:
                return parsed.value, None
            error = parsed.error
        # Without a usable verdict we cannot justify a retry: accept the results as they are.
        return ReviewOutput(is_complete=True, summary="(no review)", confidence=0.0), f"review skipped: {error}"

    @handler
    async def review(self, report: ExecutionReport, ctx: WorkflowContext[ReviewModeRequest, ProgressEvent]) -> None:
        ledger = read_ledger(ctx)
        verdict, note = await self._review(ledger.query, ledger.results)
        if note:
            ledger.notes.append(note)
        wants_retry = not verdict.is_complete and not ledger.retry_used
        ledger.reviews.append(verdict)
        ledger.retry_used = ledger.retry_used or wants_retry
        write_ledger(ctx, ledger)
        await ctx.yield_output(review_given(verdict, wants_retry=wants_retry))
        await ctx.send_message(ReviewModeRequest(review=verdict, wants_retry=wants_retry))
