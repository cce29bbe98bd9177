"""grounding: check the written answer against the evidence before it is sent (seed 000's graph).

PASS (score ≥ the pass mark) → publish. REGENERATE (between the block and pass marks, first
attempt) → back to the review with the failed checks as feedback. Failing again (or below the block
mark): PARTIAL → publish only the sentences no failed check is about, and name what was left out in
the product's words; BLOCK (nothing supported is left) → a visible warning and the evidence.
The checks themselves are pure functions in ``grounding_check.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from agent_framework import Executor, WorkflowContext, handler

from opsagent.contracts.messages import DraftAnswer, GroundedAnswer, RegenerateRequest
from opsagent.contracts.results import ProgressEvent
from opsagent.settings import Settings
from opsagent.workflows.grounding_check import Thresholds, grounding_report
from opsagent.workflows.ids import GROUNDING, REGENERATIONS_STATE_KEY
from opsagent.workflows.presentation import body
from opsagent.workflows.progress import grounding_checked

MAX_REGENERATIONS = 1


def grounding_thresholds(settings: Settings) -> Thresholds:
    return Thresholds(pass_at=settings.grounding_pass_at, block_below=settings.grounding_block_below)


class GroundingExecutor(Executor):
    def __init__(self, *, thresholds: Thresholds, known_names: Callable[[], Collection[str]] = tuple) -> None:
        super().__init__(id=GROUNDING)
        self.thresholds = thresholds
        self.known_names = known_names
        """Inventory names (factories, components…) an answer may only use when the evidence has them."""

    @handler
    async def check(self, draft: DraftAnswer, ctx: WorkflowContext[GroundedAnswer | RegenerateRequest, ProgressEvent]) -> None:
        regenerations = ctx.get_state(REGENERATIONS_STATE_KEY, 0)
        trail = draft.trail
        report = grounding_report(
            body(draft.review), trail.results, attempt=regenerations + 1, thresholds=self.thresholds,
            can_regenerate=regenerations < MAX_REGENERATIONS, parts=trail.parts, question=trail.question,
            known_names=self.known_names(), analysis=trail.analysis, summary=draft.review.summary,
            earlier="\n".join(turn.content for turn in trail.history),
            told="\n".join(turn.content for turn in trail.history if turn.role == "assistant"),
        )
        trail = trail.extended(groundings=[report])
        await ctx.yield_output(grounding_checked(report))
        if report.verdict == "regenerate":
            ctx.set_state(REGENERATIONS_STATE_KEY, regenerations + 1)
            await ctx.send_message(RegenerateRequest(trail=trail, draft=draft.review, report=report))
        else:
            await ctx.send_message(GroundedAnswer(trail=trail, review=draft.review, report=report, kind=report.verdict))
