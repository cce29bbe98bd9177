"""review: is every part of the question answered? Writes the answer; may send the question back once.

First the deterministic coverage check (``coverage.py``), then one model call that returns the
verdict and the answer together (no extra call on the common path). When a part is still missing
and the one re-plan is unused, the question goes back to the planner; otherwise the draft answer
goes on to the grounding check. The grounding check may send it back here once to be rewritten.
"""

from __future__ import annotations

from agent_framework import Executor, WorkflowContext, handler

from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.messages import (
    DraftAnswer,
    ExecutionReport,
    RegenerateRequest,
    ReplanRequest,
    RunTrail,
    SpecialistOutcome,
)
from opsagent.contracts.plans import PartGap, ReviewOutput
from opsagent.contracts.repair import parse_model_output
from opsagent.contracts.results import ProgressEvent
from opsagent.contracts.role_inputs import ReviewInput
from opsagent.workflows.coverage import missing_parts
from opsagent.workflows.parts import concrete_gaps
from opsagent.workflows.ids import REPLANS_STATE_KEY, REVIEW
from opsagent.workflows.progress import review_given
from opsagent.workflows.prompts import review_messages
from opsagent.workflows.role_call import ask_for_reply

MAX_REPLANS = 1


def merge_gaps(verdict: ReviewOutput, gaps: list[PartGap]) -> ReviewOutput:
    """The model's verdict with the deterministic gaps kept: it may add gaps, never remove one."""
    if not gaps:
        return verdict
    described = [gap.describe() for gap in gaps]
    missing = [*described, *(aspect for aspect in verdict.missing_aspects if aspect not in described)]
    return verdict.model_copy(update={"is_complete": False, "missing_aspects": missing})


class ReviewExecutor(Executor):
    def __init__(self, agent: ConfiguredAgent, *, allow_retry: bool, timeout_seconds: float) -> None:
        super().__init__(id=REVIEW)
        self.agent = agent
        self.allow_retry = allow_retry
        self.timeout_seconds = timeout_seconds

    async def _ask(self, role_input: ReviewInput) -> tuple[ReviewOutput, str | None]:
        text, error = await ask_for_reply(self.agent, review_messages(role_input), timeout_seconds=self.timeout_seconds)
        if error is None:
            parsed = parse_model_output(text, ReviewOutput)
            if parsed.value is not None:
                return parsed.value, None
            error = parsed.error
        # Without a usable verdict there is no written answer: grounding will show the evidence instead.
        return ReviewOutput(is_complete=True, summary="", confidence=0.0), f"review failed: {error}"

    async def _review(self, trail: RunTrail, ctx: WorkflowContext[ReplanRequest | DraftAnswer, ProgressEvent],
                      *, can_retry: bool) -> None:
        gaps = missing_parts(trail.parts, trail.results, trail.analysis)
        replans = ctx.get_state(REPLANS_STATE_KEY, 0)
        can_retry = can_retry and self.allow_retry and replans < MAX_REPLANS
        role_input = ReviewInput(question=trail.question, analysis=trail.analysis, parts=trail.parts,
                                 results=trail.results, gaps=gaps, can_retry=can_retry)
        verdict, note = await self._ask(role_input)
        model_gaps = [aspect for aspect in verdict.missing_aspects if aspect not in {gap.describe() for gap in gaps}]
        verdict = merge_gaps(verdict, gaps)
        trail = trail.extended(reviews=[verdict], gaps=[gaps], notes=[note] if note else [])
        # A part whose tools failed for a permanent reason (not authorised, no such record) cannot be
        # filled by asking again: it stays a limitation without spending the one re-plan. A gap only the
        # model sees is worth the re-plan when it names a part of the question (else planners decline it).
        worth_retrying = bool(concrete_gaps(model_gaps, trail.analysis)) or any(gap.retryable for gap in gaps)
        wants_retry = can_retry and not verdict.is_complete and worth_retrying
        await ctx.yield_output(review_given(verdict, gaps=gaps, wants_retry=wants_retry))
        if wants_retry:
            ctx.set_state(REPLANS_STATE_KEY, replans + 1)
            await ctx.send_message(ReplanRequest(trail=trail, review=verdict, gaps=gaps))
        else:
            await ctx.send_message(DraftAnswer(trail=trail, review=verdict))

    @handler
    async def review_plan(self, report: ExecutionReport,
                          ctx: WorkflowContext[ReplanRequest | DraftAnswer, ProgressEvent]) -> None:
        await self._review(report.trail, ctx, can_retry=report.can_retry)

    @handler
    async def review_fan_in(self, outcomes: list[SpecialistOutcome],
                            ctx: WorkflowContext[ReplanRequest | DraftAnswer, ProgressEvent]) -> None:
        """Triage workflow: the specialists' results, in plan order (skipped ones left out)."""
        trail = outcomes[0].trail
        order = {task.agent: index for index, task in enumerate(trail.plans[-1].steps)} if trail.plans else {}
        results = sorted((outcome.result for outcome in outcomes if outcome.result.status != "skipped"),
                         key=lambda result: order.get(result.agent, len(order)))
        await self._review(trail.extended(results=results), ctx, can_retry=False)

    @handler
    async def rewrite(self, request: RegenerateRequest, ctx: WorkflowContext[DraftAnswer, ProgressEvent]) -> None:
        """Grounding found claims the evidence does not back: write the answer again, once, with that feedback."""
        trail = request.trail
        role_input = ReviewInput(
            question=trail.question, analysis=trail.analysis, parts=trail.parts, results=trail.results,
            gaps=trail.gaps[-1] if trail.gaps else [], can_retry=False, previous_summary=request.draft.summary,
            feedback=[check.detail or check.claim for check in request.report.failures],
        )
        verdict, note = await self._ask(role_input)
        verdict = merge_gaps(verdict, role_input.gaps)
        trail = trail.extended(reviews=[verdict], notes=[note] if note else [])
        await ctx.yield_output(review_given(verdict, gaps=role_input.gaps, wants_retry=False, rewrite=True))
        await ctx.send_message(DraftAnswer(trail=trail, review=verdict))
