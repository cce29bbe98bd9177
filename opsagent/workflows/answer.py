"""aggregate: compose the final answer from the specialists' results, adding no facts.

Failures, tool errors and what the reviewer still missed become the answer's limitations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agent_framework import Executor, WorkflowContext, handler
from typing_extensions import Never

from opsagent.contracts.messages import ReviewModeRequest, TriageDecision
from opsagent.contracts.results import Answer, AnswerMetadata, ReviewRecord, TaskResult
from opsagent.tools.envelope import ToolResult
from opsagent.workflows.ids import AGGREGATE
from opsagent.workflows.ledger import RunLedger, read_ledger

NOTHING_ANSWERED = "I could not get an answer from any specialist for this question."


def _tool_error_text(result: TaskResult) -> list[str]:
    lines = []
    for call in result.tool_calls:
        if not call.is_error:
            continue
        envelope = ToolResult.from_text(call.result)
        detail = envelope.message if envelope and envelope.message else call.result[:200]
        lines.append(f"{result.agent} tool {call.name}: {detail}")
    return lines


def made_good_by_retry(result: TaskResult, results: Sequence[TaskResult]) -> bool:
    """A first-pass result whose failure a clean review-mode task of the same specialist made good.

    Its failure no longer limits the answer, so neither its text nor its errors are shown
    (the metadata keeps every task).
    """
    failed_tools = {call.name for call in result.tool_calls if call.is_error}
    if result.mode != "user" or (result.succeeded and not failed_tools):
        return False
    return any(
        later.mode == "review" and later.agent == result.agent and later.succeeded
        and not any(call.is_error for call in later.tool_calls)
        and failed_tools <= {call.name for call in later.tool_calls}
        for later in results
    )


def answered_results(ledger: RunLedger) -> list[TaskResult]:
    return [result for result in ledger.results if not made_good_by_retry(result, ledger.results)]


def collect_limitations(ledger: RunLedger, results: Sequence[TaskResult]) -> list[str]:
    limitations: list[str] = []
    for result in results:
        if result.status in ("failed", "timeout"):
            limitations.append(f"{result.agent} (step {result.step}) {result.status}: {result.error}")
        limitations.extend(_tool_error_text(result))
    final_review = ledger.reviews[-1] if ledger.reviews else None
    if final_review is not None and not final_review.is_complete and ledger.retry_used:
        missing = ", ".join(final_review.missing_aspects) or final_review.summary
        limitations.append(f"Still missing after the one allowed retry: {missing}")
    if ledger.retry_accepted is False and ledger.retry_rejection_reason:
        limitations.append(f"The reviewer found gaps that were not filled: {ledger.retry_rejection_reason}")
    return list(dict.fromkeys(limitations))


def compose_text(results: Sequence[TaskResult], limitations: Sequence[str], titles: Mapping[str, str]) -> str:
    answered = [result for result in results if result.succeeded]
    if len(answered) == 1:
        parts = [answered[0].response]
    elif answered:
        parts = [f"**{titles.get(result.agent, result.agent)}** — {result.question}\n\n{result.response}"
                 for result in answered]
    else:
        parts = [NOTHING_ANSWERED]
    if limitations:
        parts.append("**Limitations**\n" + "\n".join(f"- {item}" for item in limitations))
    return "\n\n".join(parts)


def build_metadata(ledger: RunLedger, **fields) -> AnswerMetadata:
    review = None
    if ledger.reviews or ledger.retry_used:
        review = ReviewRecord(
            verdicts=ledger.reviews,
            retry_used=ledger.retry_used,
            retry_accepted=ledger.retry_accepted,
            retry_rejection_reason=ledger.retry_rejection_reason,
        )
    return AnswerMetadata(
        workflow=ledger.workflow,
        plans=ledger.plans,
        tasks=ledger.results,
        review=review,
        clarification=ledger.clarification,
        notes=ledger.notes,
        **fields,
    )


def compose_answer(ledger: RunLedger, titles: Mapping[str, str]) -> Answer:
    results = answered_results(ledger)
    limitations = collect_limitations(ledger, results)
    return Answer(
        text=compose_text(results, limitations, titles),
        metadata=build_metadata(ledger, route="execute", limitations=limitations),
    )


class AggregateExecutor(Executor):
    """Three entries: a finished review, a declined re-plan, or the default workflow's fan-in."""

    def __init__(self, titles: Mapping[str, str]) -> None:
        super().__init__(id=AGGREGATE)
        self.titles = titles

    @handler
    async def after_review(self, request: ReviewModeRequest, ctx: WorkflowContext[Never, Answer]) -> None:
        await ctx.yield_output(compose_answer(read_ledger(ctx), self.titles))

    @handler
    async def after_declined_replan(self, decision: TriageDecision, ctx: WorkflowContext[Never, Answer]) -> None:
        await ctx.yield_output(compose_answer(read_ledger(ctx), self.titles))

    @handler
    async def after_fan_in(self, results: list[TaskResult], ctx: WorkflowContext[Never, Answer]) -> None:
        ledger = read_ledger(ctx)
        ledger.results = [result for result in results if result.status != "skipped"]
        order = {task.agent: index for index, task in enumerate(ledger.plans[-1].steps)} if ledger.plans else {}
        ledger.results.sort(key=lambda result: order.get(result.agent, len(order)))
        await ctx.yield_output(compose_answer(ledger, self.titles))
